package verify_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

func TestSuggest(t *testing.T) {
	testCases := []struct{ id, want string }{
		{"compute.statistcs.mean", "compute.statistics.mean"},
		{"text.summarize.shrt", "text.summarize.short"},
		{"text.translate.en.it.fluemt", "text.translate.en.it.fluent"},
		{"image.upscale.3x", "image.upscale.2x"},
		{"totally.different.thing", ""},
	}
	for _, tc := range testCases {
		t.Run(tc.id, func(t *testing.T) {
			require.Equal(t, tc.want, verify.Suggest(tc.id))
		})
	}
}

func TestCheckKnown(t *testing.T) {
	for _, ok := range []string{"compute.statistics.mean", "custom.acme.ocr", "cap.doc.summarize", "text.translate.en.it.fluent"} {
		require.NoError(t, verify.CheckKnown(ok), ok)
	}
	err := verify.CheckKnown("compute.statistcs.mean")
	require.ErrorIs(t, err, verify.ErrUnknownCapability)
	require.Contains(t, err.Error(), "did you mean compute.statistics.mean?")
	require.ErrorIs(t, verify.CheckKnown("Compute.x"), verify.ErrInvalidID)
}
