package openai

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"text/template"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/verify"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// families are the capability families with an embedded prompt: the
// prefix of the taxonomy template, and prompts/<prefix>.tmpl.
var families = []string{
	"text.summarize", "text.translate", "text.rewrite", "text.expand",
	"classify.text", "code.generate", "code.review", "code.test", "code.translate",
	"image.generate",
}

// promptFamily is the family of a taxonomy template, "" when none has a
// prompt.
func promptFamily(tmpl string) string {
	for _, f := range families {
		if strings.HasPrefix(tmpl, f+".") {
			return f
		}
	}
	return ""
}

// maxPrompt caps a listing's own prompt template.
const maxPrompt = 64 << 10

// parsePrompt parses a prompt template: a file that defines "user" (and
// optionally "system") templates, or one whose whole text is the user
// prompt.
func parsePrompt(name, text string) (*template.Template, error) {
	if len(text) > maxPrompt {
		return nil, fmt.Errorf("prompt %s is over %d bytes", name, maxPrompt)
	}
	t, err := template.New(name).Funcs(promptFuncs).Option("missingkey=zero").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %w", name, err)
	}
	if t.Lookup("user") == nil {
		if _, err := t.New("user").Parse(text); err != nil {
			return nil, fmt.Errorf("prompt %s: %w", name, err)
		}
	}
	return t, nil
}

// promptData is what a template sees.
type promptData struct {
	// Capability is the ID; Variant its last segment (short, formal,
	// sentiment, script); Params its placeholders ({src}, {tgt}, {level},
	// {language}, {factor}, {taxonomy}).
	Capability string
	Variant    string
	Params     map[string]string
	// Input is the decoded input; InputJSON the input as sent.
	Input     map[string]any
	InputJSON string
	// OutputSchema is the output's JSON Schema, which the answer must fit.
	OutputSchema string
}

var languageNames = map[string]string{
	"en": "English", "it": "Italian", "es": "Spanish", "de": "German", "fr": "French", "pt": "Portuguese",
	"ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ru": "Russian", "ar": "Arabic",
}

var promptFuncs = template.FuncMap{
	// words is the verifier's word count of a string.
	"words": func(v any) int { s, _ := v.(string); return verify.WordCount(s) },
	// length is the verifier's text length (display width) of a string.
	"length": func(v any) int { s, _ := v.(string); return verify.TextLength(s) },
	// atMost is floor(n*f), atLeast ceil(n*f), at least 1.
	"atMost":  func(n int, f float64) int { return max(1, int(math.Floor(float64(n)*f+1e-9))) },
	"atLeast": func(n int, f float64) int { return max(1, int(math.Ceil(float64(n)*f-1e-9))) },
	// language is the English name of an ISO 639-1 code.
	"language": func(code string) string {
		if n, ok := languageNames[code]; ok {
			return n
		}
		return code
	},
}

// templateFor is the listing's own template, else its family's.
func templateFor(a market.Attempt) (*template.Template, error) {
	if a.Handler.Prompt != "" {
		return parsePrompt("listing", a.Handler.Prompt)
	}
	c, err := verify.Parse(a.Capability)
	if err != nil {
		return nil, err
	}
	f := promptFamily(c.Template)
	if f == "" {
		return nil, fmt.Errorf("no prompt for %s", a.Capability)
	}
	data, err := promptFS.ReadFile("prompts/" + f + ".tmpl")
	if err != nil {
		return nil, fmt.Errorf("embedded prompt of %s: %w", f, err)
	}
	return parsePrompt(f, string(data))
}

func dataFor(a market.Attempt) (promptData, error) {
	d := promptData{Capability: a.Capability, InputJSON: string(a.Input), OutputSchema: string(a.OutputSchema)}
	d.Variant = a.Capability[strings.LastIndex(a.Capability, ".")+1:]
	if c, err := verify.Parse(a.Capability); err == nil {
		d.Params = c.Params
		if strings.HasPrefix(c.Template, "image.generate.") {
			d.Variant = strings.Split(a.Capability, ".")[2]
		}
		if strings.HasPrefix(c.Template, "code.generate.") {
			d.Variant = strings.Split(a.Capability, ".")[3]
		}
	}
	if err := json.Unmarshal(a.Input, &d.Input); err != nil {
		return d, fmt.Errorf("input: %w", err)
	}
	return d, nil
}

func render(t *template.Template, name string, d promptData) (string, error) {
	if t.Lookup(name) == nil {
		return "", nil
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("prompt: %w", err)
	}
	return strings.TrimSpace(b.String()), nil
}

// userPrompt is the rendered user prompt of an attempt (images take one
// prompt, no messages), with the failed checks of a retry appended.
func userPrompt(a market.Attempt) (string, error) {
	t, err := templateFor(a)
	if err != nil {
		return "", err
	}
	d, err := dataFor(a)
	if err != nil {
		return "", err
	}
	p, err := render(t, "user", d)
	if err != nil {
		return "", err
	}
	if len(a.Failed) > 0 {
		p += "\n\n" + feedback(a.Failed)
	}
	return p, nil
}

// messages are the chat messages of an attempt: system, user and, on a
// retry, the previous answer and what its checks said.
func messages(a market.Attempt) ([]chatMessage, error) {
	t, err := templateFor(a)
	if err != nil {
		return nil, err
	}
	d, err := dataFor(a)
	if err != nil {
		return nil, err
	}
	sys, err := render(t, "system", d)
	if err != nil {
		return nil, err
	}
	user, err := render(t, "user", d)
	if err != nil {
		return nil, err
	}
	if user == "" {
		return nil, errors.New("prompt: the user prompt is empty")
	}
	var msgs []chatMessage
	if sys != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: sys})
	}
	msgs = append(msgs, chatMessage{Role: "user", Content: user})
	if len(a.Failed) > 0 {
		if len(a.Previous) > 0 {
			msgs = append(msgs, chatMessage{Role: "assistant", Content: string(a.Previous)})
		}
		msgs = append(msgs, chatMessage{Role: "user", Content: feedback(a.Failed)})
	}
	return msgs, nil
}

// feedback tells the model which of the buyer's checks its last answer
// failed.
func feedback(failed []verify.Check) string {
	var b strings.Builder
	b.WriteString("Your previous answer was rejected by these checks:\n")
	for _, c := range failed {
		fmt.Fprintf(&b, "- %s: %s\n", c.Name, c.Detail)
	}
	b.WriteString("Answer again, with the same JSON shape, fixing every one of them.")
	return b.String()
}

// outputFromContent takes the output JSON object out of a model's content:
// the content itself, else inside a code fence, else the outermost {...};
// a content with no JSON object becomes the value of the output schema's
// one required string field ({"summary": content}).
func outputFromContent(content string, schema json.RawMessage) (json.RawMessage, error) {
	s := stripThink(strings.TrimSpace(content))
	if s == "" {
		return nil, errors.New("the model's answer is empty")
	}
	for _, cand := range []string{s, unfence(s), outermost(s)} {
		cand = strings.TrimSpace(cand)
		if cand == "" || cand[0] != '{' {
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(cand), &obj) == nil {
			return json.RawMessage(cand), nil
		}
	}
	if field := soleStringField(schema); field != "" {
		out, err := json.Marshal(map[string]string{field: s})
		return out, err
	}
	return nil, fmt.Errorf("the model's answer holds no JSON object: %q", truncate(s, 200))
}

// stripThink drops a leading <think>...</think> block (reasoning models).
func stripThink(s string) string {
	if rest, ok := strings.CutPrefix(s, "<think>"); ok {
		if _, after, ok := strings.Cut(rest, "</think>"); ok {
			return strings.TrimSpace(after)
		}
	}
	return s
}

// unfence is the body of the first ``` code fence of s, or "".
func unfence(s string) string {
	_, after, ok := strings.Cut(s, "```")
	if !ok {
		return ""
	}
	if nl := strings.IndexByte(after, '\n'); nl >= 0 {
		after = after[nl+1:]
	}
	body, _, _ := strings.Cut(after, "```")
	return body
}

// outermost is s from its first '{' to its last '}', or "".
func outermost(s string) string {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j <= i {
		return ""
	}
	return s[i : j+1]
}

// soleStringField is the name of the schema's only required property when
// it is a string, else "".
func soleStringField(schema json.RawMessage) string {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Required) != 1 {
		return ""
	}
	if p, ok := s.Properties[s.Required[0]]; ok && p.Type == "string" {
		return s.Required[0]
	}
	return ""
}

// fixOutput tidies what models get wrong in form, not substance: code
// inside a code fence, a sentiment in capitals, label confidences that do
// not quite sum to one.
func fixOutput(capID string, out json.RawMessage) json.RawMessage {
	var obj map[string]any
	if json.Unmarshal(out, &obj) != nil {
		return out
	}
	for _, k := range []string{"code", "tests"} {
		if s, ok := obj[k].(string); ok {
			if body := unfence(s); body != "" && strings.HasPrefix(strings.TrimSpace(s), "```") {
				obj[k] = strings.TrimRight(body, "\n") + "\n"
			}
		}
	}
	if s, ok := obj["sentiment"].(string); ok {
		obj["sentiment"] = strings.ToLower(strings.TrimSpace(s))
	}
	if labels, ok := obj["labels"].([]any); ok && strings.HasPrefix(capID, "classify.text.") {
		sum := 0.0
		for _, l := range labels {
			if m, ok := l.(map[string]any); ok {
				if c, ok := m["confidence"].(float64); ok && c >= 0 {
					sum += c
				}
			}
		}
		if sum > 0 && math.Abs(sum-1) > 1e-9 {
			for _, l := range labels {
				if m, ok := l.(map[string]any); ok {
					if c, ok := m["confidence"].(float64); ok && c >= 0 {
						m["confidence"] = c / sum
					}
				}
			}
		}
	}
	fixed, err := json.Marshal(obj)
	if err != nil {
		return out
	}
	return fixed
}
