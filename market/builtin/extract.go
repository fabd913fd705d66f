package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/bojanz/currency"
	"golang.org/x/net/html/charset"
)

// data.extract.from-url
//
// Fetch (see fetch.go for the SSRF guard), then look for each requested field
// in four sources, best first:
//
//	jsonld    <script type="application/ld+json">, schema.org Product,
//	          Article (and its subtypes), Recipe or Event       weight 0.95
//	opengraph og:*, product:*, article:* meta properties           0.85
//	meta      <meta name=...>, microdata itemprop, twitter:*       0.75
//	dom       <title>, <h1>, <time>, first paragraph, price text  0.45
//
// A value is taken from the first source whose value also passes the field's
// normalization (so a JSON-LD price "call us" falls through to the next
// source). Fields not found are null. confidence is the mean weight over the
// requested fields, a missing field counting 0, rounded to 3 decimals.
//
// Conventions of the taxonomy: price_currency is an ISO 4217 code (symbols
// $ € £ ¥ ₹ are mapped, anything unknown is dropped); price_amount a JSON
// number >= 0 without separators ("1.299,00" and "1,299.00" both give
// 1299); availability one of in_stock, out_of_stock, unknown (schema.org
// InStock, LimitedAvailability, InStoreOnly, OnlineOnly -> in_stock;
// OutOfStock, SoldOut, Discontinued -> out_of_stock; other values ->
// unknown); every *_url field an absolute https URL (relative URLs are
// resolved against the page, "//host/x" becomes https, http URLs are
// dropped because the verifier requires https); description_short at most
// 280 bytes (cut at a word boundary, "…" appended); published_at and
// modified_at RFC 3339 (an ISO 8601 profile), a date alone gets T00:00:00Z.

const (
	defaultMaxResponseKB = 512
	maxMaxResponseKB     = 4096
	maxExtractFields     = 64
	maxURLLen            = 4096
	maxDescriptionShort  = 280
	maxJSONLDBlocks      = 32
)

type extractSource struct {
	name   string
	weight float64
}

var (
	srcJSONLD = extractSource{"jsonld", 0.95}
	srcOG     = extractSource{"opengraph", 0.85}
	srcMeta   = extractSource{"meta", 0.75}
	srcDOM    = extractSource{"dom", 0.45}
)

var fieldNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

type extractInput struct {
	URL           *string   `json:"url"`
	Fields        *[]string `json:"fields"`
	MaxResponseKB *float64  `json:"max_response_kb"`
}

type extractOutput struct {
	URL         string         `json:"url"`
	Extracted   map[string]any `json:"extracted"`
	Confidence  float64        `json:"confidence"`
	ExtractedAt string         `json:"extracted_at"`
}

type extractor struct {
	client *http.Client
	now    func() time.Time
}

func newExtractor(cfg *config) (*extractor, error) {
	if cfg.resolver == nil {
		return nil, fmt.Errorf("extractor: no resolver")
	}
	return &extractor{client: newSafeClient(cfg), now: cfg.now}, nil
}

func (x *extractor) Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in extractInput
	if err := decodeInput(CapExtractFromURL, input, &in); err != nil {
		return nil, err
	}
	u, fields, limitKB, reasons := checkExtractInput(in)
	if len(reasons) > 0 {
		return nil, inputErr(CapExtractFromURL, reasons...)
	}
	body, contentType, final, err := fetchPage(ctx, x.client, u, int64(limitKB)*1024, limitKB)
	if err != nil {
		return nil, err
	}
	page, err := parsePage(toUTF8(body, contentType), final)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CapExtractFromURL, err)
	}
	extracted, conf := page.extract(fields)
	return encodeOutput(CapExtractFromURL, extractOutput{
		URL:         *in.URL,
		Extracted:   extracted,
		Confidence:  conf,
		ExtractedAt: x.now().UTC().Format(time.RFC3339),
	})
}

func checkExtractInput(in extractInput) (*url.URL, []string, int, []string) {
	var reasons []string
	var u *url.URL
	switch {
	case in.URL == nil || *in.URL == "":
		reasons = append(reasons, "url is required")
	case len(*in.URL) > maxURLLen:
		reasons = append(reasons, fmt.Sprintf("url is longer than %d bytes", maxURLLen))
	default:
		parsed, err := url.Parse(*in.URL)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("url: %v", err))
		} else if err := checkFetchURL(parsed); err != nil {
			reasons = append(reasons, fmt.Sprintf("url: %v", err))
		} else {
			u = parsed
		}
	}
	var fields []string
	switch {
	case in.Fields == nil || len(*in.Fields) == 0:
		reasons = append(reasons, "fields is required (a non-empty array of field names)")
	case len(*in.Fields) > maxExtractFields:
		reasons = append(reasons, fmt.Sprintf("fields has %d names, the limit is %d", len(*in.Fields), maxExtractFields))
	default:
		for i, f := range *in.Fields {
			if !fieldNameRE.MatchString(f) {
				reasons = append(reasons, fmt.Sprintf("fields[%d] %q is not a field name (lowercase letters, digits, _)", i, f))
			}
		}
		fields = *in.Fields
	}
	limitKB := defaultMaxResponseKB
	if in.MaxResponseKB != nil {
		v := *in.MaxResponseKB
		if v != math.Trunc(v) || v < 1 || v > maxMaxResponseKB {
			reasons = append(reasons, fmt.Sprintf("max_response_kb must be an integer from 1 to %d", maxMaxResponseKB))
		} else {
			limitKB = int(v)
		}
	}
	return u, fields, limitKB, reasons
}

// page holds raw candidate values per source; normalization happens per
// requested field.
type page struct {
	base    *url.URL
	sources []extractSource
	values  map[string]map[string]string // source name -> field -> raw value
	jsonld  map[string]any               // the primary JSON-LD node, for unknown fields
}

func parsePage(body []byte, base *url.URL) (*page, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	p := &page{base: base, sources: []extractSource{srcJSONLD, srcOG, srcMeta, srcDOM}, values: make(map[string]map[string]string)}
	p.jsonld = primaryJSONLD(doc)
	p.values[srcJSONLD.name] = jsonLDValues(p.jsonld)
	p.values[srcOG.name], p.values[srcMeta.name] = metaValues(doc)
	p.values[srcDOM.name] = domValues(doc)
	return p, nil
}

func (p *page) extract(fields []string) (map[string]any, float64) {
	out := make(map[string]any, len(fields))
	sum := 0.0
	for _, f := range fields {
		out[f] = nil
		for _, src := range p.sources {
			raw, ok := p.values[src.name][fieldAlias(f)]
			if !ok || strings.TrimSpace(raw) == "" {
				continue
			}
			if v, ok := p.normalize(f, raw); ok {
				out[f] = v
				sum += src.weight
				break
			}
		}
		if out[f] == nil && p.jsonld != nil {
			// A field we have no mapping for: a scalar property of the same
			// name on the primary JSON-LD node.
			if v, ok := scalarJSONLD(p.jsonld[f]); ok {
				if nv, ok := p.normalize(f, v); ok {
					out[f] = nv
					sum += srcJSONLD.weight
				}
			}
		}
	}
	return out, math.Round(sum/float64(len(fields))*1000) / 1000
}

func fieldAlias(f string) string {
	switch f {
	case "image_url", "image":
		return "main_image_url"
	case "name", "headline":
		return "title"
	case "price":
		return "price_amount"
	case "currency":
		return "price_currency"
	case "date_published", "published":
		return "published_at"
	case "canonical_url":
		return "url"
	}
	return f
}

func (p *page) normalize(field, raw string) (any, bool) {
	raw = collapseSpace(raw)
	switch f := fieldAlias(field); {
	case f == "price_amount":
		return parseAmount(raw)
	case f == "price_currency":
		return normalizeCurrency(raw)
	case f == "availability":
		return normalizeAvailability(raw), true
	case f == "description_short":
		return shorten(raw, maxDescriptionShort), true
	case f == "published_at" || f == "modified_at" || strings.HasSuffix(f, "_at") || strings.HasSuffix(f, "_date"):
		return normalizeTime(raw)
	case strings.HasSuffix(field, "_url") || strings.HasSuffix(f, "_url") || f == "url":
		return p.httpsURL(raw)
	default:
		if utf8.RuneCountInString(raw) > 2000 {
			return shorten(raw, 2000), true
		}
		return raw, true
	}
}

// toUTF8 converts a page in a legacy charset (from the Content-Type header or
// a <meta charset>) to UTF-8; goquery assumes UTF-8.
func toUTF8(body []byte, contentType string) []byte {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return body
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return body
	}
	return out
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// shorten cuts s to at most limit bytes (so also at most limit characters),
// at a word boundary where there is one, and marks the cut with "…".
func shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := s[:limit-len(ellipsis)]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > limit/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + ellipsis
}

var (
	amountRE       = regexp.MustCompile(`\d[\d.,\s']*`)
	plainDecimalRE = regexp.MustCompile(`^\d+(\.\d+)?$`)
)

// parseAmount reads a price. The last '.' or ',' followed by one or two digits
// at the end is the decimal separator; other separators are thousands
// separators.
func parseAmount(raw string) (any, bool) {
	// schema.org and OpenGraph prices are plain decimals with a '.'.
	if plainDecimalRE.MatchString(raw) {
		if v, err := strconv.ParseFloat(raw, 64); err == nil && !math.IsInf(v, 0) {
			return v, true
		}
	}
	m := amountRE.FindString(raw)
	if m == "" || strings.Contains(raw, "-"+m) {
		return nil, false
	}
	m = strings.NewReplacer(" ", "", "'", "", "\u00a0", "").Replace(strings.TrimRight(m, ".,' "))
	dec := ""
	if i := strings.LastIndexAny(m, ".,"); i >= 0 && len(m)-i-1 <= 2 {
		dec, m = m[i+1:], m[:i]
	}
	m = strings.NewReplacer(".", "", ",", "").Replace(m)
	if dec != "" {
		m += "." + dec
	}
	v, err := strconv.ParseFloat(m, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return nil, false
	}
	return v, true
}

func currencySymbols() map[string]string {
	return map[string]string{"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW", "CHF": "CHF"}
}

func normalizeCurrency(raw string) (any, bool) {
	if code, ok := currencySymbols()[raw]; ok {
		return code, true
	}
	code := strings.ToUpper(strings.TrimSpace(raw))
	if len(code) == 3 && currency.IsValid(code) {
		return code, true
	}
	return nil, false
}

func normalizeAvailability(raw string) string {
	v := strings.ToLower(raw)
	v = v[strings.LastIndexByte(v, '/')+1:]
	v = strings.NewReplacer("_", "", " ", "", "-", "").Replace(v)
	switch v {
	case "instock", "limitedavailability", "instoreonly", "onlineonly", "available":
		return "in_stock"
	case "outofstock", "soldout", "discontinued", "unavailable":
		return "out_of_stock"
	}
	return "unknown"
}

func (p *page) httpsURL(raw string) (any, bool) {
	if strings.HasPrefix(raw, "//") {
		raw = "https:" + raw
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return nil, false
	}
	u := ref
	if p.base != nil {
		u = p.base.ResolveReference(ref)
	}
	if u.Scheme != "https" || u.Host == "" || u.User != nil {
		return nil, false
	}
	return u.String(), true
}

func normalizeTime(raw string) (any, bool) {
	layouts := []string{
		time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00",
		"2006-01-02T15:04", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02",
		time.RFC1123Z, time.RFC1123, "January 2, 2006", "Jan 2, 2006", "2 January 2006",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, raw); err == nil {
			return t.Format(time.RFC3339), true
		}
	}
	return nil, false
}
