package verify_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

func TestListCoversEveryFamily(t *testing.T) {
	want := []string{
		"audio.transcribe.{lang}.text", "audio.generate-speech.{voice}.mp3", "audio.translate.{src}.{tgt}",
		"text.translate.{src}.{tgt}.{level}", "text.expand.{factor}", "code.generate.{language}.script",
		"code.generate.{language}.function", "code.review.{language}", "code.test.{language}",
		"code.translate.{src}.{tgt}", "data.lookup.weather.{format}", "compute.statistics.{op}",
		"embed.text.{model}", "embed.image.{model}", "classify.image.{taxonomy}", "classify.text.{taxonomy}",
		"image.generate.photorealistic.png", "code.execute.sandboxed", "research.linkedin.profile.enrich",
		"custom.{provider}.{capability}",
	}
	var got []string
	for _, c := range verify.List() {
		got = append(got, c.ID)
		require.NotEmpty(t, c.Checks, c.ID)
		require.NotEmpty(t, c.Description, c.ID)
		for _, ch := range c.Checks {
			require.NotEmpty(t, verify.DescribeCheck(ch), "check %s of %s has no description", ch, c.ID)
		}
		if c.Custom {
			continue
		}
		in, err := verify.InputSchema(c.ID)
		require.NoError(t, err, c.ID)
		require.True(t, json.Valid(in))
		out, err := verify.OutputSchema(c.ID)
		require.NoError(t, err, c.ID)
		require.True(t, json.Valid(out))
	}
	require.Subset(t, got, want)
}

func TestParse(t *testing.T) {
	testCases := []struct {
		id       string
		template string
		params   map[string]string
		custom   bool
	}{
		{"text.translate.en.it.fluent", "text.translate.{src}.{tgt}.{level}", map[string]string{"src": "en", "tgt": "it", "level": "fluent"}, false},
		{"audio.transcribe.ja.text", "audio.transcribe.{lang}.text", map[string]string{"lang": "ja"}, false},
		{"audio.transcribe.json-with-timestamps", "audio.transcribe.json-with-timestamps", nil, false},
		{"classify.text.sentiment", "classify.text.sentiment", nil, false},
		{"classify.text.topics", "classify.text.{taxonomy}", map[string]string{"taxonomy": "topics"}, false},
		{"code.generate.csharp.function", "code.generate.{language}.function", map[string]string{"language": "csharp"}, false},
		{"data.scrape.example.com.json", "data.scrape.{url}.json", map[string]string{"url": "example.com"}, false},
		{"text.expand.3", "text.expand.{factor}", map[string]string{"factor": "3"}, false},
		{"compute.statistics.percentile-95", "compute.statistics.{op}", map[string]string{"op": "percentile-95"}, false},
		{"custom.acmecorp.handwriting-ocr", "custom.{provider}.{capability}", map[string]string{"provider": "acmecorp", "capability": "handwriting-ocr"}, true},
	}
	for _, tc := range testCases {
		t.Run(tc.id, func(t *testing.T) {
			c, err := verify.Parse(tc.id)
			require.NoError(t, err)
			require.Equal(t, tc.id, c.ID)
			require.Equal(t, tc.template, c.Template)
			if tc.params != nil {
				require.Equal(t, tc.params, c.Params)
			}
			require.Equal(t, tc.custom, c.Custom)
		})
	}
}

func TestParseRejects(t *testing.T) {
	testCases := []struct {
		id   string
		err  error
		says string
	}{
		{"text.translate.en.xx.fluent", verify.ErrUnknownCapability, `{tgt} = "xx"`},
		{"text.translate.en.en.fluent", verify.ErrUnknownCapability, "must differ"},
		{"text.translate.en.it.poetic", verify.ErrUnknownCapability, "{level}"},
		{"code.generate.cobol.script", verify.ErrUnknownCapability, "{language}"},
		{"compute.statistics.mode", verify.ErrUnknownCapability, "{op}"},
		{"text.expand.1", verify.ErrUnknownCapability, "{factor}"},
		{"embed.text.my-model", verify.ErrUnknownCapability, "{model}"},
		{"classify.image.birds", verify.ErrUnknownCapability, "{taxonomy}"},
		{"data.lookup.weather.xml", verify.ErrUnknownCapability, "{format}"},
		{"text.summarize.tiny", verify.ErrUnknownCapability, "not in the v0.1 taxonomy"},
		{"Text.summarize.short", verify.ErrInvalidID, "lowercase"},
		{"video.generate", verify.ErrInvalidID, "domain"},
	}
	for _, tc := range testCases {
		t.Run(tc.id, func(t *testing.T) {
			_, err := verify.Parse(tc.id)
			require.ErrorIs(t, err, tc.err)
			require.Contains(t, err.Error(), tc.says)
		})
	}
}

func TestSchemasAreStrictAboutTypes(t *testing.T) {
	id := "code.execute.sandboxed"
	good := `{"stdout":"hi\n","stderr":"","exit_code":0,"duration_ms":12,"truncated":false}`
	require.NoError(t, verify.ValidateOutput(id, []byte(good)))
	err := verify.ValidateOutput(id, []byte(strings.Replace(good, `"exit_code":0`, `"exit_code":"0"`, 1)))
	require.ErrorIs(t, err, verify.ErrSchema)
	var se *verify.SchemaError
	require.ErrorAs(t, err, &se)
	require.Equal(t, id, se.Capability)
	require.NotEmpty(t, se.Reasons)
	require.Contains(t, se.Reasons[0], "/exit_code")

	_, err = verify.InputSchema("custom.acme.ocr")
	require.ErrorIs(t, err, verify.ErrNoStandardSchema)
	require.ErrorIs(t, verify.ValidateInput(id, []byte(`{"code":`)), verify.ErrNotJSON)
}

func TestVerifyWithSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`)
	rep, err := verify.VerifyWithSchema(context.Background(), "custom.acme.ocr", schema, []byte(`{"text":"hello"}`))
	require.NoError(t, err)
	require.True(t, rep.Passed)
	rep, err = verify.VerifyWithSchema(context.Background(), "custom.acme.ocr", schema, []byte(`{"text":5}`))
	require.NoError(t, err)
	require.False(t, rep.Passed)
	require.Equal(t, "output_schema", rep.Checks[0].Name)
	require.Contains(t, rep.Checks[0].Detail, "/text")
	rep, err = verify.VerifyWithSchema(context.Background(), "custom.acme.ocr", json.RawMessage(`{"$ref":"https://evil.example/x.json"}`), []byte(`{}`))
	require.NoError(t, err)
	require.False(t, rep.Passed)
	require.Contains(t, rep.Checks[0].Detail, "external references are not allowed")
	_, err = verify.Verify(context.Background(), "custom.acme.ocr", []byte(`{}`), []byte(`{}`))
	require.ErrorIs(t, err, verify.ErrNoStandardSchema)
}

func TestValidateWithSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["page"],"properties":{"page":{"type":"integer"}}}`)
	require.NoError(t, verify.ValidateWithSchema("custom.acme.ocr", schema, []byte(`{"page":1}`)))
	err := verify.ValidateWithSchema("custom.acme.ocr", schema, []byte(`{"page":"1"}`))
	var se *verify.SchemaError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "input", se.Document)
	require.Contains(t, se.Reasons[0], "/page")
	require.ErrorIs(t, verify.ValidateWithSchema("custom.acme.ocr", schema, []byte(`{`)), verify.ErrNotJSON)
	require.ErrorContains(t, verify.ValidateWithSchema("custom.acme.ocr", nil, []byte(`{}`)), "no schema given")
	require.ErrorIs(t, verify.ValidateWithSchema("custom.ACME", schema, []byte(`{}`)), verify.ErrInvalidID)
}

// Verify, Parse and the lazily built registry are safe for concurrent use
// (run with -race).
func TestVerifyConcurrent(t *testing.T) {
	done := make(chan error, 8)
	for i := range 8 {
		go func() {
			id := []string{"compute.statistics.mean", "text.summarize.short", "code.generate.python.script", "classify.image.imagenet-1k"}[i%4]
			_, err := verify.Parse(id)
			if err == nil {
				_, err = verify.Verify(context.Background(), id, []byte(`{"data":[1],"text":"a b","task":"t","image_b64":"aGk="}`), []byte(`{"result":1,"summary":"a","code":"x = 1","labels":[{"label":"tench","confidence":1}]}`))
			}
			done <- err
		}()
	}
	for range 8 {
		require.NoError(t, <-done)
	}
}
