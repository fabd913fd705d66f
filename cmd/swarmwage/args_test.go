package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalizeArgs(t *testing.T) {
	t.Parallel()
	app := newApp(io.Discard, io.Discard)
	completeTree(app.Commands)
	testCases := []struct {
		name    string
		in      []string
		want    []string
		wantErr string
	}{
		{"flags after the argument move in front", []string{"find", "CAP", "--limit", "3"}, []string{"find", "--limit", "3", "CAP"}, ""},
		{"--json before the command goes to the leaf", []string{"--json", "wallet", "balance"}, []string{"wallet", "balance", "--json"}, ""},
		{"--json between group and leaf", []string{"wallet", "--json", "balance"}, []string{"wallet", "balance", "--json"}, ""},
		{"--repo stays where it was given", []string{"--repo", "r", "sell", "list"}, []string{"sell", "list", "--repo", "r"}, ""},
		{"a negative number is an argument", []string{"wallet", "deposit", "-5"}, []string{"wallet", "deposit", "--", "-5"}, ""},
		{"a flag's value may start with -", []string{"sell", "add", "--price", "-1", "CAP"}, []string{"sell", "add", "--price", "-1", "CAP"}, ""},
		{"stdin is an argument", []string{"hire", "--input", "-", "CAP"}, []string{"hire", "--input", "-", "CAP"}, ""},
		{"--name=value", []string{"hire", "CAP", "--max-price=0.1"}, []string{"hire", "--max-price=0.1", "CAP"}, ""},
		{"after -- everything is positional", []string{"skillcard", "validate", "--", "-x.json"}, []string{"skillcard", "validate", "--", "-x.json"}, ""},
		{"help command passes through", []string{"help", "sell"}, []string{"help", "sell"}, ""},
		{"completion request passes through", []string{"sell", "ad", "--generate-bash-completion"}, []string{"sell", "ad", "--generate-bash-completion"}, ""},
		{"mistyped subcommand", []string{"sell", "ad", "--price", "1"}, nil, `unknown subcommand "ad" for sell; did you mean 'add'?`},
		{"mistyped command", []string{"hier", "CAP"}, nil, `unknown command "hier"; did you mean 'hire'?`},
		{"nothing close", []string{"xyzzy"}, nil, `unknown command "xyzzy"; run`},
		{"mistyped flag", []string{"hire", "--max-prise", "1", "CAP"}, nil, "unknown flag --max-prise for hire; did you mean --max-price?"},
		{"mistyped flag after the argument", []string{"find", "CAP", "--limt", "3"}, nil, "did you mean --limit?"},
		{"a flag no command takes", []string{"--bogus", "wallet", "balance"}, nil, "unknown flag --bogus for balance"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := normalizeArgs(app, append([]string{"swarmwage"}, tc.in...))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, append([]string{"swarmwage"}, tc.want...), got)
		})
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"add", "apply", "list", "remove", "max-price", "limit"}
	for in, want := range map[string]string{"ad": "add", "aply": "apply", "max-prise": "max-price", "lst": "list", "zzz": "", "rem": "remove"} {
		require.Equal(t, want, nearest(in, names), in)
	}
}
