package builtin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// Property tests: many random valid inputs (valid per verify.ValidateInput),
// and every output passes verify.Verify, the buyer's check.

// checkVerified runs capID on in and requires that verify passes the output.
func checkVerified(t *testing.T, r *Registry, capID string, in any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(in)
	require.NoError(t, err)
	require.NoError(t, verify.ValidateInput(capID, raw), "generated input must be valid: %s", clip(raw))
	h, ok := r.Lookup(capID)
	require.True(t, ok)
	out, err := h.Handle(context.Background(), raw)
	require.NoError(t, err, "input %s", clip(raw))
	rep, err := verify.Verify(context.Background(), capID, raw, out)
	require.NoError(t, err)
	require.True(t, rep.Passed, "%s\ninput %s\noutput %s", rep.Summary(), clip(raw), clip(out))
	return out
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

func randFloat(rng *rand.Rand) float64 {
	switch rng.IntN(4) {
	case 0:
		return float64(rng.IntN(201) - 100)
	case 1:
		return rng.NormFloat64() * 1e6
	case 2:
		return rng.Float64()
	default:
		return math.Round(rng.NormFloat64()*1000) / 100
	}
}

func TestPropertyStatistics(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(11, 1))
	for _, op := range statOps() {
		for i := 0; i < 150; i++ {
			data := make([]float64, op.minPoints+rng.IntN(300))
			for j := range data {
				data[j] = randFloat(rng)
			}
			checkVerified(t, r, op.capID, map[string]any{"data": data})
		}
	}
}

// randExpr builds an arithmetic expression that is finite by construction:
// bounded literals, divisions by 1+abs(...)^2, log of 1+abs(...), exp of a sine.
func randExpr(rng *rand.Rand, depth int, vars []string) string {
	if depth == 0 || rng.IntN(4) == 0 {
		switch rng.IntN(4) {
		case 0:
			return vars[rng.IntN(len(vars))]
		case 1:
			return []string{"pi", "e"}[rng.IntN(2)]
		case 2:
			return fmt.Sprint(rng.IntN(100))
		default:
			return fmt.Sprintf("%.3f", rng.Float64()*10)
		}
	}
	a, b := randExpr(rng, depth-1, vars), randExpr(rng, depth-1, vars)
	switch rng.IntN(12) {
	case 0:
		return "(" + a + " + " + b + ")"
	case 1:
		return "(" + a + " - " + b + ")"
	case 2:
		return a + " * " + b
	case 3:
		return a + " / (1 + abs(" + b + ")^2)"
	case 4:
		return "sqrt(abs(" + a + "))"
	case 5:
		return "log(1 + abs(" + a + "))"
	case 6:
		return "exp(sin(" + a + "))"
	case 7:
		return "cos(" + a + ") ** 2"
	case 8:
		return "max(" + a + ", " + b + ", 0)"
	case 9:
		return "min(" + a + ", " + b + ")"
	case 10:
		return "floor(" + a + ") + ceil(" + b + ")"
	default:
		return "-" + "tan(" + a + " / (1 + abs(" + a + ")))"
	}
}

func TestPropertyNumeric(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(12, 1))
	vars := []string{"x", "y", "rate"}
	for i := 0; i < 400; i++ {
		in := map[string]any{
			"expression": randExpr(rng, 1+rng.IntN(4), vars),
			"vars":       map[string]any{"x": randFloat(rng), "y": float64(rng.IntN(50)), "rate": rng.Float64()},
		}
		if rng.IntN(4) > 0 {
			in["precision"] = rng.IntN(maxPrecision + 1)
		}
		checkVerified(t, r, CapMathNumeric, in)
	}
}

func TestPropertyChart(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(13, 1))
	for i := 0; i < 24; i++ {
		kind := []string{ChartBar, ChartLine, ChartPie}[i%3]
		n := 1 + rng.IntN(map[string]int{ChartBar: 60, ChartLine: 400, ChartPie: 12}[kind])
		data := make([]map[string]any, n)
		for j := range data {
			var x any = fmt.Sprintf("k%d", j)
			if rng.IntN(2) == 0 {
				x = j * 5
			}
			y := randFloat(rng)
			if kind == ChartPie {
				y = 1 + math.Abs(y)
			}
			data[j] = map[string]any{"x": x, "y": y}
		}
		in := map[string]any{"chart_type": kind, "width": 64 + rng.IntN(900), "height": 64 + rng.IntN(700), "data": data}
		if rng.IntN(2) == 0 {
			in["theme"] = []string{ThemeLight, ThemeDark}[rng.IntN(2)]
		}
		if rng.IntN(2) == 0 {
			in["title"], in["x_label"], in["y_label"] = "Random chart", "x axis", "y axis"
		}
		checkVerified(t, r, CapChart, in)
	}
}

func randomImageB64(t *testing.T, rng *rand.Rand) string {
	w, h := 1+rng.IntN(48), 1+rng.IntN(48)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(128 + rng.IntN(128))})
		}
	}
	var buf bytes.Buffer
	switch rng.IntN(3) {
	case 0:
		require.NoError(t, png.Encode(&buf, img))
	case 1:
		require.NoError(t, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}))
	default:
		require.NoError(t, gif.Encode(&buf, img, nil))
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestPropertyUpscale(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(14, 1))
	for i := 0; i < 40; i++ {
		capID := []string{CapUpscale2x, CapUpscale4x}[i%2]
		checkVerified(t, r, capID, map[string]any{"image_b64": randomImageB64(t, rng)})
	}
}

func TestPropertySummarize(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(15, 1))
	extra := []string{"e.g.", "U.S.", "3.5%", "—", "well-known", "don't", "a/b/c", "東京", "(see", "above)", "&", "x2"}
	for i := 0; i < 90; i++ {
		l := summaryLengths()[i%3]
		text := randomText(rng, []int{5, 6, 9, 14, 40, 150, 700, 3000}[rng.IntN(8)], 1+rng.IntN(60))
		if rng.IntN(2) == 0 {
			toks := strings.Fields(text)
			for k := 0; k < 1+len(toks)/10; k++ {
				toks[rng.IntN(len(toks))] = extra[rng.IntN(len(extra))]
			}
			text = strings.Join(toks, " ")
		}
		lo, hi := summaryBounds(l, verify.WordCount(text))
		if lo > hi {
			continue // too short for this length: covered by the rejection tests
		}
		checkVerified(t, r, l.capID, map[string]any{"text": text})
	}
}

func TestPropertySentiment(t *testing.T) {
	r := newTestRegistry(t)
	rng := rand.New(rand.NewPCG(16, 1))
	words := append(strings.Fields("good great awful terrible love hate fine okay not very really bad excellent poor :) :( !"), loremWords...)
	for i := 0; i < 300; i++ {
		n := 1 + rng.IntN(40)
		toks := make([]string, n)
		for j := range toks {
			toks[j] = words[rng.IntN(len(words))]
		}
		checkVerified(t, r, CapSentiment, map[string]any{"text": strings.Join(toks, " ")})
	}
}

// randomPage writes a product, article or plain page with random values.
func randomPage(rng *rand.Rand) string {
	price := []string{"19.99", "1,299.00", "1.299,00", "0", "call us", "12"}[rng.IntN(6)]
	cur := []string{"USD", "EUR", "gbp", "XYZ", "$", ""}[rng.IntN(6)]
	avail := []string{"https://schema.org/InStock", "OutOfStock", "PreOrder", "", "SoldOut"}[rng.IntN(5)]
	img := []string{"https://cdn.example.com/a.png", "/rel/a.png", "http://insecure.example.com/a.png", "//cdn.example.com/b.png", "javascript:alert(1)"}[rng.IntN(5)]
	date := []string{"2026-01-02", "2026-01-02T03:04:05Z", "yesterday", "Jan 2, 2026", ""}[rng.IntN(5)]
	desc := strings.Repeat("Long description words here. ", rng.IntN(30))
	switch rng.IntN(3) {
	case 0:
		return fmt.Sprintf(`<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"P%d","image":%q,"description":%q,"brand":{"name":"B"},"offers":{"price":%q,"priceCurrency":%q,"availability":%q}}</script></head><body><p>%s</p></body></html>`,
			rng.IntN(1000), img, desc, price, cur, avail, desc)
	case 1:
		return fmt.Sprintf(`<html><head><meta property="og:title" content="A%d"><meta property="og:image" content=%q><meta property="article:published_time" content=%q><meta property="product:price:amount" content=%q><meta property="product:price:currency" content=%q><meta name="description" content=%q></head><body></body></html>`,
			rng.IntN(1000), img, date, price, cur, desc)
	default:
		return fmt.Sprintf(`<html><head><title>T</title></head><body><h1>H%d</h1><time datetime=%q></time><img src=%q><p>%s</p><p>Only %s%s today, %s</p></body></html>`,
			rng.IntN(1000), date, img, desc, []string{"$", "€", "£", ""}[rng.IntN(4)], price, []string{"in stock", "sold out", ""}[rng.IntN(3)])
	}
}

func TestPropertyExtract(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	var pages []string
	for i := 0; i < 80; i++ {
		pages = append(pages, randomPage(rng))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var i int
		_, _ = fmt.Sscanf(req.URL.Path, "/p/%d", &i)
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(pages[i%len(pages)]))
	}))
	t.Cleanup(srv.Close)
	r := allowedRegistry(t, srv)
	fieldPool := append(append([]string(nil), allFields...), "url", "sku", "image_url", "modified_at", "whatever")
	for i := range pages {
		fields := make([]string, 1+rng.IntN(len(fieldPool)))
		for j := range fields {
			fields[j] = fieldPool[rng.IntN(len(fieldPool))]
		}
		checkVerified(t, r, CapExtractFromURL, map[string]any{"url": fmt.Sprintf("%s/p/%d", srv.URL, i), "fields": fields})
	}
}

func TestPropertySandboxed(t *testing.T) {
	sb, err := realSandbox()
	require.NoError(t, err)
	r := newTestRegistry(t, WithSandbox(sb))
	rng := rand.New(rand.NewPCG(18, 1))
	programs := []func() map[string]any{
		func() map[string]any {
			return map[string]any{"code": fmt.Sprintf("print(%d * %d)", rng.IntN(1000), rng.IntN(1000))}
		},
		func() map[string]any {
			return map[string]any{"code": "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))", "stdin": fmt.Sprint(rng.IntN(9), " ", rng.IntN(9)), "language": "python"}
		},
		func() map[string]any { return map[string]any{"code": fmt.Sprintf("raise KeyError(%d)", rng.IntN(9))} },
		func() map[string]any {
			return map[string]any{"code": "while True: pass", "timeout_ms": 200 + rng.IntN(300)}
		},
		func() map[string]any { return map[string]any{"code": "print('x' * 10**6)"} },
	}
	for i := 0; i < 10; i++ {
		checkVerified(t, r, CapCodeSandboxed, programs[rng.IntN(len(programs))]())
	}
}
