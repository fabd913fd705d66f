package verify_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// FamilySchemas gives the schemas the node validates with: the same input
// and output schema as InputSchema and OutputSchema, and for a family
// whose output has variants, the one a concrete ID's output is checked
// against.
func TestFamilySchemasAreTheValidatingOnes(t *testing.T) {
	n := 0
	for _, c := range verify.List() {
		if c.Custom {
			_, err := verify.FamilySchemas(c.Template)
			require.ErrorIs(t, err, verify.ErrNoStandardSchema)
			continue
		}
		n++
		s, err := verify.FamilySchemas(c.Template)
		require.NoError(t, err, c.Template)
		in, err := verify.InputSchema(c.Template)
		require.NoError(t, err)
		require.Equal(t, string(in), string(s.Input), c.Template)
		out, err := verify.OutputSchema(c.Template)
		require.NoError(t, err)
		require.Equal(t, string(out), string(s.Output), c.Template)
		require.Equal(t, s.Variant == "", s.OutputBy == nil, c.Template)
	}
	require.Greater(t, n, 30)

	s, err := verify.FamilySchemas("data.lookup.weather.{format}")
	require.NoError(t, err)
	require.Equal(t, "format", s.Variant)
	require.Len(t, s.OutputBy, 3)
	for format, schema := range s.OutputBy {
		out, err := verify.OutputSchema("data.lookup.weather." + format)
		require.NoError(t, err)
		require.Equal(t, string(out), string(schema), format)
	}
	_, err = verify.FamilySchemas("nosuch.family")
	require.Error(t, err)
}
