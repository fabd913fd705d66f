package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchHandler runs capID's handler on in b.N times.
func benchHandler(b *testing.B, r *Registry, capID string, in any) {
	b.Helper()
	raw, err := json.Marshal(in)
	require.NoError(b, err)
	h, ok := r.Lookup(capID)
	require.True(b, ok)
	ctx := context.Background()
	_, err = h.Handle(ctx, raw)
	require.NoError(b, err)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.Handle(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/job")
}

func BenchmarkStatsPercentile95_100k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]float64, 100_000)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	benchHandler(b, newTestRegistry(b), CapStatsP95, map[string]any{"data": data})
}

func BenchmarkStatsMean_100k(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]float64, 100_000)
	for i := range data {
		data[i] = rng.NormFloat64()
	}
	benchHandler(b, newTestRegistry(b), CapStatsMean, map[string]any{"data": data})
}

func BenchmarkMathNumeric(b *testing.B) {
	benchHandler(b, newTestRegistry(b), CapMathNumeric, map[string]any{
		"expression": "sqrt(x^2 + y^2) * sin(pi / 4) + log(exp(2)) - max(x, y, 3) / 7",
		"vars":       map[string]any{"x": 3, "y": 4}, "precision": 6,
	})
}

func lineChartInput(points, w, h int) map[string]any {
	data := make([]map[string]any, points)
	for i := range data {
		data[i] = map[string]any{"x": i, "y": 100 + 50*float64(i%37) - float64(i%101)}
	}
	return map[string]any{"title": "Latency", "chart_type": ChartLine, "width": w, "height": h,
		"x_label": "job", "y_label": "ms", "theme": ThemeLight, "data": data}
}

func BenchmarkChartLine1000_800x600(b *testing.B) {
	benchHandler(b, newTestRegistry(b), CapChart, lineChartInput(1000, 800, 600))
}

func BenchmarkChartBar50_800x600(b *testing.B) {
	in := lineChartInput(50, 800, 600)
	in["chart_type"] = ChartBar
	benchHandler(b, newTestRegistry(b), CapChart, in)
}

func BenchmarkChartPie12_800x600(b *testing.B) {
	in := lineChartInput(12, 800, 600)
	in["chart_type"], in["theme"] = ChartPie, ThemeDark
	benchHandler(b, newTestRegistry(b), CapChart, in)
}

func BenchmarkUpscale2x_512(b *testing.B) {
	benchHandler(b, newTestRegistry(b), CapUpscale2x, map[string]any{"image_b64": pngB64(b, testImage(512, 512))})
}

func BenchmarkUpscale4x_512(b *testing.B) {
	benchHandler(b, newTestRegistry(b), CapUpscale4x, map[string]any{"image_b64": pngB64(b, testImage(512, 512))})
}

func BenchmarkSummarizeMedium5000Words(b *testing.B) {
	text := randomText(rand.New(rand.NewPCG(3, 4)), 5000, 30)
	benchHandler(b, newTestRegistry(b), CapSummarizeMedium, map[string]any{"text": text})
}

func BenchmarkSummarizeShort50000Words(b *testing.B) {
	text := randomText(rand.New(rand.NewPCG(3, 4)), 50000, 30)
	benchHandler(b, newTestRegistry(b), CapSummarizeShort, map[string]any{"text": text})
}

func BenchmarkSentimentParagraph(b *testing.B) {
	text := strings.Repeat("The seller delivered quickly and the chart looked great, but the summary was a bit too short. ", 5)
	benchHandler(b, newTestRegistry(b), CapSentiment, map[string]any{"text": text})
}

// page200KB is the product fixture padded with article text to about 200 KB.
func page200KB(b testing.TB) []byte {
	fixture, err := os.ReadFile(filepath.Join("testdata", "product-jsonld.html"))
	require.NoError(b, err)
	var pad strings.Builder
	rng := rand.New(rand.NewPCG(5, 6))
	for pad.Len() < 200<<10-len(fixture) {
		fmt.Fprintf(&pad, "<div class=\"review\"><p>%s</p></div>\n", randomText(rng, 40, 15))
	}
	return []byte(strings.Replace(string(fixture), "</body>", pad.String()+"</body>", 1))
}

func BenchmarkExtract200KBPage(b *testing.B) {
	page := page200KB(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write(page)
	}))
	b.Cleanup(srv.Close)
	r := newTestRegistry(b, withAllowAddr(serverAddrB(b, srv.URL)))
	benchHandler(b, r, CapExtractFromURL, map[string]any{"url": srv.URL + "/p", "fields": allFields})
}

func BenchmarkSandboxedHello(b *testing.B) {
	sb, err := realSandbox()
	require.NoError(b, err)
	require.NoError(b, sb.WaitReady(context.Background()))
	benchHandler(b, newTestRegistry(b, WithSandbox(sb)), CapCodeSandboxed, map[string]any{"code": "print('hello')"})
}
