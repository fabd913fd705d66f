package failpoint_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/failpoint"
)

func TestParse(t *testing.T) {
	kill := func(n int) failpoint.Action { return failpoint.Action{Kind: failpoint.Kill, At: n} }
	sleep := func(ms int) failpoint.Action {
		return failpoint.Action{Kind: failpoint.Sleep, Sleep: time.Duration(ms) * time.Millisecond}
	}
	for _, tc := range []struct {
		name string
		spec string
		want map[string]failpoint.Action
		err  string
	}{
		{"empty", "", map[string]failpoint.Action{}, ""},
		{"blank", "  ", map[string]failpoint.Action{}, ""},
		{"one kill", "seller/after-deliver=kill", map[string]failpoint.Action{"seller/after-deliver": kill(1)}, ""},
		{"the doc's example", "seller/after-deliver=kill,buyer/after-lock=kill@3,x=sleep(200)",
			map[string]failpoint.Action{"seller/after-deliver": kill(1), "buyer/after-lock": kill(3), "x": sleep(200)}, ""},
		{"spaces", " a = kill , b=sleep(0) ", map[string]failpoint.Action{"a": kill(1), "b": sleep(0)}, ""},
		{"kill@1 is kill", "a=kill@1", map[string]failpoint.Action{"a": kill(1)}, ""},
		{"no action", "a", nil, "want name=action"},
		{"empty name", "=kill", nil, "empty name"},
		{"upper case name", "Buyer/x=kill", nil, "only a-z"},
		{"name with comma split", "a=kill,", nil, "want name=action"},
		{"unknown action", "a=panic", nil, "want kill, kill@N, sleep(MS) or set(N)"},
		{"set", "seller/quote-price=set(3000000)", map[string]failpoint.Action{"seller/quote-price": {Kind: failpoint.Set, Value: 3_000_000}}, ""},
		{"set not a number", "a=set(x)", nil, "set(N)"},
		{"kill@0", "a=kill@0", nil, "kill@N"},
		{"kill@-1", "a=kill@-1", nil, "kill@N"},
		{"kill@ huge", "a=kill@99999999999", nil, "kill@N"},
		{"kill@x", "a=kill@x", nil, "kill@N"},
		{"sleep negative", "a=sleep(-1)", nil, "sleep(MS)"},
		{"sleep too long", "a=sleep(3600001)", nil, "sleep(MS)"},
		{"sleep not a number", "a=sleep(1s)", nil, "sleep(MS)"},
		{"sleep unclosed", "a=sleep(10", nil, "want kill"},
		{"twice", "a=kill,a=sleep(1)", nil, "given twice"},
		{"too long", "a=" + strings.Repeat("x", 5000), nil, "longer than"},
		{"name too long", strings.Repeat("a", 129) + "=kill", nil, "name longer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := failpoint.Parse(tc.spec)
			if tc.err != "" {
				require.ErrorIs(t, err, failpoint.ErrSpec)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestActionString(t *testing.T) {
	for spec, want := range map[string]string{"kill": "kill", "kill@1": "kill", "kill@7": "kill@7", "sleep(250)": "sleep(250)", "set(-5)": "set(-5)"} {
		got, err := failpoint.Parse("p=" + spec)
		require.NoError(t, err)
		require.Equal(t, want, got["p"].String())
	}
}

// render writes actions back in the form Parse reads.
func render(actions map[string]failpoint.Action) string {
	var terms []string
	for _, name := range slices.Sorted(maps.Keys(actions)) {
		terms = append(terms, name+"="+actions[name].String())
	}
	return strings.Join(terms, ",")
}

// FuzzParse: any value either fails with ErrSpec or parses into actions
// that render and parse back to the same actions.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a=kill", "seller/after-deliver=kill,buyer/after-lock=kill@3,x=sleep(200)",
		"a=kill@", "a=sleep()", "=,=", "a=kill,,b=kill", "a=sleep(9223372036854775807)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		got, err := failpoint.Parse(spec)
		if err != nil {
			require.ErrorIs(t, err, failpoint.ErrSpec)
			return
		}
		for name, a := range got {
			require.NotEmpty(t, name)
			switch a.Kind {
			case failpoint.Kill:
				require.GreaterOrEqual(t, a.At, 1)
			case failpoint.Sleep:
				require.GreaterOrEqual(t, a.Sleep, time.Duration(0))
				require.LessOrEqual(t, a.Sleep, time.Hour)
			default:
				t.Fatalf("action of %q has no kind", name)
			}
		}
		again, err := failpoint.Parse(render(got))
		require.NoError(t, err)
		require.Equal(t, got, again)
	})
}
