package builtin

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.png")

func chartInputFor(kind, theme string, w, h int) map[string]any {
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun"}
	vals := []float64{12, 19, 3, 5, 2, 14}
	data := make([]map[string]any, len(months))
	for i := range months {
		data[i] = map[string]any{"x": months[i], "y": vals[i]}
	}
	return map[string]any{
		"title": "Sales " + kind, "chart_type": kind, "theme": theme, "width": w, "height": h,
		"x_label": "month", "y_label": "units", "data": data,
	}
}

func renderPNG(t testing.TB, r *Registry, in map[string]any) []byte {
	t.Helper()
	out, err := run(t, r, CapChart, in)
	require.NoError(t, err)
	var o chartOutput
	require.NoError(t, json.Unmarshal(out, &o))
	require.Equal(t, in["chart_type"], o.ChartType)
	img, err := base64.StdEncoding.DecodeString(o.ImageB64)
	require.NoError(t, err)
	return img
}

func TestChartGolden(t *testing.T) {
	r := newTestRegistry(t)
	for _, kind := range []string{ChartBar, ChartLine, ChartPie} {
		for _, theme := range []string{ThemeLight, ThemeDark} {
			t.Run(kind+"-"+theme, func(t *testing.T) {
				got := renderPNG(t, r, chartInputFor(kind, theme, 480, 320))
				path := filepath.Join("testdata", fmt.Sprintf("chart-%s-%s.golden.png", kind, theme))
				if *update {
					require.NoError(t, os.WriteFile(path, got, 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "run go test -run TestChartGolden -update to create the golden files")
				require.True(t, bytes.Equal(want, got), "%s differs from the golden image (rerun with -update after checking it by eye)", path)
			})
		}
	}
}

func TestChartDeterministicAndExactSize(t *testing.T) {
	r := newTestRegistry(t)
	for _, kind := range []string{ChartBar, ChartLine, ChartPie} {
		for _, size := range [][2]int{{64, 64}, {800, 600}, {1013, 217}} {
			in := chartInputFor(kind, ThemeDark, size[0], size[1])
			a, b := renderPNG(t, r, in), renderPNG(t, r, in)
			require.True(t, bytes.Equal(a, b), "%s %v: two renders differ", kind, size)
			img, err := png.Decode(bytes.NewReader(a))
			require.NoError(t, err)
			require.Equal(t, image.Rect(0, 0, size[0], size[1]), img.Bounds())
		}
	}
}

func TestChartNumericX(t *testing.T) {
	r := newTestRegistry(t)
	in := chartInputFor(ChartLine, ThemeLight, 300, 200)
	in["data"] = []map[string]any{{"x": 1, "y": 2}, {"x": 2.5, "y": -1}, {"x": "three", "y": 0}}
	renderPNG(t, r, in)
}

func TestChartRejections(t *testing.T) {
	r := newTestRegistry(t)
	big := make([]map[string]any, chartMaxBars+1)
	for i := range big {
		big[i] = map[string]any{"x": i, "y": 1}
	}
	testCases := []struct {
		name   string
		mutate func(m map[string]any)
	}{
		{"unknown type", func(m map[string]any) { m["chart_type"] = "radar" }},
		{"missing type", func(m map[string]any) { delete(m, "chart_type") }},
		{"unknown theme", func(m map[string]any) { m["theme"] = "solarized" }},
		{"missing width", func(m map[string]any) { delete(m, "width") }},
		{"too narrow", func(m map[string]any) { m["width"] = 10 }},
		{"too tall", func(m map[string]any) { m["height"] = 5000 }},
		{"too many pixels", func(m map[string]any) { m["width"], m["height"] = 4096, 4096 }},
		{"empty data", func(m map[string]any) { m["data"] = []any{} }},
		{"too many bars", func(m map[string]any) { m["chart_type"], m["data"] = ChartBar, big }},
		{"missing y", func(m map[string]any) { m["data"] = []map[string]any{{"x": "a"}} }},
		{"missing x", func(m map[string]any) { m["data"] = []map[string]any{{"y": 1}} }},
		{"object x", func(m map[string]any) { m["data"] = []map[string]any{{"x": map[string]any{}, "y": 1}} }},
		{"negative pie slice", func(m map[string]any) {
			m["chart_type"], m["data"] = ChartPie, []map[string]any{{"x": "a", "y": -1}, {"x": "b", "y": 2}}
		}},
		{"zero pie total", func(m map[string]any) { m["chart_type"], m["data"] = ChartPie, []map[string]any{{"x": "a", "y": 0}} }},
		{"long title", func(m map[string]any) { m["title"] = string(bytes.Repeat([]byte("x"), chartMaxTextRunes+1)) }},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			in := chartInputFor(ChartLine, ThemeLight, 300, 200)
			tc.mutate(in)
			_, err := run(t, r, CapChart, in)
			requireInputError(t, err)
		})
	}
}
