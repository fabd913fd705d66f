package sellerfile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// exampleSellerFile is examples/seller.toml, relative to the repository
// root (the tests chdir there, as the file's relative paths expect).
const exampleSellerFile = "examples/seller.toml"

func TestExampleSellerFileLoads(t *testing.T) {
	t.Chdir("../..")
	sf, params, err := Load(exampleSellerFile)
	require.NoError(t, err)
	require.Equal(t, "local", sf.Network)
	byCap := make(map[string]market.ListingParams)
	for _, p := range params {
		byCap[p.Capability] = p
	}
	require.Equal(t, market.HandlerBuiltin, byCap["compute.statistics.mean"].Handler.Kind)
	require.Equal(t, market.HandlerBuiltin, byCap["text.summarize.short"].Handler.Kind, "handler defaults to builtin")
	rewrite := byCap["text.rewrite.casual"]
	require.Equal(t, market.HandlerExec, rewrite.Handler.Kind)
	python, err := exec.LookPath("python3")
	require.NoError(t, err)
	python, err = filepath.Abs(python)
	require.NoError(t, err)
	root, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, []string{python, "examples/workers/rewrite_casual.py"}, rewrite.Handler.Command, "the program found now, in PATH")
	require.Equal(t, root, rewrite.Handler.Dir, "it runs where 'sell apply' ran")
	card := byCap["custom.examples.word-stats"]
	require.Equal(t, market.HandlerSkillCard, card.Handler.Kind)
	require.Regexp(t, `^0x[0-9a-f]{64}$`, card.SkillCardHash)
	require.Equal(t, 1, card.RiskTier)
	require.JSONEq(t, `"object"`, string(mustField(t, card.InputSchema, "type")))
}

// TestExampleSellerSellsEveryListing runs the examples as a buyer would
// meet them: a seller set up from examples/seller.toml (on loopback, on a
// test network) and a buyer hiring the built-in, the Python exec worker and
// the SkillCard.
func TestExampleSellerSellsEveryListing(t *testing.T) {
	t.Chdir("../..")
	sf, params, err := Load(exampleSellerFile)
	require.NoError(t, err)
	ctx := t.Context()

	cfg := sf.Config
	cfg.Network, cfg.Listen, cfg.API = "examples-test", []string{"/ip4/127.0.0.1/tcp/0"}, "127.0.0.1:0"
	repo, err := node.Init(filepath.Join(t.TempDir(), "seller"), cfg)
	require.NoError(t, err)
	l, err := node.OpenLocal(repo)
	require.NoError(t, err)
	_, err = ApplyListings(ctx, l.Store, params)
	require.NoError(t, err)
	require.NoError(t, l.Close())
	seller := nodetest.Start(t, repo, node.Options{})

	buyer := nodetest.Start(t, nodetest.NewRepo(t, "examples-test"), node.Options{}, seller)
	require.NoError(t, buyer.Escrow.Deposit(ctx, nodetest.Amount(t, "1"), "test"))
	nodetest.WaitReady(t, seller, buyer)

	testCases := []struct {
		capID, input string
		check        func(t *testing.T, out json.RawMessage)
	}{
		{"compute.statistics.mean", `{"data":[1,2,3,4]}`, func(t *testing.T, out json.RawMessage) {
			require.JSONEq(t, `{"result":2.5}`, string(out))
		}},
		{"text.rewrite.casual", `{"text":"Greetings. I am sure it is fine; however, we cannot assist."}`, func(t *testing.T, out json.RawMessage) {
			require.JSONEq(t, `{"text":"Hey! I'm sure it's fine; but, we can't help."}`, string(out))
		}},
		{"custom.examples.word-stats", `{"text":"The cat sat. The cat ran. A dog sat.","top":2}`, func(t *testing.T, out json.RawMessage) {
			require.JSONEq(t, `{"words":9,"sentences":3,"top_words":[{"word":"the","count":2},{"word":"cat","count":2}]}`, string(out))
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.capID, func(t *testing.T) {
			info := buyer.Hire(ctx, market.HireRequest{Capability: tc.capID, Input: json.RawMessage(tc.input), Timeout: 30 * time.Second})
			require.Contains(t, []string{controlapi.OutcomeReleased, controlapi.OutcomeDelivered}, info.Outcome, info.Error)
			require.True(t, info.Verification.Passed, "%+v", info.Verification.Checks)
			require.Equal(t, seller.Repo.ID.String(), info.Seller)
			tc.check(t, info.Output)
		})
	}
}

func TestParseNamesTheProblem(t *testing.T) {
	t.Chdir("../..")
	testCases := []struct {
		name, file, want string
	}{
		{"no listing", `network = "local"`, "has no [[listing]]"},
		{"unknown key", "colour = \"red\"\n[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0.01\"", `unknown key "colour"`},
		{"bad price", "[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"free\"", `price "free"`},
		{"zero price", "[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0\"", `price "0"`},
		{"bad handler", "[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"1\"\nhandler = \"ftp:x\"", `unknown kind "ftp"`},
		{"handler and skillcard", "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nhandler = \"builtin\"\nskillcard = \"x.json\"", "not both"},
		{"missing skillcard", "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nskillcard = \"nope.json\"", "nope.json"},
		{"missing capability", "[[listing]]\nprice = \"1\"", "capability is missing"},
		{"bad network", "network = \"Local Net\"\n[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"1\"", "config network"},
		{"not toml", "[[listing]\n", "bad seller file"},
		{"bad env name", "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nhandler = \"exec:cat\"\nenv = [\"NO-DASH\"]", `"NO-DASH" is not a variable name`},
		{"env for a builtin", "[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"1\"\nenv = [\"HOME\"]", "builtin handlers run no program"},
		{"skillcard not a file", "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nskillcard = \"/dev/zero\"", "not a regular file"},
		{"openai without base_url", "[[listing]]\ncapability = \"text.summarize.short\"\nprice = \"1\"\nhandler = \"openai:llama3.2\"", "base URL"},
		{"base_url on exec", "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nhandler = \"exec:cat\"\nbase_url = \"http://localhost:11434/v1\"", "go with handler = \"openai:MODEL\""},
		{"openai for a capability without a prompt", "[[listing]]\ncapability = \"data.lookup.stock-price\"\nprice = \"1\"\nhandler = \"openai:m\"\nbase_url = \"http://localhost:11434/v1\"", "--prompt FILE"},
		{"too many retries", "[[listing]]\ncapability = \"text.summarize.short\"\nprice = \"1\"\nhandler = \"openai:m\"\nbase_url = \"http://localhost:11434/v1\"\nretries = 50", "retries 50"},
		{"mcp without tool", "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nhandler = \"mcp:cat\"", "needs tool"},
		{"tool on builtin", "[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"1\"\ntool = \"x\"", "tool goes with"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse("seller.toml", []byte(tc.file))
			require.ErrorIs(t, err, ErrBadFile)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestSellerFileOpenAIListing(t *testing.T) {
	dir := t.TempDir()
	prompt := filepath.Join(dir, "prompt.tmpl")
	require.NoError(t, os.WriteFile(prompt, []byte("Summarize: {{.Input.text}}"), 0o644))
	file := "[[listing]]\ncapability = \"text.summarize.short\"\nprice = \"0.01\"\nhandler = \"openai:llama3.2\"\n" +
		"base_url = \"http://localhost:11434/v1\"\napi_key_env = \"MY_KEY\"\nprompt = \"" + prompt + "\"\nretries = 1\n"
	_, params, err := Parse("seller.toml", []byte(file))
	require.NoError(t, err)
	require.Len(t, params, 1)
	h := params[0].Handler
	require.Equal(t, market.HandlerOpenAI, h.Kind)
	require.Equal(t, "llama3.2", h.Model)
	require.Equal(t, "http://localhost:11434/v1", h.BaseURL)
	require.Equal(t, "MY_KEY", h.APIKeyEnv)
	require.Equal(t, "Summarize: {{.Input.text}}", h.Prompt)
	require.NotNil(t, h.Retries)
	require.Equal(t, 1, *h.Retries)
}

func TestSellerFileEnvReachesTheHandler(t *testing.T) {
	file := "[[listing]]\ncapability = \"custom.a.b\"\nprice = \"1\"\nhandler = \"exec:cat\"\nenv = [\"OPENAI_API_KEY\", \"HOME\"]\n"
	_, params, err := Parse("seller.toml", []byte(file))
	require.NoError(t, err)
	require.Len(t, params, 1)
	require.Equal(t, []string{"OPENAI_API_KEY", "HOME"}, params[0].Handler.Env)
}

func FuzzParseNoPanic(f *testing.F) {
	f.Add([]byte("[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0.01\"\n"))
	f.Add([]byte("network = \"local\"\n[market]\nconcurrency = 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _ = Parse("fuzz.toml", data)
	})
}

func mustField(t *testing.T, doc json.RawMessage, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc, &m))
	return m[key]
}
