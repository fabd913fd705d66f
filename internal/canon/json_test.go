package canon_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/canon"
)

// The expected strings below were produced by JavaScript (node 20):
// stableJsonStringify(JSON.parse(in)) with the spec's stableJsonStringify.
// They are literals on purpose: never regenerate them from the Go output.
func TestJSONBytesMatchesJavaScript(t *testing.T) {
	testCases := []struct {
		name string
		in   string
		want string
	}{
		{name: "empty object", in: "{}", want: "{}"},
		{name: "empty array", in: "[]", want: "[]"},
		{name: "nested empties", in: "{\"b\":{},\"a\":[[],{}],\"c\":[{}]}", want: "{\"a\":[[],{}],\"b\":{},\"c\":[{}]}"},
		{name: "sorted keys", in: "{\"b\":1,\"a\":2,\"c\":{\"z\":1,\"y\":[3,2,1]}}", want: "{\"a\":2,\"b\":1,\"c\":{\"y\":[3,2,1],\"z\":1}}"},
		{name: "whitespace removed", in: " {\u000a\u0009\"a\" : [ 1 , 2 ] ,\u000d\u000a \"b\" : null } ", want: "{\"a\":[1,2],\"b\":null}"},
		{name: "html chars not escaped", in: "{\"h\":\"<script>&amp;</script>\",\"\\u003c\":\"\\u003e\\u0026\"}", want: "{\"<\":\">&\",\"h\":\"<script>&amp;</script>\"}"},
		{name: "line and paragraph separators literal", in: "{\"s\":\"a\\u2028b\\u2029c\"}", want: "{\"s\":\"a\u2028b\u2029c\"}"},
		{name: "non-ascii text", in: "{\"name\":\"Caf\u00e9 \u00f1and\u00fa \u2014 \u6771\u4eac \U0001f600\",\"\u00dcn\u00efcode\":\"ok\"}", want: "{\"name\":\"Caf\u00e9 \u00f1and\u00fa \u2014 \u6771\u4eac \U0001f600\",\"\u00dcn\u00efcode\":\"ok\"}"},
		{name: "utf16 key order not byte order", in: "{\"\\ufb01\":1,\"\U0001f600\":2,\"\u00e9\":3,\"a\":4,\"Z\":5,\"aa\":6,\"\":7,\"\\uffff\":8,\"\\ud800\\udc00\":9}", want: "{\"\":7,\"Z\":5,\"a\":4,\"aa\":6,\"\u00e9\":3,\"\U00010000\":9,\"\U0001f600\":2,\"\ufb01\":1,\"\uffff\":8}"},
		{name: "control characters", in: "{\"c\":\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f\\u007f\\\"\\\\\\/\"}", want: "{\"c\":\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f\u007f\\\"\\\\/\"}"},
		{name: "lone surrogates", in: "[\"\\ud800\",\"\\udfff\",\"x\\udbffy\",\"\\ud83d\\ude00\",\"\\ude00\\ud83d\"]", want: "[\"\\ud800\",\"\\udfff\",\"x\\udbffy\",\"\U0001f600\",\"\\ude00\\ud83d\"]"},
		{name: "large integers", in: "[9007199254740993,18446744073709551615,123456789012345678901234567890,-9007199254740993]", want: "[9007199254740992,18446744073709552000,1.2345678901234568e+29,-9007199254740992]"},
		{name: "large floats", in: "[1e21,1e20,123456789012345680000,1.5e300,-2e+21,1.7976931348623157e308,1e400,-1e400]", want: "[1e+21,100000000000000000000,123456789012345680000,1.5e+300,-2e+21,1.7976931348623157e+308,null,null]"},
		{name: "small floats", in: "[1e-7,0.000001,1.5e-7,0.1,5e-324,1e-400,-0,-0.0,0.0000012345]", want: "[1e-7,0.000001,1.5e-7,0.1,5e-324,0,0,0,0.0000012345]"},
		{name: "plain numbers", in: "[0,1,-1,1.5,100,1E2,1e+2,2.50,0.30000000000000004,3.0e0,4.35]", want: "[0,1,-1,1.5,100,100,100,2.5,0.30000000000000004,3,4.35]"},
		{name: "duplicate keys keep last", in: "{\"a\":1,\"b\":2,\"a\":3}", want: "{\"a\":3,\"b\":2}"},
		{name: "literals", in: "[true,false,null,{\"t\":true}]", want: "[true,false,null,{\"t\":true}]"},
		{name: "scalar string", in: "\"x<y\"", want: "\"x<y\""},
		{name: "scalar number", in: "12.50", want: "12.5"},
		{name: "deep nesting", in: "{\"a\":{\"b\":{\"c\":{\"d\":[[[{\"e\":\"f\"}]]]}}}}", want: "{\"a\":{\"b\":{\"c\":{\"d\":[[[{\"e\":\"f\"}]]]}}}}"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canon.JSONBytes([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

func TestJSONGoValuesMatchJavaScript(t *testing.T) {
	v := struct {
		B     string          `json:"b"`
		A     int64           `json:"a"`
		F     float64         `json:"f"`
		G     float64         `json:"g"`
		H     float64         `json:"h"`
		M     map[string]any  `json:"m"`
		R     json.RawMessage `json:"r"`
		Bytes []byte          `json:"bytes"`
		U     uint64          `json:"u"`
		None  *int            `json:"none"`
		Skip  string          `json:"skip,omitempty"`
	}{
		B: "<a&b>\u2028", A: 9007199254740993, F: 1e-7, G: 1e21, H: 0.1,
		M:     map[string]any{"ü": 1, "z": []int{}, "A": struct{}{}},
		R:     json.RawMessage(`{ "y": 2, "x": 1 }`),
		Bytes: []byte("hi"), U: 18446744073709551615,
	}
	// From node: stableJsonStringify of the same value written as a JS object.
	want := "{\"a\":9007199254740992,\"b\":\"<a&b>\u2028\",\"bytes\":\"aGk=\",\"f\":1e-7,\"g\":1e+21,\"h\":0.1,\"m\":{\"A\":{},\"z\":[],\"\u00fc\":1},\"none\":null,\"r\":{\"x\":1,\"y\":2},\"u\":18446744073709552000}"
	got, err := canon.JSON(v)
	require.NoError(t, err)
	require.Equal(t, want, string(got))

}

func TestJSONRejectsBadInput(t *testing.T) {
	testCases := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"trailing comma", `[1,]`},
		{"trailing data", `{} {}`},
		{"leading zero", `01`},
		{"bare dot", `1.`},
		{"bad exponent", `1e`},
		{"single quotes", `{'a':1}`},
		{"raw control char", "\"a\x01b\""},
		{"invalid utf8", "\"\xff\""},
		{"bad escape", `"\x"`},
		{"short unicode escape", `"\u12"`},
		{"unterminated", `{"a":`},
		{"NaN", `NaN`},
		{"too deep", strings.Repeat("[", 600) + strings.Repeat("]", 600)},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := canon.JSONBytes([]byte(tc.in))
			require.Error(t, err)
		})
	}
	_, err := canon.JSON(func() {})
	require.Error(t, err)
}

func BenchmarkJSONBytes(b *testing.B) {
	raw := []byte(`{"listing":{"price":"0.25","cap":"cap.text.summarize","peer":"12D3KooW","expires":1767225600,"tags":["a","b","c"]},"sig":"` + strings.Repeat("ab", 64) + `"}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := canon.JSONBytes(raw); err != nil {
			b.Fatal(err)
		}
	}
}
