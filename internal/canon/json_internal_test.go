package canon

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJSNumberFormatting(t *testing.T) {
	// Expected strings from node: String(x).
	testCases := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1.5, "-1.5"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{123e-20, "1.23e-18"}, {1e-7, "1e-7"}, {1.5e-6, "0.0000015"}, {0.30000000000000004, "0.30000000000000004"},
		{5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {9007199254740993, "9007199254740992"},
		{123456.789, "123456.789"}, {-1e-7, "-1e-7"}, {2e21, "2e+21"}, {1.2345e21, "1.2345e+21"},
	}
	for _, tc := range testCases {
		require.Equal(t, tc.want, jsNumber(tc.in), "%v", tc.in)
	}
}
