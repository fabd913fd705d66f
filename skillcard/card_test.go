package skillcard_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/skillcard"
)

const exampleCard = "testdata/apeclaw-nft-autobuy.v1.0.0.json"

func loadExample(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(exampleCard)
	require.NoError(t, err)
	return data
}

// TestExampleCardGoldenHashes pins the hashes of the spec's example card.
// Changing these vectors is a breaking change: every published contentHash
// and versionHash (and every signature over stable JSON) would change.
func TestExampleCardGoldenHashes(t *testing.T) {
	c, err := skillcard.Parse(loadExample(t))
	require.NoError(t, err)
	require.Empty(t, c.Validate())
	require.NoError(t, c.Err())
	require.Equal(t, "0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa", c.ContentHash())
	require.Equal(t, "0x06c015bd22b4c69690933c1058878ebdfef31f9aaae40bbe86d8a09fe1b2972c", c.VersionHash())
	require.Equal(t, "0x06c015bd22b4c69690933c1058878ebdfef31f9aaae40bbe86d8a09fe1b2972c", skillcard.VersionHash(" 1.0.0\n"))
}

func TestVersionHashOfEmptyVersionIsZeroVersion(t *testing.T) {
	require.Equal(t, skillcard.VersionHash("0.0.0"), skillcard.VersionHash(""))
	require.Equal(t, skillcard.VersionHash("0.0.0"), skillcard.VersionHash(" \t"))
	require.NotEqual(t, skillcard.VersionHash("1.0.0"), skillcard.VersionHash("1.0.1"))
}

func TestContentHashIgnoresFormattingButNotContent(t *testing.T) {
	orig, err := skillcard.Parse(loadExample(t))
	require.NoError(t, err)

	var doc map[string]any
	require.NoError(t, json.Unmarshal(loadExample(t), &doc))
	compact, err := json.Marshal(doc) // keys reordered, whitespace gone
	require.NoError(t, err)
	c, err := skillcard.Parse(compact)
	require.NoError(t, err)
	require.Equal(t, orig.ContentHash(), c.ContentHash())

	doc["x-extra"] = "unknown fields are hashed too"
	changed, err := json.Marshal(doc)
	require.NoError(t, err)
	c, err = skillcard.Parse(changed)
	require.NoError(t, err)
	require.Empty(t, c.Validate())
	require.NotEqual(t, orig.ContentHash(), c.ContentHash())
}

func TestExampleCardFields(t *testing.T) {
	c, err := skillcard.Parse(loadExample(t))
	require.NoError(t, err)
	require.Equal(t, "ApeClaw NFT Autobuy", c.Name)
	require.Equal(t, "apeclaw-nft-autobuy", c.Slug)
	require.False(t, c.SlugGenerated)
	require.Equal(t, "1.0.0", c.Version)
	require.Equal(t, "apeclaw", c.Publisher())
	require.Equal(t, 2, c.RiskTier())
	require.Equal(t, []string{"onchain_execute", "market_data"}, c.RequiredPermissions)
	require.Len(t, c.Bindings, 1)
	require.Equal(t, skillcard.BindingCLI, c.Bindings[0].Type)
	require.True(t, json.Valid(c.InputsSchema))
	require.Contains(t, string(c.InputsSchema), `"minPrice"`)
	require.Contains(t, string(c.OutputsSchema), `"selectedCount"`)
	require.Equal(t, "apeclaw-nft-autobuy.v1.0.0.json", c.FileName())
	require.NoError(t, c.CheckFileName("/some/dir/apeclaw-nft-autobuy.v1.0.0.json"))
	err = c.CheckFileName("dir/autobuy.json")
	require.ErrorIs(t, err, skillcard.ErrFileName)
	require.ErrorIs(t, err, skillcard.ErrInvalidSkillCard)
	require.Contains(t, err.Error(), `"apeclaw-nft-autobuy.v1.0.0.json"`)
}

func TestDefaultsWithoutConstraintsAndProvenance(t *testing.T) {
	c := mustParse(t, mutate(t, func(d map[string]any) {
		delete(d, "constraints")
		delete(d, "provenance")
	}))
	require.Empty(t, c.Validate())
	require.Equal(t, skillcard.DefaultPublisher, c.Publisher())
	require.Equal(t, "user", c.Publisher())
	require.Equal(t, 2, c.RiskTier())

	c = mustParse(t, mutate(t, func(d map[string]any) { d["constraints"] = map[string]any{"riskTier": 3} }))
	require.Equal(t, 3, c.RiskTier())
}

func TestSlugGeneratedFromNameWhenAbsent(t *testing.T) {
	c := mustParse(t, mutate(t, func(d map[string]any) {
		delete(d, "slug")
		d["name"] = "  My Great Skill! "
	}))
	require.Empty(t, c.Validate())
	require.True(t, c.SlugGenerated)
	require.Equal(t, "my-great-skill-", c.Slug)
	require.Equal(t, "my-great-skill-.v1.0.0.json", c.FileName())
}

// Expected slugs come from JavaScript:
// s.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-").
func TestSlugifyMatchesJavaScript(t *testing.T) {
	testCases := []struct{ name, want string }{
		{"ApeClaw NFT Autobuy", "apeclaw-nft-autobuy"},
		{"  My Skill  ", "my-skill"},
		{"Hello, World!", "hello-world-"},
		{"Caf\u00e9 Cr\u00e8me", "caf-cr-me"},
		{"\u0130stanbul", "i-stanbul"},
		{"\u0085x", "-x"},
		{"\ufeffTab\tName\u00a0", "tab-name"},
		{"A--B__c", "a-b-c"},
		{"123 Go", "123-go"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, skillcard.Slugify(tc.name))
		})
	}
}

// mutate returns the example card after f changed its generic form.
func mutate(t *testing.T, f func(map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(loadExample(t), &doc))
	f(doc)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

func mustParse(t *testing.T, data []byte) *skillcard.Card {
	t.Helper()
	c, err := skillcard.Parse(data)
	require.NoError(t, err)
	return c
}

func binding(d map[string]any) map[string]any {
	return d["bindings"].([]any)[0].(map[string]any)
}

func TestValidateEveryRuleHasAFailingCase(t *testing.T) {
	testCases := []struct {
		name    string
		mutate  func(map[string]any)
		path    string
		message string
	}{
		{"name missing", func(d map[string]any) { delete(d, "name") }, "/name", "is required"},
		{"name not a string", func(d map[string]any) { d["name"] = 7 }, "/name", "must be a string, not a number"},
		{"name blank", func(d map[string]any) { d["name"] = "  " }, "/name", "must not be empty"},
		{"description missing", func(d map[string]any) { delete(d, "description") }, "/description", "is required"},
		{"description empty", func(d map[string]any) { d["description"] = "" }, "/description", "must not be empty"},
		{"slug uppercase", func(d map[string]any) { d["slug"] = "Ape-Claw" }, "/slug", `"Ape-Claw" must be lowercase letters, digits and hyphens (for example "ape-claw")`},
		{"slug with space", func(d map[string]any) { d["slug"] = "ape claw" }, "/slug", "must be lowercase letters, digits and hyphens"},
		{"slug empty", func(d map[string]any) { d["slug"] = "" }, "/slug", "must not be empty"},
		{"slug not a string", func(d map[string]any) { d["slug"] = true }, "/slug", "must be a string, not a boolean"},
		{"slug absent and name has no alphanumerics", func(d map[string]any) { delete(d, "slug"); d["name"] = "!!!" }, "/slug", "cannot be generated from name"},
		{"version missing", func(d map[string]any) { delete(d, "version") }, "/version", "is required"},
		{"version pattern", func(d map[string]any) { d["version"] = "v1.0" }, "/version", `"v1.0" does not match the version pattern`},
		{"version too many parts", func(d map[string]any) { d["version"] = "1.2.3.4.5" }, "/version", "does not match the version pattern"},
		{"version not a string", func(d map[string]any) { d["version"] = 1 }, "/version", "must be a string, not a number"},
		{"inputs_schema missing", func(d map[string]any) { delete(d, "inputs_schema") }, "/inputs_schema", "is required"},
		{"inputs_schema not an object", func(d map[string]any) { d["inputs_schema"] = "object" }, "/inputs_schema", "must be a JSON Schema object, not a string"},
		{"inputs_schema bad type keyword", func(d map[string]any) { d["inputs_schema"] = map[string]any{"type": "integerish"} }, "/inputs_schema/type", "is not a valid JSON Schema"},
		{"inputs_schema external ref", func(d map[string]any) { d["inputs_schema"] = map[string]any{"$ref": "file:///etc/passwd"} }, "/inputs_schema", "must be self-contained"},
		{"outputs_schema missing", func(d map[string]any) { delete(d, "outputs_schema") }, "/outputs_schema", "is required"},
		{"outputs_schema bad nested keyword", func(d map[string]any) {
			d["outputs_schema"] = map[string]any{"properties": map[string]any{"ok": map[string]any{"minimum": "zero"}}}
		}, "/outputs_schema/properties/ok/minimum", "is not a valid JSON Schema"},
		{"riskTier too high", func(d map[string]any) { d["constraints"] = map[string]any{"riskTier": 4} }, "/constraints/riskTier", "must be 1, 2 or 3, not 4"},
		{"riskTier zero", func(d map[string]any) { d["constraints"] = map[string]any{"riskTier": 0} }, "/constraints/riskTier", "must be 1, 2 or 3"},
		{"riskTier fractional", func(d map[string]any) { d["constraints"] = map[string]any{"riskTier": 1.5} }, "/constraints/riskTier", "must be 1, 2 or 3, not 1.5"},
		{"riskTier string", func(d map[string]any) { d["constraints"] = map[string]any{"riskTier": "2"} }, "/constraints/riskTier", `must be 1, 2 or 3, not "2"`},
		{"constraints not an object", func(d map[string]any) { d["constraints"] = []any{} }, "/constraints", "must be an object, not an array"},
		{"notes not strings", func(d map[string]any) { d["constraints"] = map[string]any{"notes": []any{"ok", 3}} }, "/constraints/notes/1", "must be a string, not a number"},
		{"bindings missing", func(d map[string]any) { delete(d, "bindings") }, "/bindings", "is required"},
		{"bindings empty", func(d map[string]any) { d["bindings"] = []any{} }, "/bindings", "must not be empty"},
		{"bindings not an array", func(d map[string]any) { d["bindings"] = map[string]any{} }, "/bindings", "must be an array, not an object"},
		{"binding not an object", func(d map[string]any) { d["bindings"] = []any{"cli"} }, "/bindings/0", "must be an object, not a string"},
		{"binding type missing", func(d map[string]any) { delete(binding(d), "type") }, "/bindings/0/type", "is required"},
		{"binding type unknown", func(d map[string]any) { binding(d)["type"] = "grpc" }, "/bindings/0/type", `unknown binding type "grpc" (known: cli, http)`},
		{"binding type not a string", func(d map[string]any) { binding(d)["type"] = 1 }, "/bindings/0/type", "must be a string, not a number"},
		{"cli without command", func(d map[string]any) { delete(binding(d), "command") }, "/bindings/0/command", "is required for a cli binding"},
		{"cli empty command", func(d map[string]any) { binding(d)["command"] = " " }, "/bindings/0/command", "must not be empty"},
		{"cli unclosed segment", func(d map[string]any) { binding(d)["command"] = "tool [--scan <scan>" }, "/bindings/0/command", "'[' at offset 5 is never closed"},
		{"cli nested segment", func(d map[string]any) { binding(d)["command"] = "tool [a [b]]" }, "/bindings/0/command", "nested '['"},
		{"cli stray bracket", func(d map[string]any) { binding(d)["command"] = "tool a]" }, "/bindings/0/command", "closes no '['"},
		{"cli unterminated quote", func(d map[string]any) { binding(d)["command"] = `tool "a` }, "/bindings/0/command", "unterminated \" quote"},
		{"cli program from input", func(d map[string]any) { binding(d)["command"] = "<prog> --x" }, "/bindings/0/command", "the first word must be the program"},
		{"http without url", func(d map[string]any) { d["bindings"] = []any{map[string]any{"type": "http"}} }, "/bindings/0/url", "is required for an http binding"},
		{"http url not http", func(d map[string]any) {
			d["bindings"] = []any{map[string]any{"type": "http", "url": "ftp://example.com/x"}}
		}, "/bindings/0/url", "must be an absolute http:// or https:// URL"},
		{"http bad method", func(d map[string]any) {
			d["bindings"] = []any{map[string]any{"type": "http", "url": "http://127.0.0.1/x", "method": "GET"}}
		}, "/bindings/0/method", `"GET" is not one of POST, PUT, PATCH`},
		{"second binding bad", func(d map[string]any) {
			d["bindings"] = append(d["bindings"].([]any), map[string]any{"type": "cli"})
		}, "/bindings/1/command", "is required for a cli binding"},
		{"required_permissions not an array", func(d map[string]any) { d["required_permissions"] = "network" }, "/required_permissions", "must be an array of strings"},
		{"required_permissions item", func(d map[string]any) { d["required_permissions"] = []any{"network", nil} }, "/required_permissions/1", "must be a string, not null"},
		{"examples not an array", func(d map[string]any) { d["examples"] = map[string]any{} }, "/examples", "must be an array, not an object"},
		{"example not an object", func(d map[string]any) { d["examples"] = []any{"x"} }, "/examples/0", "must be an object with title and value"},
		{"example without title", func(d map[string]any) { d["examples"] = []any{map[string]any{"value": map[string]any{}}} }, "/examples/0/title", "is required"},
		{"example without value", func(d map[string]any) { d["examples"] = []any{map[string]any{"title": "t"}} }, "/examples/0/value", "is required"},
		{"example value not an object", func(d map[string]any) { d["examples"] = []any{map[string]any{"title": "t", "value": 3}} }, "/examples/0/value", "must be an object of input values, not a number"},
		{"example value does not match inputs_schema", func(d map[string]any) {
			d["examples"] = []any{map[string]any{"title": "t", "value": map[string]any{
				"count": 100, "minPrice": 1, "maxPrice": 2, "currency": "APE", "execute": false, "autonomous": false,
			}}}
		}, "/examples/0/value/count", "does not match inputs_schema"},
		{"eval_packs not an array", func(d map[string]any) { d["eval_packs"] = map[string]any{} }, "/eval_packs", "must be an array, not an object"},
		{"provenance not an object", func(d map[string]any) { d["provenance"] = "apeclaw" }, "/provenance", "must be an object, not a string"},
		{"provenance signed not a boolean", func(d map[string]any) { d["provenance"] = map[string]any{"signed": "no"} }, "/provenance/signed", "must be a boolean, not a string"},
		{"provenance publisher not a string", func(d map[string]any) { d["provenance"] = map[string]any{"publisher": 1} }, "/provenance/publisher", "must be a string"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, mutate(t, tc.mutate))
			problems := c.Validate()
			require.NotEmpty(t, problems)
			require.True(t, hasProblem(problems, tc.path, tc.message), "want %s: %s\ngot %v", tc.path, tc.message, problems)
			err := c.Err()
			require.ErrorIs(t, err, skillcard.ErrInvalidSkillCard)
			var ve *skillcard.ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, problems, ve.Problems)
		})
	}
}

func hasProblem(ps []skillcard.Problem, path, message string) bool {
	for _, p := range ps {
		if p.Path == path && strings.Contains(p.Message, message) {
			return true
		}
	}
	return false
}

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	c := mustParse(t, mutate(t, func(d map[string]any) {
		delete(d, "name")
		d["version"] = "one"
		d["constraints"] = map[string]any{"riskTier": 9}
		binding(d)["type"] = "smoke-signal"
		d["inputs_schema"] = map[string]any{"type": 5}
	}))
	paths := []string{}
	for _, p := range c.Validate() {
		paths = append(paths, p.Path)
	}
	require.Equal(t, []string{"/name", "/version", "/inputs_schema/type", "/bindings/0/type", "/constraints/riskTier"}, paths)
	require.Contains(t, c.Err().Error(), "/constraints/riskTier: must be 1, 2 or 3, not 9")
}

func TestDocumentThatIsNotAnObject(t *testing.T) {
	for _, doc := range []string{`[]`, `"card"`, `null`, `3`} {
		c := mustParse(t, []byte(doc))
		require.Equal(t, []skillcard.Problem{{Path: "", Message: c.Validate()[0].Message}}, c.Validate(), doc)
		require.Contains(t, c.Validate()[0].Message, "must be a JSON object")
	}
}

func TestParseErrors(t *testing.T) {
	_, err := skillcard.Parse([]byte(`{"name": `))
	require.ErrorIs(t, err, skillcard.ErrNotJSON)
	require.ErrorIs(t, err, skillcard.ErrInvalidSkillCard)

	_, err = skillcard.Parse([]byte(""))
	require.ErrorIs(t, err, skillcard.ErrNotJSON)

	big := `{"name":"` + strings.Repeat("a", skillcard.MaxCardSize) + `"}`
	_, err = skillcard.Parse([]byte(big))
	require.ErrorIs(t, err, skillcard.ErrTooLarge)

	// A byte order mark (common from Windows editors) is not an error and
	// does not change the hash.
	withBOM := append([]byte("\xef\xbb\xbf"), loadExample(t)...)
	c := mustParse(t, withBOM)
	require.Equal(t, "0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa", c.ContentHash())
}

func TestParseFile(t *testing.T) {
	c, err := skillcard.ParseFile(exampleCard)
	require.NoError(t, err)
	require.NoError(t, c.CheckFileName(exampleCard))

	_, err = skillcard.ParseFile(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestValidateInputAndOutput(t *testing.T) {
	c := mustParse(t, loadExample(t))
	require.NoError(t, c.ValidateInput(json.RawMessage(`{"count":2,"minPrice":0,"maxPrice":5,"currency":"APE","execute":false,"autonomous":true}`)))
	err := c.ValidateInput(json.RawMessage(`{"count":0,"minPrice":0,"maxPrice":5,"currency":"ETH","execute":false,"autonomous":true}`))
	require.ErrorIs(t, err, skillcard.ErrSchemaMismatch)
	require.Contains(t, err.Error(), "/count")
	require.Contains(t, err.Error(), "/currency")

	require.NoError(t, c.ValidateOutput(json.RawMessage(`{"ok":true,"planned":[],"selectedCount":0}`)))
	require.ErrorIs(t, c.ValidateOutput(json.RawMessage(`{"ok":"yes"}`)), skillcard.ErrSchemaMismatch)
	require.ErrorIs(t, c.ValidateOutput(json.RawMessage(`not json`)), skillcard.ErrSchemaMismatch)
}

func BenchmarkParseExampleCard(b *testing.B) {
	data := loadExample(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := skillcard.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestStarterCardIsValid(t *testing.T) {
	for _, name := range []string{"", "Weather Now", "  Résumé Writer 2 "} {
		data, err := skillcard.Starter(name)
		require.NoError(t, err)
		c := mustParse(t, data)
		require.Empty(t, c.Validate(), name)
		require.Equal(t, skillcard.StarterVersion, c.Version)
		require.Equal(t, 1, c.RiskTier())
		require.Equal(t, "user", c.Publisher())
	}
	c := mustParse(t, must(skillcard.Starter("Weather Now")))
	require.Equal(t, "weather-now", c.Slug)
	require.Equal(t, "weather-now --text=<text> [--lang=<lang>] --json", c.Bindings[0].Command)

	_, err := skillcard.Starter("???")
	require.ErrorIs(t, err, skillcard.ErrInvalidSkillCard)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestClaimsCardFileName(t *testing.T) {
	require.True(t, skillcard.ClaimsCardFileName("dir/apeclaw-nft-autobuy.v1.0.0.json"))
	require.True(t, skillcard.ClaimsCardFileName("x.v2.json"))
	require.False(t, skillcard.ClaimsCardFileName("dir.v1.0/card.json"))
	require.False(t, skillcard.ClaimsCardFileName("card.json"))
	require.False(t, skillcard.ClaimsCardFileName("card.vx.json"))
}
