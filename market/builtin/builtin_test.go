package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

func newTestRegistry(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	r, err := New(opts...)
	require.NoError(t, err)
	return r
}

// run calls capID's handler with v (marshalled unless it already is JSON).
func run(t testing.TB, r *Registry, capID string, v any) (json.RawMessage, error) {
	t.Helper()
	var in []byte
	switch x := v.(type) {
	case string:
		in = []byte(x)
	case []byte:
		in = x
	default:
		var err error
		in, err = json.Marshal(v)
		require.NoError(t, err)
	}
	h, ok := r.Lookup(capID)
	require.True(t, ok, "capability %s not registered", capID)
	return h.Handle(context.Background(), in)
}

func requireInputError(t testing.TB, err error) *InputError {
	t.Helper()
	var ie *InputError
	require.Error(t, err)
	require.True(t, errors.As(err, &ie), "want *InputError, got %T: %v", err, err)
	require.NotEmpty(t, ie.Reasons)
	require.Equal(t, 400, ie.HTTPStatus())
	return ie
}

func TestCapabilitiesSortedAndComplete(t *testing.T) {
	r := newTestRegistry(t)
	caps := r.Capabilities()
	require.IsIncreasing(t, caps)
	require.Equal(t, []string{
		CapChart, CapSentiment, CapMathNumeric, CapStatsMean, CapStatsMedian, CapStatsP95, CapStatsStddev,
		CapStatsVariance, CapExtractFromURL, CapUpscale2x, CapUpscale4x,
		CapSummarizeLong, CapSummarizeMedium, CapSummarizeShort,
	}, caps)
	_, ok := r.Lookup(CapCodeSandboxed)
	require.False(t, ok, "sandboxed execution needs WithSandbox")
	withSandbox := newTestRegistry(t, WithSandbox(&fakeRunner{}))
	require.Equal(t, AllCapabilities(), withSandbox.Capabilities())
	for _, id := range AllCapabilities() {
		_, err := verify.Parse(id)
		require.NoError(t, err, "%s must be a taxonomy capability", id)
	}
	_, err := r.Handle(context.Background(), "image.generate.photorealistic.png", []byte(`{}`))
	require.ErrorIs(t, err, ErrUnknownCapability)
}

func TestMalformedJSONIsInputErrorForEveryHandler(t *testing.T) {
	r := newTestRegistry(t)
	for _, capID := range r.Capabilities() {
		for _, in := range []string{``, `{`, `[]`, `"x"`, `{"data": "nope", "text": 5, "url": 3, "image_b64": 1, "expression": []}`} {
			_, err := run(t, r, capID, in)
			requireInputError(t, err)
		}
	}
}
