package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bojanz/currency"
)

// Timestamp rules.
const (
	// RecentWindow is how old a "recent" timestamp may be: 96 hours, so the
	// last close of a stock over a long weekend (Friday 16:00 to Tuesday
	// 09:30) is still recent.
	RecentWindow = 96 * time.Hour
	// FutureSkew is how far ahead of the buyer's clock a timestamp may be.
	FutureSkew = 5 * time.Minute
	// millisThreshold: an integer timestamp above it is read as Unix
	// milliseconds (1e11 seconds is the year 5138).
	millisThreshold = 100_000_000_000
	// maxDescriptionShort is the spec's description_short limit, in characters.
	maxDescriptionShort = 280
)

// UnixTimestamp reads an integer timestamp: Unix seconds, or milliseconds
// when the value is too large to be seconds.
func UnixTimestamp(v int64) time.Time {
	if v > millisThreshold || v < -millisThreshold {
		return time.UnixMilli(v)
	}
	return time.Unix(v, 0)
}

// iso8601Layouts are the ISO 8601 forms accepted: extended and basic,
// with or without seconds, fraction and zone, and plain dates.
var iso8601Layouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04Z0700",
	"2006-01-02T15:04",
	"2006-01-02",
	"20060102T150405.999999999Z0700",
	"20060102T150405Z0700",
	"20060102T150405",
	"20060102",
}

// ParseISO8601 parses the common ISO 8601 date and date-time forms.
func ParseISO8601(s string) (time.Time, error) {
	for _, layout := range iso8601Layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if strings.HasSuffix(s, "Z") && !strings.Contains(s, "-") {
		if t, err := time.Parse("20060102T150405.999999999Z", s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date or date-time (e.g. 2026-01-31T12:00:00Z)", s)
}

func verifyWeather(_ context.Context, j *job) []Check {
	var in struct {
		Location string `json:"location"`
	}
	if err := j.decode(&in, nil); err != nil {
		return decodeFailed(err)
	}
	switch j.param("format") {
	case "geojson":
		return weatherGeoJSON(j.output)
	case "json":
		var out map[string]any
		if err := json.Unmarshal(j.output, &out); err != nil {
			return decodeFailed(err)
		}
		return []Check{pass(ckValidFormat, "a JSON object"), weatherFields(out, "")}
	default: // summary-text
		var out struct {
			Summary string `json:"summary"`
		}
		if err := j.decode(nil, &out); err != nil {
			return decodeFailed(err)
		}
		return weatherSummary(in.Location, out.Summary)
	}
}

// weatherRequired are the fields a weather record must carry.
var weatherRequired = []string{"location", "temperature_c", "conditions"}

func weatherFields(rec map[string]any, where string) Check {
	var missing []string
	for _, f := range weatherRequired {
		switch v := rec[f].(type) {
		case nil:
			missing = append(missing, f)
		case string:
			if strings.TrimSpace(v) == "" {
				missing = append(missing, f)
			}
		}
	}
	if len(missing) > 0 {
		return fail(ckRequiredFields, "%smissing required fields: %s", where, strings.Join(missing, ", "))
	}
	return pass(ckRequiredFields, "location, temperature_c and conditions present")
}

func weatherGeoJSON(doc []byte) []Check {
	var fc struct {
		Type       string            `json:"type"`
		Geometry   *geoGeometry      `json:"geometry"`
		Properties map[string]any    `json:"properties"`
		Features   []json.RawMessage `json:"features"`
	}
	if err := json.Unmarshal(doc, &fc); err != nil {
		return decodeFailed(err)
	}
	var feats []geoFeature
	switch fc.Type {
	case "Feature":
		feats = []geoFeature{{Type: fc.Type, Geometry: fc.Geometry, Properties: fc.Properties}}
	case "FeatureCollection":
		for i, raw := range fc.Features {
			var f geoFeature
			if err := json.Unmarshal(raw, &f); err != nil {
				return []Check{fail(ckValidFormat, "features[%d] is not a GeoJSON Feature: %v", i, err), skipped(ckRequiredFields, "invalid GeoJSON")}
			}
			feats = append(feats, f)
		}
		if len(feats) == 0 {
			return []Check{fail(ckValidFormat, "FeatureCollection has no features"), skipped(ckRequiredFields, "invalid GeoJSON")}
		}
	default:
		return []Check{fail(ckValidFormat, "GeoJSON type is %q; want Feature or FeatureCollection", fc.Type), skipped(ckRequiredFields, "invalid GeoJSON")}
	}
	for i, f := range feats {
		if err := f.validate(); err != nil {
			return []Check{fail(ckValidFormat, "feature %d: %v", i, err), skipped(ckRequiredFields, "invalid GeoJSON")}
		}
	}
	for i, f := range feats {
		if c := weatherFields(f.Properties, fmt.Sprintf("feature %d properties: ", i)); !c.Passed {
			return []Check{pass(ckValidFormat, "GeoJSON %s", fc.Type), c}
		}
	}
	return []Check{pass(ckValidFormat, "GeoJSON %s with %d Point features", fc.Type, len(feats)), pass(ckRequiredFields, "every feature has location, temperature_c and conditions")}
}

type geoGeometry struct {
	Type        string    `json:"type"`
	Coordinates []float64 `json:"coordinates"`
}

type geoFeature struct {
	Type       string         `json:"type"`
	Geometry   *geoGeometry   `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

func (f geoFeature) validate() error {
	switch {
	case f.Type != "Feature":
		return fmt.Errorf("type is %q, want Feature", f.Type)
	case f.Geometry == nil || f.Geometry.Type != "Point":
		return fmt.Errorf("geometry must be a Point")
	case len(f.Geometry.Coordinates) < 2 || len(f.Geometry.Coordinates) > 3:
		return fmt.Errorf("Point coordinates must be [longitude, latitude]")
	case math.Abs(f.Geometry.Coordinates[0]) > 180 || math.Abs(f.Geometry.Coordinates[1]) > 90:
		return fmt.Errorf("coordinates %v out of range (longitude first, then latitude)", f.Geometry.Coordinates)
	case f.Properties == nil:
		return fmt.Errorf("properties is missing")
	}
	return nil
}

var temperatureRE = regexp.MustCompile(`(?i)-?\d+(\.\d+)?\s*(°\s*[cf]?|degrees?|℃|℉|celsius|fahrenheit|[cf]\b)`)

func weatherSummary(location, summary string) []Check {
	if strings.TrimSpace(summary) == "" {
		return []Check{fail(ckValidFormat, "summary is empty"), skipped(ckRequiredFields, "no summary")}
	}
	checks := []Check{pass(ckValidFormat, "summary text, %d characters", TextLength(summary))}
	place, _, _ := strings.Cut(location, ",")
	place = strings.TrimSpace(place)
	switch {
	case !temperatureRE.MatchString(summary):
		return append(checks, fail(ckRequiredFields, "summary states no temperature (like \"18 °C\")"))
	case place != "" && !strings.Contains(strings.ToLower(summary), strings.ToLower(place)):
		return append(checks, fail(ckRequiredFields, "summary does not name the location %q", place))
	}
	return append(checks, pass(ckRequiredFields, "names the location and a temperature"))
}

func verifyWebSearch(_ context.Context, j *job) []Check {
	var in struct {
		Limit int `json:"limit"`
	}
	var out struct {
		Results []struct {
			URL string `json:"url"`
		} `json:"results"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	urls := pass(ckURLs, "%d URLs well-formed", len(out.Results))
	for i, r := range out.Results {
		if err := checkWebURL(r.URL, false); err != nil {
			urls = fail(ckURLs, "results[%d].url: %v", i, err)
			break
		}
	}
	limit := pass(ckResultLimit, "%d results, no limit requested", len(out.Results))
	if in.Limit > 0 {
		limit = result(ckResultLimit, len(out.Results) <= in.Limit,
			fmt.Sprintf("%d results within the limit of %d", len(out.Results), in.Limit),
			fmt.Sprintf("%d results but the buyer asked for at most %d", len(out.Results), in.Limit))
	}
	return []Check{urls, limit}
}

// checkWebURL checks an absolute http(s) URL (https only when httpsOnly).
func checkWebURL(s string, httpsOnly bool) error {
	if strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("%q contains whitespace", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%q does not parse: %w", s, err)
	}
	switch {
	case httpsOnly && u.Scheme != "https":
		return fmt.Errorf("%q is not an https:// URL", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	case u.Hostname() == "":
		return fmt.Errorf("%q has no host", s)
	}
	return nil
}

var availabilityValues = []string{"in_stock", "out_of_stock", "unknown"}

func verifyExtract(_ context.Context, j *job) []Check {
	var in struct {
		URL    string   `json:"url"`
		Fields []string `json:"fields"`
	}
	var out struct {
		URL         string         `json:"url"`
		Extracted   map[string]any `json:"extracted"`
		Confidence  float64        `json:"confidence"`
		ExtractedAt string         `json:"extracted_at"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	var missing []string
	for _, f := range in.Fields {
		if _, ok := out.Extracted[f]; !ok {
			missing = append(missing, f)
		}
	}
	checks := []Check{result(ckFieldsPresent, len(missing) == 0,
		fmt.Sprintf("all %d requested fields present", len(in.Fields)),
		fmt.Sprintf("extracted lacks requested fields %s (use null for a field not found)", strings.Join(missing, ", ")))}
	checks = append(checks, result(ckURLEcho, strings.TrimSuffix(out.URL, "/") == strings.TrimSuffix(in.URL, "/"),
		"echoes the input url", fmt.Sprintf("url is %q, the input url was %q", out.URL, in.URL)))
	checks = append(checks, currencyCheck(out.Extracted), httpsFieldsCheck(out.Extracted), conventionsCheck(out.Extracted))
	checks = append(checks, confidenceCheck(out.Confidence))
	if _, err := ParseISO8601(out.ExtractedAt); err != nil {
		checks = append(checks, fail(ckExtractedAt, "extracted_at: %v", err))
	} else {
		checks = append(checks, pass(ckExtractedAt, "%s", out.ExtractedAt))
	}
	return checks
}

func currencyCheck(ex map[string]any) Check {
	v, ok := ex["price_currency"]
	if !ok || v == nil {
		return pass(ckCurrency, "no price_currency")
	}
	code, isStr := v.(string)
	if !isStr || !currency.IsValid(code) || strings.ToUpper(code) != code {
		return fail(ckCurrency, "price_currency %v is not an ISO 4217 code (three upper-case letters such as USD, EUR)", jsonText(v))
	}
	return pass(ckCurrency, "%s", code)
}

func httpsFieldsCheck(ex map[string]any) Check {
	n := 0
	for _, k := range sortedKeys(ex) {
		if !strings.HasSuffix(k, "_url") || ex[k] == nil {
			continue
		}
		s, ok := ex[k].(string)
		if !ok {
			return fail(ckHTTPSURLs, "%s is %s, want an https:// URL string", k, jsonText(ex[k]))
		}
		if err := checkWebURL(s, true); err != nil {
			return fail(ckHTTPSURLs, "%s: %v", k, err)
		}
		n++
	}
	return pass(ckHTTPSURLs, "%d URL fields are https", n)
}

func conventionsCheck(ex map[string]any) Check {
	if v, ok := ex["price_amount"]; ok && v != nil {
		f, isNum := v.(float64)
		if !isNum || f < 0 {
			return fail(ckFieldConventions, "price_amount is %s; it must be a number >= 0 without thousands separators", jsonText(v))
		}
	}
	if v, ok := ex["availability"]; ok && v != nil {
		s, _ := v.(string)
		if !slices.Contains(availabilityValues, s) {
			return fail(ckFieldConventions, "availability is %s; it must be one of %s", jsonText(v), strings.Join(availabilityValues, ", "))
		}
	}
	if v, ok := ex["description_short"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr || utf8.RuneCountInString(s) > maxDescriptionShort {
			return fail(ckFieldConventions, "description_short must be a string of at most %d characters", maxDescriptionShort)
		}
	}
	if v, ok := ex["published_at"]; ok && v != nil {
		s, _ := v.(string)
		if _, err := ParseISO8601(s); err != nil {
			return fail(ckFieldConventions, "published_at: %v", err)
		}
	}
	return pass(ckFieldConventions, "fields follow the spec's conventions")
}

func confidenceCheck(c float64) Check {
	return result(ckConfidenceRange, c >= 0 && c <= 1,
		fmt.Sprintf("confidence %g", c), fmt.Sprintf("confidence is %g; it must be within [0, 1]", c))
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// verifyScrape checks the data against the input's schema: a JSON Schema
// (an object with type, properties, required, $schema, $ref, allOf,
// anyOf or oneOf), or else a map whose keys are the required field names.
func verifyScrape(_ context.Context, j *job) []Check {
	var in struct {
		Schema map[string]json.RawMessage `json:"schema"`
	}
	var out struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	if len(in.Schema) == 0 {
		return []Check{pass(ckDataMatchesSchema, "no schema requested")}
	}
	if !looksLikeJSONSchema(in.Schema) {
		var missing []string
		for _, k := range sortedRawKeys(in.Schema) {
			if _, ok := out.Data[k]; !ok {
				missing = append(missing, k)
			}
		}
		return []Check{result(ckDataMatchesSchema, len(missing) == 0,
			fmt.Sprintf("all %d fields present", len(in.Schema)),
			fmt.Sprintf("data lacks fields %s", strings.Join(missing, ", ")))}
	}
	raw, _ := json.Marshal(in.Schema)
	sch, err := compileSellerSchema(raw)
	if err != nil {
		return []Check{fail(ckDataMatchesSchema, "the input schema is unusable: %v", err)}
	}
	var outer struct {
		Data json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(j.output, &outer)
	doc, err := decodeJSON(outer.Data, "data", MaxOutputSize)
	if err != nil {
		return []Check{fail(ckDataMatchesSchema, "%v", err)}
	}
	if err := sch.validate(j.cap.ID, "data", doc); err != nil {
		return []Check{schemaCheck(ckDataMatchesSchema, err)}
	}
	return []Check{pass(ckDataMatchesSchema, "data matches the input schema")}
}

func looksLikeJSONSchema(m map[string]json.RawMessage) bool {
	for _, k := range []string{"type", "properties", "required", "$schema", "$ref", "allOf", "anyOf", "oneOf"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func sortedRawKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func pricePositive(p float64) Check {
	return result(ckPricePositive, p > 0, fmt.Sprintf("price %g", p), fmt.Sprintf("price is %g; it must be greater than 0", p))
}

func verifyStockPrice(_ context.Context, j *job) []Check {
	var out struct {
		Price     float64 `json:"price"`
		Timestamp int64   `json:"timestamp"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{pricePositive(out.Price), recentCheck(out.Timestamp, time.Now())}
}

func recentCheck(ts int64, now time.Time) Check {
	t := UnixTimestamp(ts)
	age := now.Sub(t)
	switch {
	case age > RecentWindow:
		return fail(ckTimestampRecent, "timestamp %d is %s (%s old); it must be within the last %s", ts, t.UTC().Format(time.RFC3339), age.Round(time.Second), RecentWindow)
	case -age > FutureSkew:
		return fail(ckTimestampRecent, "timestamp %d is %s, %s in the future (integer timestamps are Unix seconds, or milliseconds if larger than 1e11)", ts, t.UTC().Format(time.RFC3339), (-age).Round(time.Second))
	}
	return pass(ckTimestampRecent, "%s (%s ago)", t.UTC().Format(time.RFC3339), age.Round(time.Second))
}

func verifyCryptoPrice(_ context.Context, j *job) []Check {
	var out struct {
		Price float64 `json:"price"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{pricePositive(out.Price)}
}
