package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzHandlersNoPanic feeds arbitrary job inputs to every handler that needs
// neither the network nor a sandbox: each must answer with an output or an
// error, never a panic, and an output must be JSON.
func FuzzHandlersNoPanic(f *testing.F) {
	for _, seed := range []string{
		`{"data":[1,2,3]}`, `{"expression":"1+2*x","vars":{"x":2},"precision":2}`,
		`{"chart_type":"pie","width":64,"height":64,"data":[{"x":"a","y":1}]}`,
		`{"text":"Hello there. General Kenobi. You are a bold one."}`, `{"image_b64":"iVBORw0KGgo="}`,
	} {
		f.Add(seed)
	}
	r, err := New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, capID := range r.Capabilities() {
			if capID == CapExtractFromURL {
				continue
			}
			h, _ := r.Lookup(capID)
			out, err := h.Handle(context.Background(), json.RawMessage(in))
			if err == nil && !json.Valid(out) {
				t.Fatalf("%s: output is not JSON: %q", capID, out)
			}
		}
	})
}

// FuzzExtractPageNoPanic parses arbitrary HTML (what a hostile page sends)
// and checks the field conventions hold for whatever comes out.
func FuzzExtractPageNoPanic(f *testing.F) {
	for _, name := range []string{"product-jsonld.html", "article-og.html", "plain.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<script type="application/ld+json">{"@graph":[{"@type":["Product"],"offers":[{"price":-1}]}]}</script>`))
	base, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parsePage(body, base)
		if err != nil {
			return
		}
		fields := append(allFields, "url", "modified_at", "sku")
		ex, conf := p.extract(fields)
		if conf < 0 || conf > 1 {
			t.Fatalf("confidence %v", conf)
		}
		for _, f := range fields {
			if _, ok := ex[f]; !ok {
				t.Fatalf("field %s missing", f)
			}
		}
		checkConventions(t, ex)
	})
}

func checkConventions(t *testing.T, ex map[string]any) {
	t.Helper()
	if v, ok := ex["price_currency"].(string); ok && len(v) != 3 {
		t.Fatalf("price_currency %q", v)
	}
	if v, ok := ex["price_amount"].(float64); ok && v < 0 {
		t.Fatalf("price_amount %v", v)
	}
	if v, ok := ex["availability"].(string); ok && v != "in_stock" && v != "out_of_stock" && v != "unknown" {
		t.Fatalf("availability %q", v)
	}
	if v, ok := ex["description_short"].(string); ok && len(v) > maxDescriptionShort {
		t.Fatalf("description_short is %d bytes", len(v))
	}
	for k, v := range ex {
		if s, ok := v.(string); ok && strings.HasSuffix(k, "_url") && !strings.HasPrefix(s, "https://") {
			t.Fatalf("%s = %q", k, s)
		}
	}
}

// FuzzNumericExpression: any expression either evaluates to a finite number
// or is refused with an InputError.
func FuzzNumericExpression(f *testing.F) {
	for _, s := range []string{"1+2", "sqrt(x)^2", "max(1,2,3)", `"a"+1`, "foo.bar()", "let a = 1; a", "1/0"} {
		f.Add(s)
	}
	r, err := New()
	if err != nil {
		f.Fatal(err)
	}
	h, _ := r.Lookup(CapMathNumeric)
	f.Fuzz(func(t *testing.T, expression string) {
		in, _ := json.Marshal(map[string]any{"expression": expression, "vars": map[string]any{"x": 2}})
		out, err := h.Handle(context.Background(), in)
		var ie *InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("%q: error is not an InputError: %v", expression, err)
		}
		if err == nil {
			var o struct{ Result float64 }
			if json.Unmarshal(out, &o) != nil {
				t.Fatalf("%q: bad output %s", expression, out)
			}
		}
	})
}
