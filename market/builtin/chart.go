package builtin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/go-analyze/charts"
)

// chart.generate.from-data
//
// Renders bar, line and pie charts with go-analyze/charts into a PNG of
// exactly width x height pixels. The same input gives the same bytes: the
// renderer has no randomness, fonts are embedded, and no time or locale goes
// into the image. theme is "light" (default) or "dark". x values may be
// strings or numbers (numbers are printed in their shortest form). Pie slices
// need y >= 0 and a positive total.

const (
	chartMinSide      = 64
	chartMaxSide      = 4096
	chartMaxPixels    = 4096 * 2160 // a 4K frame; bounds render memory (~35 MB RGBA)
	chartMaxPoints    = 10_000      // line; more points than pixels makes no sense
	chartMaxBars      = 1_000
	chartMaxSlices    = 100
	chartMaxTextRunes = 200
	chartMaxLabelRune = 64
)

// Chart types and themes of the taxonomy.
const (
	ChartBar   = "bar"
	ChartLine  = "line"
	ChartPie   = "pie"
	ThemeLight = "light"
	ThemeDark  = "dark"
)

type chartPoint struct {
	X json.RawMessage `json:"x"`
	Y *float64        `json:"y"`
}

type chartInput struct {
	Title     string       `json:"title"`
	Data      []chartPoint `json:"data"`
	ChartType string       `json:"chart_type"`
	Width     *int         `json:"width"`
	Height    *int         `json:"height"`
	XLabel    string       `json:"x_label"`
	YLabel    string       `json:"y_label"`
	Theme     string       `json:"theme"`
}

type chartOutput struct {
	ImageB64  string `json:"image_b64"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	ChartType string `json:"chart_type"`
}

// chartSpec is a validated chart input.
type chartSpec struct {
	kind, theme, title, xLabel, yLabel string
	width, height                      int
	labels                             []string
	values                             []float64
}

func handleChart(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in chartInput
	if err := decodeInput(CapChart, input, &in); err != nil {
		return nil, err
	}
	spec, reasons := checkChartInput(in)
	if len(reasons) > 0 {
		return nil, inputErr(CapChart, reasons...)
	}
	img, err := renderChart(spec)
	if err != nil {
		return nil, err
	}
	return encodeOutput(CapChart, chartOutput{
		ImageB64:  base64.StdEncoding.EncodeToString(img),
		Width:     spec.width,
		Height:    spec.height,
		ChartType: spec.kind,
	})
}

func checkChartInput(in chartInput) (chartSpec, []string) {
	var reasons []string
	s := chartSpec{kind: in.ChartType, theme: in.Theme, title: in.Title, xLabel: in.XLabel, yLabel: in.YLabel}
	maxPoints := 0
	switch in.ChartType {
	case ChartBar:
		maxPoints = chartMaxBars
	case ChartLine:
		maxPoints = chartMaxPoints
	case ChartPie:
		maxPoints = chartMaxSlices
	case "":
		reasons = append(reasons, "chart_type is required (bar, line or pie)")
	default:
		reasons = append(reasons, fmt.Sprintf("chart_type %q is not supported (bar, line or pie)", in.ChartType))
	}
	switch in.Theme {
	case "":
		s.theme = ThemeLight
	case ThemeLight, ThemeDark:
	default:
		reasons = append(reasons, fmt.Sprintf("theme %q is not supported (light or dark)", in.Theme))
	}
	reasons = append(reasons, checkSide("width", in.Width, &s.width)...)
	reasons = append(reasons, checkSide("height", in.Height, &s.height)...)
	if s.width > 0 && s.height > 0 && s.width*s.height > chartMaxPixels {
		reasons = append(reasons, fmt.Sprintf("width x height is %d pixels, the limit is %d", s.width*s.height, chartMaxPixels))
	}
	for _, f := range [][2]string{{"title", in.Title}, {"x_label", in.XLabel}, {"y_label", in.YLabel}} {
		if n := utf8.RuneCountInString(f[1]); n > chartMaxTextRunes || !utf8.ValidString(f[1]) {
			reasons = append(reasons, fmt.Sprintf("%s must be valid UTF-8 of at most %d characters", f[0], chartMaxTextRunes))
		}
	}
	switch {
	case len(in.Data) == 0:
		reasons = append(reasons, "data is empty")
	case maxPoints > 0 && len(in.Data) > maxPoints:
		reasons = append(reasons, fmt.Sprintf("data has %d points, the limit for %s charts is %d", len(in.Data), in.ChartType, maxPoints))
	default:
		reasons = append(reasons, s.readPoints(in.Data)...)
	}
	return s, reasons
}

func checkSide(name string, v *int, dst *int) []string {
	if v == nil {
		return []string{name + " is required"}
	}
	if *v < chartMinSide || *v > chartMaxSide {
		return []string{fmt.Sprintf("%s must be from %d to %d pixels, got %d", name, chartMinSide, chartMaxSide, *v)}
	}
	*dst = *v
	return nil
}

func (s *chartSpec) readPoints(data []chartPoint) []string {
	var reasons []string
	s.labels = make([]string, len(data))
	s.values = make([]float64, len(data))
	total := 0.0
	for i, p := range data {
		label, err := chartLabel(p.X)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("data[%d].x: %v", i, err))
		}
		s.labels[i] = label
		switch {
		case p.Y == nil:
			reasons = append(reasons, fmt.Sprintf("data[%d].y is required", i))
		case math.IsNaN(*p.Y) || math.IsInf(*p.Y, 0) || math.Abs(*p.Y) > 1e300:
			reasons = append(reasons, fmt.Sprintf("data[%d].y is out of range", i))
		case s.kind == ChartPie && *p.Y < 0:
			reasons = append(reasons, fmt.Sprintf("data[%d].y is negative; pie slices need y >= 0", i))
		default:
			s.values[i] = *p.Y
			total += *p.Y
		}
		if len(reasons) > 20 {
			return append(reasons, "too many errors")
		}
	}
	if s.kind == ChartPie && len(reasons) == 0 && !(total > 0) {
		reasons = append(reasons, "pie data must have a positive total")
	}
	return reasons
}

// chartLabel turns an x value (string or number) into an axis label.
func chartLabel(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", fmt.Errorf("is required (string or number)")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if utf8.RuneCountInString(s) > chartMaxLabelRune {
			return "", fmt.Errorf("label is longer than %d characters", chartMaxLabelRune)
		}
		return s, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return "", fmt.Errorf("must be a string or a number")
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

func renderChart(s chartSpec) (img []byte, err error) {
	// The chart library is not written against hostile input; a panic in it
	// must fail this job, not the node.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: render %s chart: panic: %v", CapChart, s.kind, r)
		}
	}()
	theme := charts.GetTheme(charts.ThemeLight)
	if s.theme == ThemeDark {
		theme = charts.GetTheme(charts.ThemeDark)
	}
	p := charts.NewPainter(charts.PainterOptions{OutputFormat: charts.ChartOutputPNG, Width: s.width, Height: s.height, Theme: theme})
	title := charts.TitleOption{Text: s.title, Offset: charts.OffsetCenter}
	switch s.kind {
	case ChartLine:
		opt := charts.NewLineChartOptionWithData([][]float64{s.values})
		opt.Theme, opt.Title = theme, title
		opt.XAxis.Labels, opt.XAxis.Title = s.labels, s.xLabel
		if len(opt.YAxis) == 0 {
			opt.YAxis = make([]charts.YAxisOption, 1)
		}
		opt.YAxis[0].Title = s.yLabel
		opt.Legend.Show = charts.Ptr(false)
		err = p.LineChart(opt)
	case ChartBar:
		opt := charts.NewBarChartOptionWithData([][]float64{s.values})
		opt.Theme, opt.Title = theme, title
		opt.CategoryAxis.Labels, opt.CategoryAxis.Title = s.labels, s.xLabel
		if len(opt.ValueAxis) == 0 {
			opt.ValueAxis = make([]charts.ValueAxisOption, 1)
		}
		opt.ValueAxis[0].Title = s.yLabel
		opt.Legend.Show = charts.Ptr(false)
		err = p.BarChart(opt)
	case ChartPie:
		opt := charts.NewPieChartOptionWithData(s.values)
		opt.SeriesList = charts.NewSeriesListPie(s.values, charts.PieSeriesOption{
			Names: s.labels,
			Label: charts.SeriesLabel{Show: charts.Ptr(true)},
		})
		opt.Theme, opt.Title = theme, title
		opt.Legend.SeriesNames = s.labels
		opt.Legend.Show = charts.Ptr(len(s.labels) <= 20)
		opt.Legend.Offset = charts.OffsetStr{Top: charts.PositionBottom}
		err = p.PieChart(opt)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: render %s chart: %w", CapChart, s.kind, err)
	}
	img, err = p.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: encode %s chart: %w", CapChart, s.kind, err)
	}
	if err := checkPNGSize(img, s.width, s.height); err != nil {
		return nil, fmt.Errorf("%s: %w", CapChart, err)
	}
	return img, nil
}

// checkPNGSize makes sure the renderer kept the requested dimensions; the
// verifier rejects anything else, so failing here is cheaper for everyone.
func checkPNGSize(img []byte, w, h int) error {
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return fmt.Errorf("rendered image is not a PNG: %w", err)
	}
	if cfg.Width != w || cfg.Height != h {
		return fmt.Errorf("rendered image is %dx%d, want %dx%d", cfg.Width, cfg.Height, w, h)
	}
	return nil
}
