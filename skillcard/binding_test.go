package skillcard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/skillcard"
)

// helperEnv makes the test binary act as a cli binding's program: it prints
// its arguments and its stdin as JSON.
const helperEnv = "SKILLCARD_TEST_HELPER=argv"

func TestMain(m *testing.M) {
	if os.Getenv("SKILLCARD_TEST_HELPER") == "argv" {
		stdin, _ := io.ReadAll(os.Stdin)
		out, _ := json.Marshal(map[string]any{"args": os.Args[1:], "stdin": string(stdin)})
		fmt.Println(string(out))
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func helperBinding(t *testing.T, args string) skillcard.Binding {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	require.NotContains(t, exe, "'")
	return skillcard.Binding{Type: skillcard.BindingCLI, Command: "'" + exe + "' " + args}
}

type helperOutput struct {
	Args  []string `json:"args"`
	Stdin string   `json:"stdin"`
}

func runHelper(t *testing.T, b skillcard.Binding, input string, dir string) helperOutput {
	t.Helper()
	out, err := b.Run(t.Context(), json.RawMessage(input), skillcard.Limits{Env: []string{helperEnv}, Dir: dir})
	require.NoError(t, err)
	var got helperOutput
	require.NoError(t, json.Unmarshal(out, &got))
	return got
}

// A job input is attacker-controlled: shell metacharacters in a value must
// reach the program as one literal argument, never be interpreted.
func TestCLIBindingPassesMaliciousValuesAsOneLiteralArgument(t *testing.T) {
	dir := t.TempDir()
	b := helperBinding(t, "--q <q> [--s <s>] <n> --obj=<o> [--flag] --tick <tick>")
	input := `{"q":"; rm -rf /","s":"$(touch pwned)","n":42,"o":{"b":1,"a":[true]},"flag":true,"tick":"` + "`touch pwned2` && echo hi | cat\\n> out" + `"}`
	got := runHelper(t, b, input, dir)
	require.Equal(t, []string{
		"--q", "; rm -rf /",
		"--s", "$(touch pwned)",
		"42",
		`--obj={"a":[true],"b":1}`,
		"--flag",
		"--tick", "`touch pwned2` && echo hi | cat\n> out",
	}, got.Args)
	require.JSONEq(t, input, got.Stdin, "the program also gets the input JSON on stdin")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "no command in a value ran")
}

func TestCLIBindingOptionalSegments(t *testing.T) {
	b := helperBinding(t, "--count <count> [--scan <scan>] [--budget <budget>] [--execute] [--autonomous] --json")
	testCases := []struct {
		name  string
		input string
		want  []string
	}{
		{"all absent", `{"count":3}`, []string{"--count", "3", "--json"}},
		{"null is absent", `{"count":3,"budget":null,"execute":false}`, []string{"--count", "3", "--json"}},
		{"present", `{"count":3,"scan":50,"budget":1.5,"execute":true,"autonomous":true}`,
			[]string{"--count", "3", "--scan", "50", "--budget", "1.5", "--execute", "--autonomous", "--json"}},
		{"flag needs true, not truthy", `{"count":3,"execute":"yes","autonomous":1}`, []string{"--count", "3", "--json"}},
		{"false value kept in a placeholder", `{"count":false}`, []string{"--count", "false", "--json"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, runHelper(t, b, tc.input, "").Args)
		})
	}
}

func TestCLIBindingInputErrors(t *testing.T) {
	b := helperBinding(t, "--count <count> <name>")
	testCases := []struct {
		name  string
		input string
		msg   string
	}{
		{"missing placeholder", `{"count":1}`, "the input has no value for <name>"},
		{"null placeholder", `{"count":1,"name":null}`, "the input has no value for <name>"},
		{"option injection", `{"count":1,"name":"--output=/etc/passwd"}`, "the value of <name> starts with '-' and would be read as an option"},
		{"negative number as a whole word", `{"count":-5,"name":"x"}`, "the value of <count> starts with '-' and would be read as an option"},
		{"not an object", `[1,2]`, "the input must be a JSON object, not an array"},
		{"not JSON", `{count`, "the input is not JSON"},
		{"NUL byte", `{"count":1,"name":"a\u0000b"}`, "NUL byte"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.Run(t.Context(), json.RawMessage(tc.input), skillcard.Limits{Env: []string{helperEnv}})
			require.ErrorIs(t, err, skillcard.ErrBindingFailed)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
	// A card takes a negative number as an option's value.
	got := runHelper(t, helperBinding(t, "--count=<count> <name>"), `{"count":-5,"name":"x"}`, "")
	require.Equal(t, []string{"--count=-5", "x"}, got.Args)
}

// A value that would start an argument with '-' fails the run before the
// program starts: a real program that would leave a file behind never runs.
func TestCLIBindingRefusesOptionValuesWithoutRunning(t *testing.T) {
	testCases := []struct {
		name, command, input, placeholder string
	}{
		{"suffix", `/bin/sh -c 'touch ran' sh <a>.txt`, `{"a":"--output=/tmp/x"}`, "a"},
		{"two placeholders in one word", `/bin/sh -c 'touch ran' sh <a><b>`, `{"a":"-","b":"-exec=/bin/sh"}`, "a"},
		{"negative number", `/bin/sh -c 'touch ran' sh <n>`, `{"n":-1}`, "n"},
		{"empty value before a dash", `/bin/sh -c 'touch ran' sh <a>-x`, `{"a":""}`, "a"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			b := skillcard.Binding{Type: skillcard.BindingCLI, Command: tc.command}
			_, err := b.Run(t.Context(), json.RawMessage(tc.input), skillcard.Limits{Dir: dir})
			require.ErrorIs(t, err, skillcard.ErrOptionInjection)
			var ie *skillcard.InputError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, tc.placeholder, ie.Placeholder)
			require.NotContains(t, err.Error(), "/bin/sh", "the error names the input, not the command")
			require.NoFileExists(t, filepath.Join(dir, "ran"))

			// The same command with a harmless value runs (the test can fail).
			_, err = b.Run(t.Context(), json.RawMessage(`{"a":"x","b":"y","n":1}`), skillcard.Limits{Dir: dir})
			require.ErrorIs(t, err, skillcard.ErrBindingNotJSON, "sh prints nothing")
			require.FileExists(t, filepath.Join(dir, "ran"))
		})
	}
}

func TestCLIBindingScripts(t *testing.T) {
	dir, err := filepath.Abs("testdata/bin")
	require.NoError(t, err)
	lim := skillcard.Limits{Dir: dir, Timeout: 10 * time.Second}
	run := func(command, input string, lim skillcard.Limits) (json.RawMessage, error) {
		return skillcard.Binding{Type: "cli", Command: command}.Run(t.Context(), json.RawMessage(input), lim)
	}

	out, err := run("./ok.sh <a> [<b>] c", `{"a":"x y"}`, lim)
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true,"argc":2}`, string(out))

	out, err = run("./stdin.sh", `{ "z": 1, "a": [1, 2] }`, lim)
	require.NoError(t, err)
	require.Equal(t, `{"z":1,"a":[1,2]}`, string(out), "output is compacted")

	_, err = run("./notjson.sh", `{}`, lim)
	require.ErrorIs(t, err, skillcard.ErrBindingNotJSON)
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.Contains(t, err.Error(), `"hello, world`)

	_, err = run("./fail.sh", `{}`, lim)
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.Contains(t, err.Error(), "exited with status 3: boom: count out of range")

	_, err = run("./no-such-script.sh", `{}`, lim)
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.Contains(t, err.Error(), "no-such-script.sh")

	_, err = run("swarmwage-no-such-program-anywhere", `{}`, lim)
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)

	short := lim
	short.Timeout = 300 * time.Millisecond
	_, err = run("./sleep.sh", `{}`, short)
	require.ErrorIs(t, err, skillcard.ErrBindingTimeout)
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)

	small := lim
	small.MaxOutput = 1000
	_, err = run("./flood.sh", `{}`, small)
	require.ErrorIs(t, err, skillcard.ErrBindingOutputTooLarge)
	require.Contains(t, err.Error(), "more than 1000 bytes")
}

func TestCLIBindingCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir, err := filepath.Abs("testdata/bin")
	require.NoError(t, err)
	_, err = skillcard.Binding{Type: "cli", Command: "./ok.sh"}.Run(ctx, json.RawMessage(`{}`), skillcard.Limits{Dir: dir})
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
}

func TestUnknownBindingType(t *testing.T) {
	_, err := skillcard.Binding{Type: "grpc"}.Run(t.Context(), nil, skillcard.Limits{})
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.Contains(t, err.Error(), `unknown binding type "grpc"`)
}

func TestHTTPBinding(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"method":%q,"contentType":%q,"got":%s}`, r.Method, r.Header.Get("Content-Type"), body)
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream exploded", http.StatusInternalServerError)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>hi</html>") })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"pad":%q}`, strings.Repeat("a", 5000))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })

	run := func(path, method string, lim skillcard.Limits) (json.RawMessage, error) {
		b := skillcard.Binding{Type: skillcard.BindingHTTP, URL: srv.URL + path, Method: method}
		return b.Run(t.Context(), json.RawMessage(`{"q":"; rm -rf /"}`), lim)
	}

	out, err := run("/echo", "", skillcard.Limits{})
	require.NoError(t, err)
	require.JSONEq(t, `{"method":"POST","contentType":"application/json","got":{"q":"; rm -rf /"}}`, string(out))

	out, err = run("/echo", "PUT", skillcard.Limits{})
	require.NoError(t, err)
	require.Contains(t, string(out), `"method":"PUT"`)

	_, err = run("/fail", "", skillcard.Limits{})
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.Contains(t, err.Error(), "HTTP 500")
	require.Contains(t, err.Error(), "upstream exploded")

	_, err = run("/text", "", skillcard.Limits{})
	require.ErrorIs(t, err, skillcard.ErrBindingNotJSON)

	_, err = run("/big", "", skillcard.Limits{MaxOutput: 1000})
	require.ErrorIs(t, err, skillcard.ErrBindingOutputTooLarge)

	_, err = run("/slow", "", skillcard.Limits{Timeout: 200 * time.Millisecond})
	require.ErrorIs(t, err, skillcard.ErrBindingTimeout)

	_, err = run("/redirect", "", skillcard.Limits{})
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.Contains(t, err.Error(), "HTTP 302", "redirects are not followed")

	_, err = skillcard.Binding{Type: "http", URL: "ftp://x"}.Run(t.Context(), nil, skillcard.Limits{})
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
}

// The spec's example card, run against a stand-in "ape-claw" program that
// the binding finds on PATH.
func TestExampleCardBindingRuns(t *testing.T) {
	c := mustParse(t, loadExample(t))
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	require.NoError(t, os.Symlink(exe, filepath.Join(dir, "ape-claw")))
	lim := skillcard.Limits{Env: []string{helperEnv, "PATH=" + dir}}
	out, err := c.Bindings[0].Run(t.Context(), json.RawMessage(`{"count":2,"minPrice":0,"maxPrice":5,"currency":"APE","execute":true,"autonomous":false,"budget":null,"scan":10}`), lim)
	require.NoError(t, err)
	var got helperOutput
	require.NoError(t, json.Unmarshal(out, &got))
	require.Equal(t, []string{"nft", "autobuy", "--count", "2", "--minPrice", "0", "--maxPrice", "5", "--scan", "10", "--execute", "--json"}, got.Args)
}

func TestCardRunChecksSchemasAroundTheBinding(t *testing.T) {
	dir, err := filepath.Abs("testdata/bin")
	require.NoError(t, err)
	card := func(command string) *skillcard.Card {
		return mustParse(t, mutate(t, func(d map[string]any) {
			d["bindings"] = []any{map[string]any{"type": "cli", "command": command}}
			d["outputs_schema"] = map[string]any{"type": "object", "required": []any{"count"}}
		}))
	}
	lim := skillcard.Limits{Dir: dir}
	good := `{"count":2,"minPrice":0,"maxPrice":5,"currency":"APE","execute":false,"autonomous":false}`

	out, err := card("./stdin.sh").Run(t.Context(), json.RawMessage(good), lim)
	require.NoError(t, err)
	require.JSONEq(t, good, string(out))

	_, err = card("./stdin.sh").Run(t.Context(), json.RawMessage(`{"count":99}`), lim)
	require.ErrorIs(t, err, skillcard.ErrSchemaMismatch)
	require.NotErrorIs(t, err, skillcard.ErrBindingFailed)

	_, err = card("./ok.sh").Run(t.Context(), json.RawMessage(good), lim)
	require.ErrorIs(t, err, skillcard.ErrBindingFailed)
	require.ErrorIs(t, err, skillcard.ErrSchemaMismatch)
	require.Contains(t, err.Error(), "count")

	invalid := mustParse(t, mutate(t, func(d map[string]any) { delete(d, "bindings") }))
	_, err = invalid.Run(t.Context(), json.RawMessage(good), lim)
	require.ErrorIs(t, err, skillcard.ErrInvalidSkillCard)
}
