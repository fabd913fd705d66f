package builtin

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// primaryTypes are the schema.org types the spec names, in order of
// preference, with the subtypes pages commonly use.
func primaryTypes() [][]string {
	return [][]string{
		{"Product", "ProductGroup", "IndividualProduct", "ProductModel"},
		{"Article", "NewsArticle", "BlogPosting", "TechArticle", "ScholarlyArticle", "Report", "SocialMediaPosting", "LiveBlogPosting"},
		{"Recipe"},
		{"Event", "MusicEvent", "SportsEvent", "TheaterEvent", "BusinessEvent", "Festival", "ExhibitionEvent"},
	}
}

// primaryJSONLD returns the best schema.org node of the page, or nil.
func primaryJSONLD(doc *goquery.Document) map[string]any {
	var nodes []map[string]any
	doc.Find(`script[type="application/ld+json"]`).EachWithBreak(func(i int, s *goquery.Selection) bool {
		var v any
		if err := json.Unmarshal([]byte(strings.TrimSpace(s.Text())), &v); err == nil {
			nodes = collectNodes(v, nodes, 0)
		}
		return i < maxJSONLDBlocks
	})
	for _, group := range primaryTypes() {
		for _, n := range nodes {
			for _, t := range nodeTypes(n) {
				if slices.Contains(group, t) {
					return n
				}
			}
		}
	}
	return nil
}

func collectNodes(v any, acc []map[string]any, depth int) []map[string]any {
	if depth > 4 || len(acc) > 256 {
		return acc
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			acc = collectNodes(e, acc, depth+1)
		}
	case map[string]any:
		acc = append(acc, t)
		if g, ok := t["@graph"]; ok {
			acc = collectNodes(g, acc, depth+1)
		}
		// A WebPage often carries the product or article as mainEntity.
		if m, ok := t["mainEntity"]; ok {
			acc = collectNodes(m, acc, depth+1)
		}
	}
	return acc
}

func nodeTypes(n map[string]any) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "https://schema.org/"), "http://schema.org/")
		out = append(out, strings.TrimPrefix(s, "schema:"))
	}
	switch t := n["@type"].(type) {
	case string:
		add(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// scalarJSONLD renders a JSON-LD value as text: strings and numbers as they
// are, objects by their name, url or @id, arrays by their first usable item.
func scalarJSONLD(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, t != ""
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	case map[string]any:
		for _, k := range []string{"name", "url", "contentUrl", "@id", "@value"} {
			if s, ok := scalarJSONLD(t[k]); ok {
				return s, true
			}
		}
	case []any:
		for _, e := range t {
			if s, ok := scalarJSONLD(e); ok {
				return s, true
			}
		}
	}
	return "", false
}

// namesJSONLD joins the names of one or more persons or organizations.
func namesJSONLD(v any) (string, bool) {
	list, ok := v.([]any)
	if !ok {
		return scalarJSONLD(v)
	}
	var names []string
	for _, e := range list {
		if s, ok := scalarJSONLD(e); ok {
			names = append(names, s)
		}
	}
	return strings.Join(names, ", "), len(names) > 0
}

func jsonLDValues(n map[string]any) map[string]string {
	out := make(map[string]string)
	if n == nil {
		return out
	}
	set := func(field string, v any, read func(any) (string, bool)) {
		if _, done := out[field]; done {
			return
		}
		if s, ok := read(v); ok {
			out[field] = s
		}
	}
	set("title", n["name"], scalarJSONLD)
	set("title", n["headline"], scalarJSONLD)
	set("description", n["description"], scalarJSONLD)
	set("description_short", n["description"], scalarJSONLD)
	set("brand", n["brand"], scalarJSONLD)
	set("brand", n["manufacturer"], scalarJSONLD)
	set("main_image_url", n["image"], scalarJSONLD)
	set("main_image_url", n["thumbnailUrl"], scalarJSONLD)
	set("author", n["author"], namesJSONLD)
	set("author", n["creator"], namesJSONLD)
	set("author", n["organizer"], namesJSONLD)
	set("published_at", n["datePublished"], scalarJSONLD)
	set("published_at", n["startDate"], scalarJSONLD)
	set("published_at", n["uploadDate"], scalarJSONLD)
	set("published_at", n["dateCreated"], scalarJSONLD)
	set("modified_at", n["dateModified"], scalarJSONLD)
	set("start_at", n["startDate"], scalarJSONLD)
	set("end_at", n["endDate"], scalarJSONLD)
	set("url", n["url"], scalarJSONLD)
	set("sku", n["sku"], scalarJSONLD)
	set("location", n["location"], scalarJSONLD)
	set("site_name", n["publisher"], scalarJSONLD)
	offer := firstOffer(n["offers"])
	if offer != nil {
		set("price_amount", offer["price"], scalarJSONLD)
		set("price_amount", offer["lowPrice"], scalarJSONLD)
		set("price_currency", offer["priceCurrency"], scalarJSONLD)
		set("availability", offer["availability"], scalarJSONLD)
		if spec, ok := offer["priceSpecification"].(map[string]any); ok {
			set("price_amount", spec["price"], scalarJSONLD)
			set("price_currency", spec["priceCurrency"], scalarJSONLD)
		}
	}
	return out
}

func firstOffer(v any) map[string]any {
	switch t := v.(type) {
	case map[string]any:
		if inner, ok := t["offers"]; ok && t["price"] == nil && t["lowPrice"] == nil {
			if o := firstOffer(inner); o != nil {
				return o
			}
		}
		return t
	case []any:
		for _, e := range t {
			if o := firstOffer(e); o != nil {
				return o
			}
		}
	}
	return nil
}

// metaValues reads OpenGraph-style properties and plain meta/microdata tags.
func metaValues(doc *goquery.Document) (og, meta map[string]string) {
	og, meta = make(map[string]string), make(map[string]string)
	ogMap := map[string]string{
		"og:title": "title", "og:description": "description", "og:image:secure_url": "main_image_url",
		"og:image": "main_image_url", "og:image:url": "main_image_url", "og:url": "url", "og:site_name": "site_name",
		"product:price:amount": "price_amount", "og:price:amount": "price_amount",
		"product:price:currency": "price_currency", "og:price:currency": "price_currency",
		"product:availability": "availability", "og:availability": "availability", "product:brand": "brand",
		"article:published_time": "published_at", "article:modified_time": "modified_at", "og:updated_time": "modified_at",
		"article:author": "author", "book:author": "author",
	}
	metaMap := map[string]string{
		"description": "description", "author": "author", "twitter:title": "title", "twitter:description": "description",
		"twitter:image": "main_image_url", "twitter:image:src": "main_image_url", "date": "published_at",
		"pubdate": "published_at", "publish-date": "published_at", "publish_date": "published_at",
		"dc.date.issued": "published_at", "dcterms.created": "published_at", "sailthru.date": "published_at",
		"parsely-pub-date": "published_at", "dc.creator": "author", "parsely-author": "author", "brand": "brand",
	}
	put := func(m map[string]string, field, v string) {
		if _, ok := m[field]; !ok && strings.TrimSpace(v) != "" {
			m[field] = v
			if field == "description" {
				m["description_short"] = v
			}
		}
	}
	doc.Find("meta").Each(func(_ int, s *goquery.Selection) {
		content, ok := s.Attr("content")
		if !ok {
			return
		}
		prop := strings.ToLower(strings.TrimSpace(s.AttrOr("property", "")))
		name := strings.ToLower(strings.TrimSpace(s.AttrOr("name", "")))
		if f, ok := ogMap[prop]; ok {
			put(og, f, content)
		} else if f, ok := ogMap[name]; ok {
			put(og, f, content)
		}
		if f, ok := metaMap[name]; ok {
			put(meta, f, content)
		}
		if ip := s.AttrOr("itemprop", ""); ip != "" {
			putItemprop(meta, ip, content, put)
		}
	})
	doc.Find("[itemprop]").Each(func(_ int, s *goquery.Selection) {
		if goquery.NodeName(s) == "meta" {
			return
		}
		v := s.AttrOr("content", "")
		if v == "" {
			v = s.AttrOr("datetime", s.AttrOr("href", s.AttrOr("src", s.Text())))
		}
		putItemprop(meta, s.AttrOr("itemprop", ""), v, put)
	})
	return og, meta
}

func putItemprop(m map[string]string, prop, v string, put func(map[string]string, string, string)) {
	f, ok := map[string]string{
		"name": "title", "headline": "title", "price": "price_amount", "pricecurrency": "price_currency",
		"availability": "availability", "brand": "brand", "image": "main_image_url", "description": "description",
		"datepublished": "published_at", "author": "author", "datemodified": "modified_at",
	}[strings.ToLower(prop)]
	if ok {
		put(m, f, v)
	}
}

var domPriceRE = regexp.MustCompile(`(US\$|[$€£¥₹])\s?(\d{1,3}(?:[,.\s]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)`)

// domValues is the last resort: the document structure and visible text.
func domValues(doc *goquery.Document) map[string]string {
	out := make(map[string]string)
	put := func(f, v string) {
		if _, ok := out[f]; !ok && strings.TrimSpace(v) != "" {
			out[f] = v
		}
	}
	put("title", doc.Find("h1").First().Text())
	put("title", doc.Find("title").First().Text())
	doc.Find("article p, main p, p").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if t := collapseSpace(s.Text()); len(strings.Fields(t)) >= 8 {
			put("description", t)
			put("description_short", t)
			return false
		}
		return true
	})
	if t, ok := doc.Find("time[datetime]").First().Attr("datetime"); ok {
		put("published_at", t)
	}
	put("url", doc.Find(`link[rel="canonical"]`).AttrOr("href", ""))
	put("author", doc.Find(`[rel="author"], .author, .byline`).First().Text())
	put("main_image_url", doc.Find("article img, main img, img").First().AttrOr("src", ""))
	put("language", doc.Find("html").AttrOr("lang", ""))
	body := collapseSpace(doc.Find("body").Text())
	if m := domPriceRE.FindStringSubmatch(body); m != nil {
		put("price_currency", m[1])
		put("price_amount", m[2])
	}
	lower := strings.ToLower(body)
	switch {
	case strings.Contains(lower, "out of stock") || strings.Contains(lower, "sold out"):
		put("availability", "out_of_stock")
	case strings.Contains(lower, "in stock"):
		put("availability", "in_stock")
	}
	return out
}
