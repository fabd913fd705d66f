package verify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// capCase is one output for one capability: fails names the check that
// must fail ("" means the report must pass).
type capCase struct {
	name  string
	id    string
	in    any
	out   any
	fails string
}

const (
	enLong = "The city council met on Tuesday evening to discuss the new public transport plan. Residents asked for more buses in the northern districts and safer bicycle lanes near the schools. The mayor promised to publish a detailed budget next month and to hold another meeting before the final vote in the spring."
	deLong = "Der Stadtrat traf sich am Dienstagabend, um den neuen Plan für den öffentlichen Nahverkehr zu besprechen. Die Bewohner forderten mehr Busse in den nördlichen Stadtteilen und sicherere Radwege in der Nähe der Schulen. Der Bürgermeister versprach, im nächsten Monat einen detaillierten Haushalt zu veröffentlichen und vor der endgültigen Abstimmung eine weitere Sitzung abzuhalten."
	itLong = "Il consiglio comunale si è riunito martedì sera per discutere il nuovo piano dei trasporti pubblici. I cittadini hanno chiesto più autobus nei quartieri settentrionali e piste ciclabili più sicure vicino alle scuole. Il sindaco ha promesso di pubblicare un bilancio dettagliato il mese prossimo e di organizzare un altro incontro prima del voto finale."
	jaLong = "市議会は火曜日の夜に集まり、新しい公共交通計画について話し合いました。住民たちは北部の地区にもっと多くのバスを走らせることと、学校の近くにより安全な自転車レーンを作ることを求めました。"
)

func imageCases(t *testing.T) []capCase {
	img := pngB64(t, gradient(32, 24))
	return []capCase{
		{"ok", "image.generate.photorealistic.png", obj{"prompt": "a cat", "width": 32, "height": 24}, obj{"image_b64": img, "width": 32, "height": 24}, ""},
		{"width as string", "image.generate.photorealistic.png", obj{"prompt": "a cat", "width": 32, "height": 24}, obj{"image_b64": img, "width": "32", "height": 24}, "output_schema"},
		{"not png", "image.generate.photorealistic.png", obj{"prompt": "a cat", "width": 32, "height": 24}, obj{"image_b64": "/9j/4AAQSkZJRgABAQ==", "width": 32, "height": 24}, "valid_png"},
		{"wrong size", "image.generate.photorealistic.png", obj{"prompt": "a cat", "width": 64, "height": 24}, obj{"image_b64": img, "width": 32, "height": 24}, "dimensions_match"},
		{"claims wrong size", "image.generate.photorealistic.png", obj{"prompt": "a cat", "width": 32, "height": 24}, obj{"image_b64": img, "width": 64, "height": 48}, "dimensions_match"},
		{"blank", "image.generate.photorealistic.png", obj{"prompt": "a cat", "width": 32, "height": 24}, obj{"image_b64": pngB64(t, uniform(32, 24, color.Gray{128})), "width": 32, "height": 24}, "not_blank"},

		{"ok", "image.generate.illustration.png", obj{"prompt": "a fox", "width": 32, "height": 24}, obj{"image_b64": img}, ""},
		{"all black", "image.generate.illustration.png", obj{"prompt": "a fox", "width": 32, "height": 24}, obj{"image_b64": pngB64(t, uniform(8, 8, color.Black))}, "not_black_or_white"},
		{"all white", "image.generate.illustration.png", obj{"prompt": "a fox", "width": 32, "height": 24}, obj{"image_b64": pngB64(t, uniform(8, 8, color.White))}, "not_black_or_white"},
		{"data uri", "image.generate.illustration.png", obj{"prompt": "a fox", "width": 32, "height": 24}, obj{"image_b64": "data:image/png;base64," + img}, "valid_png"},

		{"ok", "image.generate.illustration.svg", obj{"prompt": "a fox"}, obj{"svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0L10 10"/></svg>`}, ""},
		{"not xml", "image.generate.illustration.svg", obj{"prompt": "a fox"}, obj{"svg": `<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"></svg>`}, "valid_svg"},
		{"no namespace", "image.generate.illustration.svg", obj{"prompt": "a fox"}, obj{"svg": `<svg><path d="M0 0"/></svg>`}, "valid_svg"},
		{"no path", "image.generate.illustration.svg", obj{"prompt": "a fox"}, obj{"svg": `<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>`}, "has_path"},
		{"too many paths", "image.generate.illustration.svg", obj{"prompt": "a fox", "max_paths": 1}, obj{"svg": `<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/><path d="M1 1"/></svg>`}, "has_path"},

		{"ok", "image.edit.background-remove", obj{"image_b64": img}, obj{"image_b64": pngB64(t, translucent(32, 24)), "mask_b64": pngB64(t, mask(32, 24, false))}, ""},
		{"no alpha", "image.edit.background-remove", obj{"image_b64": img}, obj{"image_b64": pngB64(t, opaqueRGB(32, 24)), "mask_b64": pngB64(t, mask(32, 24, false))}, "has_alpha"},
		{"grey mask", "image.edit.background-remove", obj{"image_b64": img}, obj{"image_b64": pngB64(t, translucent(32, 24)), "mask_b64": pngB64(t, mask(32, 24, true))}, "mask_binary"},
		{"mask missing", "image.edit.background-remove", obj{"image_b64": img}, obj{"image_b64": pngB64(t, translucent(32, 24))}, "output_schema"},

		{"ok", "image.upscale.2x", obj{"image_b64": img}, obj{"image_b64": pngB64(t, gradient(64, 48))}, ""},
		{"4x instead of 2x", "image.upscale.2x", obj{"image_b64": img}, obj{"image_b64": pngB64(t, gradient(128, 96))}, "upscale_factor"},
		{"garbage", "image.upscale.2x", obj{"image_b64": img}, obj{"image_b64": "aGVsbG8="}, "valid_png"},
		{"ok", "image.upscale.4x", obj{"image_b64": img}, obj{"image_b64": pngB64(t, gradient(128, 96))}, ""},
		{"off by one", "image.upscale.4x", obj{"image_b64": img}, obj{"image_b64": pngB64(t, gradient(128, 95))}, "upscale_factor"},
		{"not base64", "image.upscale.4x", obj{"image_b64": img}, obj{"image_b64": "%%%"}, "valid_png"},
	}
}

func audioCases() []capCase {
	seg := func(s, e int) obj { return obj{"start_ms": s, "end_ms": e, "text": "hi"} }
	return []capCase{
		{"ok", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, obj{"language": "en", "segments": []obj{seg(0, 900), seg(900, 1500), seg(1200, 1800)}}, ""},
		{"overlap allowed by OR rule", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, obj{"language": "it", "segments": []obj{seg(0, 900), seg(500, 1500)}}, ""},
		{"language name", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, obj{"language": "English", "segments": []obj{seg(0, 900)}}, "language_code"},
		{"uppercase code", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, obj{"language": "EN", "segments": []obj{seg(0, 900)}}, "language_code"},
		{"hint ignored", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3", "language_hint": "de"}, obj{"language": "en", "segments": []obj{seg(0, 900)}}, "language_code"},
		{"no segments", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, obj{"language": "en", "segments": []obj{}}, "segments_non_empty"},
		{"goes back in time", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, obj{"language": "en", "segments": []obj{seg(1000, 2000), seg(500, 2500)}}, "timestamps_monotonic"},
		{"string ms", "audio.transcribe.json-with-timestamps", obj{"audio_url": "https://x/a.mp3"}, `{"language":"en","segments":[{"start_ms":"0","end_ms":1,"text":""}]}`, "output_schema"},

		{"ok", "audio.transcribe.de.text", obj{"audio_url": "https://x/a.mp3"}, obj{"text": deLong}, ""},
		{"empty", "audio.transcribe.de.text", obj{"audio_url": "https://x/a.mp3"}, obj{"text": "  "}, "non_empty"},
		{"wrong language", "audio.transcribe.de.text", obj{"audio_url": "https://x/a.mp3"}, obj{"text": enLong}, "language_detected"},

		{"ok", "audio.generate-speech.alloy.mp3", obj{"text": "hello"}, obj{"audio_b64": mp3B64(40), "duration_ms": 1044}, ""},
		{"wav", "audio.generate-speech.alloy.mp3", obj{"text": "hello"}, obj{"audio_b64": b64(wavBytes()), "duration_ms": 1000}, "valid_mp3"},
		{"random bytes", "audio.generate-speech.alloy.mp3", obj{"text": "hello"}, obj{"audio_b64": b64([]byte(strings.Repeat("not audio at all ", 100))), "duration_ms": 1000}, "valid_mp3"},
		{"zero duration", "audio.generate-speech.alloy.mp3", obj{"text": "hello"}, obj{"audio_b64": mp3B64(40), "duration_ms": 0}, "duration_positive"},

		{"ok", "audio.translate.en.ja", obj{"audio_url": "https://x/a.mp3"}, obj{"text": jaLong}, ""},
		{"empty", "audio.translate.en.ja", obj{"audio_url": "https://x/a.mp3"}, obj{"text": ""}, "non_empty"},
		{"source language", "audio.translate.en.ja", obj{"audio_url": "https://x/a.mp3"}, obj{"text": enLong}, "language_detected"},
	}
}

func textCases() []capCase {
	in100 := words(100, "word")
	return []capCase{
		{"ok", "text.translate.en.de.fluent", obj{"text": enLong}, obj{"text": deLong}, ""},
		{"empty", "text.translate.en.de.fluent", obj{"text": enLong}, obj{"text": ""}, "non_empty"},
		{"too short", "text.translate.en.de.fluent", obj{"text": enLong}, obj{"text": "Der Stadtrat traf sich."}, "length_ratio"},
		{"untranslated", "text.translate.en.de.fluent", obj{"text": enLong}, obj{"text": enLong}, "language_detected"},
		{"ok", "text.translate.it.ja.business", obj{"text": itLong}, obj{"text": jaLong}, ""},

		{"ok", "text.summarize.short", obj{"text": in100}, obj{"summary": words(20, "short")}, ""},
		{"empty", "text.summarize.short", obj{"text": in100}, obj{"summary": ""}, "non_empty"},
		{"too long", "text.summarize.short", obj{"text": in100}, obj{"summary": words(21, "long")}, "word_count_ratio"},
		{"ok", "text.summarize.medium", obj{"text": in100}, obj{"summary": words(25, "mid")}, ""},
		{"too short", "text.summarize.medium", obj{"text": in100}, obj{"summary": words(5, "mid")}, "word_count_ratio"},
		{"not a string", "text.summarize.medium", obj{"text": in100}, obj{"summary": 25}, "output_schema"},
		{"ok", "text.summarize.long", obj{"text": in100}, obj{"summary": words(40, "long")}, ""},
		{"too long", "text.summarize.long", obj{"text": in100}, obj{"summary": words(61, "long")}, "word_count_ratio"},
		{"wrong field", "text.summarize.long", obj{"text": in100}, obj{"text": words(40, "long")}, "output_schema"},

		{"ok", "text.rewrite.formal", obj{"text": "hey can u send it"}, obj{"text": "Could you please send it?"}, ""},
		{"empty", "text.rewrite.formal", obj{"text": "hey can u send it"}, obj{"text": ""}, "non_empty"},
		{"bloated", "text.rewrite.formal", obj{"text": "hey can u send it"}, obj{"text": strings.Repeat("Would you be so kind as to send it? ", 3)}, "length_ratio"},
		{"ok", "text.rewrite.casual", obj{"text": "Could you please send it?"}, obj{"text": "hey can u send it"}, ""},
		{"blank", "text.rewrite.casual", obj{"text": "Could you please send it?"}, obj{"text": "\n\t"}, "non_empty"},
		{"null", "text.rewrite.casual", obj{"text": "Could you please send it?"}, obj{"text": nil}, "output_schema"},

		{"ok", "text.expand.3", obj{"text": "Cats sleep a lot."}, obj{"text": "Cats sleep a lot: often twelve to sixteen hours a day."}, ""},
		{"not expanded", "text.expand.3", obj{"text": "Cats sleep a lot."}, obj{"text": "Cats sleep a great deal."}, "length_ratio"},
		{"missing text", "text.expand.3", obj{"text": "Cats sleep a lot."}, obj{}, "output_schema"},
	}
}

func codeCases() []capCase {
	return []capCase{
		{"ok", "code.generate.python.script", obj{"task": "print hi"}, obj{"code": "print('hi')\n", "deps": []string{}}, ""},
		{"empty", "code.generate.python.script", obj{"task": "print hi"}, obj{"code": ""}, "non_empty"},
		{"syntax error", "code.generate.python.script", obj{"task": "print hi"}, obj{"code": "def f(:\n  pass\n"}, "parses"},
		{"ok", "code.generate.rust.script", obj{"task": "print hi"}, obj{"code": "fn main() { println!(\"hi\"); }"}, ""},
		{"ok", "code.generate.go.script", obj{"task": "print hi"}, obj{"code": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n"}, ""},
		{"go syntax", "code.generate.go.script", obj{"task": "print hi"}, obj{"code": "package main\nfunc main() { fmt.Println(\"hi\" }\n"}, "parses"},

		{"ok", "code.generate.python.function", obj{"signature": "def add(a: int, b: int) -> int", "behavior": "sum"}, obj{"code": "def add(a: int, b: int) -> int:\n    return a + b\n"}, ""},
		{"wrong params", "code.generate.python.function", obj{"signature": "def add(a, b)", "behavior": "sum"}, obj{"code": "def add(x, y):\n    return x + y\n"}, "matches_signature"},
		{"wrong name", "code.generate.python.function", obj{"signature": "def add(a, b)", "behavior": "sum"}, obj{"code": "def plus(a, b):\n    return a + b\n"}, "matches_signature"},
		{"empty body", "code.generate.python.function", obj{"signature": "def add(a, b)", "behavior": "sum"}, obj{"code": "def add(a, b):\n"}, "parses"},
		{"ok", "code.generate.java.function", obj{"signature": "public static int add(int a, int b)", "behavior": "sum"}, obj{"code": "class M { public static int add(int a, int b) { return a + b; } }"}, ""},
		{"ok", "code.generate.go.function", obj{"signature": "func Add(a, b int) int", "behavior": "sum"}, obj{"code": "func Add(a, b int) int { return a + b }"}, ""},
		{"go wrong params", "code.generate.go.function", obj{"signature": "func Add(a, b int) int", "behavior": "sum"}, obj{"code": "func Add(a int) int { return a }"}, "matches_signature"},

		{"ok", "code.review.python", obj{"code": "x = 1\ny = 2\n"}, obj{"findings": []obj{{"severity": "low", "line": 2, "message": "unused"}}}, ""},
		{"no findings is fine", "code.review.python", obj{"code": "x = 1\n"}, obj{"findings": []obj{}}, ""},
		{"line out of range", "code.review.python", obj{"code": "x = 1\ny = 2\n"}, obj{"findings": []obj{{"severity": "low", "line": 7, "message": "unused"}}}, "finding_lines"},
		{"bad severity", "code.review.python", obj{"code": "x = 1\n"}, obj{"findings": []obj{{"severity": "urgent", "line": 1, "message": "x"}}}, "output_schema"},

		{"ok", "code.test.python", obj{"code": "def add(a, b):\n    return a + b\n", "test_framework": "pytest"}, obj{"tests": "from m import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"}, ""},
		{"unrelated tests", "code.test.python", obj{"code": "def add(a, b):\n    return a + b\n", "test_framework": "pytest"}, obj{"tests": "def test_nothing():\n    assert True\n"}, "references_input_symbols"},
		{"tests do not parse", "code.test.python", obj{"code": "def add(a, b):\n    return a + b\n", "test_framework": "pytest"}, obj{"tests": "def test_add(:\n    assert add(1, 2) == 3\n"}, "parses"},

		{"ok", "code.translate.python.javascript", obj{"code": "def add(a, b):\n    return a + b\n"}, obj{"code": "function add(a, b) { return a + b; }"}, ""},
		{"still python", "code.translate.python.javascript", obj{"code": "def add(a, b):\n    return a + b\n"}, obj{"code": "def add(a, b):\n    return a + b\n"}, "parses"},
		{"code not string", "code.translate.python.javascript", obj{"code": "x = 1"}, obj{"code": []string{"x"}}, "output_schema"},

		{"ok", "code.execute.sandboxed", obj{"code": "print(1)"}, obj{"stdout": "1\n", "stderr": "", "exit_code": 0, "duration_ms": 40, "truncated": false}, ""},
		{"timeout exit", "code.execute.sandboxed", obj{"code": "while True: pass", "timeout_ms": 100}, obj{"stdout": "", "stderr": "", "exit_code": 124, "duration_ms": 1050, "truncated": false}, ""},
		{"exit code string", "code.execute.sandboxed", obj{"code": "print(1)"}, obj{"stdout": "1\n", "stderr": "", "exit_code": "0", "duration_ms": 40, "truncated": false}, "output_schema"},
		{"sys.exit(3)", "code.execute.sandboxed", obj{"code": "import sys; sys.exit(3)"}, obj{"stdout": "", "stderr": "", "exit_code": 3, "duration_ms": 40, "truncated": false}, ""},
		{"exit code 300", "code.execute.sandboxed", obj{"code": "print(1)"}, obj{"stdout": "", "stderr": "", "exit_code": 300, "duration_ms": 40, "truncated": false}, "exit_code"},
		{"over timeout", "code.execute.sandboxed", obj{"code": "print(1)", "timeout_ms": 100}, obj{"stdout": "", "stderr": "", "exit_code": 124, "duration_ms": 5000, "truncated": false}, "duration_within_timeout"},
	}
}

func dataCases() []capCase {
	now := time.Now().Unix()
	weather := obj{"location": "Paris", "temperature_c": 18.5, "conditions": "cloudy"}
	point := obj{"type": "Point", "coordinates": []float64{2.35, 48.86}}
	return []capCase{
		{"ok", "data.lookup.weather.json", obj{"location": "Paris, FR"}, weather, ""},
		{"missing temperature", "data.lookup.weather.json", obj{"location": "Paris, FR"}, obj{"location": "Paris", "conditions": "cloudy"}, "required_fields"},
		{"temperature string", "data.lookup.weather.json", obj{"location": "Paris, FR"}, obj{"location": "Paris", "temperature_c": "18", "conditions": "cloudy"}, "output_schema"},
		{"ok", "data.lookup.weather.geojson", obj{"location": "Paris"}, obj{"type": "Feature", "geometry": point, "properties": weather}, ""},
		{"ok collection", "data.lookup.weather.geojson", obj{"location": "Paris"}, obj{"type": "FeatureCollection", "features": []obj{{"type": "Feature", "geometry": point, "properties": weather}}}, ""},
		{"lat lon swapped", "data.lookup.weather.geojson", obj{"location": "Paris"}, obj{"type": "Feature", "geometry": obj{"type": "Point", "coordinates": []float64{48.86, 182}}, "properties": weather}, "valid_format"},
		{"not geojson", "data.lookup.weather.geojson", obj{"location": "Paris"}, obj{"type": "Weather", "properties": weather}, "valid_format"},
		{"properties lack fields", "data.lookup.weather.geojson", obj{"location": "Paris"}, obj{"type": "Feature", "geometry": point, "properties": obj{"location": "Paris"}}, "required_fields"},
		{"ok", "data.lookup.weather.summary-text", obj{"location": "Paris, FR"}, obj{"summary": "Paris: cloudy, 18 °C, light wind."}, ""},
		{"no temperature", "data.lookup.weather.summary-text", obj{"location": "Paris, FR"}, obj{"summary": "Paris: cloudy with light wind."}, "required_fields"},
		{"empty", "data.lookup.weather.summary-text", obj{"location": "Paris, FR"}, obj{"summary": ""}, "valid_format"},

		{"ok", "data.lookup.web-search", obj{"query": "go", "limit": 2}, obj{"results": []obj{{"url": "https://go.dev/", "title": "Go", "snippet": "The Go language"}}}, ""},
		{"relative url", "data.lookup.web-search", obj{"query": "go"}, obj{"results": []obj{{"url": "/doc", "title": "Go", "snippet": "x"}}}, "urls_well_formed"},
		{"over limit", "data.lookup.web-search", obj{"query": "go", "limit": 1}, obj{"results": []obj{{"url": "https://a.dev", "title": "a", "snippet": "a"}, {"url": "https://b.dev", "title": "b", "snippet": "b"}}}, "result_limit"},
		{"results not array", "data.lookup.web-search", obj{"query": "go"}, obj{"results": "https://go.dev"}, "output_schema"},

		{"ok", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"title", "price_currency", "price_amount", "main_image_url", "availability", "published_at"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"title": "Lamp", "price_currency": "EUR", "price_amount": 19.9, "main_image_url": "https://shop.example/l.jpg", "availability": "in_stock", "published_at": nil}, "confidence": 0.9, "extracted_at": "2026-01-31T12:00:00Z"}, ""},
		{"field missing", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"title", "brand"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"title": "Lamp"}, "confidence": 0.9, "extracted_at": "2026-01-31T12:00:00Z"}, "fields_present"},
		{"bad currency", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"price_currency"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"price_currency": "EURO"}, "confidence": 0.9, "extracted_at": "2026-01-31T12:00:00Z"}, "currency_code"},
		{"http image", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"main_image_url"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"main_image_url": "http://shop.example/l.jpg"}, "confidence": 0.9, "extracted_at": "2026-01-31T12:00:00Z"}, "https_urls"},
		{"amount with separator", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"price_amount"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"price_amount": "1,299.00"}, "confidence": 0.9, "extracted_at": "2026-01-31T12:00:00Z"}, "field_conventions"},
		{"confidence above 1", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"title"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"title": "Lamp"}, "confidence": 1.5, "extracted_at": "2026-01-31T12:00:00Z"}, "confidence_range"},
		{"bad timestamp", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"title"}},
			obj{"url": "https://shop.example/p/1", "extracted": obj{"title": "Lamp"}, "confidence": 0.5, "extracted_at": "31/01/2026"}, "extracted_at_iso8601"},
		{"url not echoed", "data.extract.from-url", obj{"url": "https://shop.example/p/1", "fields": []string{"title"}},
			obj{"url": "https://other.example/", "extracted": obj{"title": "Lamp"}, "confidence": 0.5, "extracted_at": "2026-01-31"}, "url_echo"},

		{"ok json schema", "data.scrape.example.com.json", obj{"url": "https://example.com/", "schema": obj{"type": "object", "required": []string{"title"}, "properties": obj{"title": obj{"type": "string"}}}}, obj{"data": obj{"title": "Example"}}, ""},
		{"ok field map", "data.scrape.example.com.json", obj{"url": "https://example.com/", "schema": obj{"title": "string"}}, obj{"data": obj{"title": "Example"}}, ""},
		{"field missing", "data.scrape.example.com.json", obj{"url": "https://example.com/", "schema": obj{"type": "object", "required": []string{"title"}}}, obj{"data": obj{"name": "Example"}}, "data_matches_schema"},
		{"data not object", "data.scrape.example.com.json", obj{"url": "https://example.com/"}, obj{"data": "Example"}, "output_schema"},

		{"ok", "data.lookup.stock-price", obj{"ticker": "ACME"}, obj{"ticker": "ACME", "price": 12.5, "currency": "USD", "timestamp": now - 60}, ""},
		{"ok millis", "data.lookup.stock-price", obj{"ticker": "ACME"}, obj{"ticker": "ACME", "price": 12.5, "currency": "USD", "timestamp": (now - 60) * 1000}, ""},
		{"zero price", "data.lookup.stock-price", obj{"ticker": "ACME"}, obj{"ticker": "ACME", "price": 0, "currency": "USD", "timestamp": now}, "price_positive"},
		{"stale", "data.lookup.stock-price", obj{"ticker": "ACME"}, obj{"ticker": "ACME", "price": 12.5, "currency": "USD", "timestamp": now - 30*86400}, "timestamp_recent"},
		{"future", "data.lookup.stock-price", obj{"ticker": "ACME"}, obj{"ticker": "ACME", "price": 12.5, "currency": "USD", "timestamp": now + 3600}, "timestamp_recent"},
		{"ok", "data.lookup.crypto-price", obj{"symbol": "BTC"}, obj{"symbol": "BTC", "price": 50000.5, "vs": "USD", "timestamp": now}, ""},
		{"negative", "data.lookup.crypto-price", obj{"symbol": "BTC"}, obj{"symbol": "BTC", "price": -1, "vs": "USD", "timestamp": now}, "price_positive"},
		{"timestamp float", "data.lookup.crypto-price", obj{"symbol": "BTC"}, obj{"symbol": "BTC", "price": 1, "vs": "USD", "timestamp": 1.5}, "output_schema"},
	}
}

func chartComputeCases(t *testing.T) []capCase {
	chartIn := obj{"data": []obj{{"x": "a", "y": 1}, {"x": 2, "y": 3}}, "chart_type": "bar", "width": 32, "height": 24}
	img := pngB64(t, gradient(32, 24))
	data := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	return []capCase{
		{"ok", "chart.generate.from-data", chartIn, obj{"image_b64": img, "width": 32, "height": 24, "chart_type": "bar"}, ""},
		{"wrong size", "chart.generate.from-data", chartIn, obj{"image_b64": pngB64(t, gradient(30, 24)), "width": 30, "height": 24, "chart_type": "bar"}, "dimensions_match"},
		{"blank", "chart.generate.from-data", chartIn, obj{"image_b64": pngB64(t, uniform(32, 24, color.White)), "width": 32, "height": 24, "chart_type": "bar"}, "not_blank"},
		{"empty series", "chart.generate.from-data", obj{"data": []obj{}, "chart_type": "line", "width": 32, "height": 24}, obj{"image_b64": img, "width": 32, "height": 24, "chart_type": "line"}, "data_non_empty"},
		{"not png", "chart.generate.from-data", chartIn, obj{"image_b64": b64([]byte("GIF89a....")), "width": 32, "height": 24, "chart_type": "bar"}, "valid_png"},

		{"ok", "compute.math.symbolic", obj{"expression": "d/dx x^3"}, obj{"result": "3*x^2"}, ""},
		{"ok equation", "compute.math.symbolic", obj{"expression": "solve x^2=4"}, obj{"result": "x = 2 or x == -2"}, ""},
		{"garbage", "compute.math.symbolic", obj{"expression": "x+x"}, obj{"result": "2*x +* ("}, "result_parses"},
		{"number not string", "compute.math.symbolic", obj{"expression": "1+1"}, obj{"result": 2}, "output_schema"},

		{"ok", "compute.math.numeric", obj{"expression": "pi", "precision": 2}, obj{"result": 3.14}, ""},
		{"ok exponent", "compute.math.numeric", obj{"expression": "1/3", "precision": 3}, obj{"result": json.Number("3.33e-1")}, ""},
		{"too precise", "compute.math.numeric", obj{"expression": "pi", "precision": 2}, obj{"result": 3.14159}, "precision_honored"},
		{"NaN string", "compute.math.numeric", obj{"expression": "0/0"}, obj{"result": "NaN"}, "output_schema"},

		{"ok", "compute.statistics.mean", obj{"data": data}, obj{"result": 5}, ""},
		{"wrong mean", "compute.statistics.mean", obj{"data": data}, obj{"result": 5.5}, "value_matches"},
		{"null", "compute.statistics.mean", obj{"data": data}, obj{"result": nil}, "output_schema"},
		{"ok", "compute.statistics.median", obj{"data": data}, obj{"result": 4.5}, ""},
		{"wrong median", "compute.statistics.median", obj{"data": data}, obj{"result": 5}, "value_matches"},
		{"ok population", "compute.statistics.variance", obj{"data": data}, obj{"result": 4}, ""},
		{"ok sample", "compute.statistics.variance", obj{"data": data}, obj{"result": 32.0 / 7}, ""},
		{"wrong variance", "compute.statistics.variance", obj{"data": data}, obj{"result": 2}, "value_matches"},
		{"ok", "compute.statistics.stddev", obj{"data": data}, obj{"result": 2}, ""},
		{"rounded", "compute.statistics.stddev", obj{"data": []float64{1, 2}}, obj{"result": 0.5}, ""},
		{"wrong stddev", "compute.statistics.stddev", obj{"data": data}, obj{"result": 4}, "value_matches"},
		{"ok", "compute.statistics.percentile-95", obj{"data": []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}}, obj{"result": 20}, ""},
		{"nearest rank", "compute.statistics.percentile-95", obj{"data": []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, obj{"result": 10}, "value_matches"},
		{"string", "compute.statistics.percentile-95", obj{"data": []float64{1}}, obj{"result": "1"}, "output_schema"},
	}
}

func embedClassifyCases() []capCase {
	vec := func(n int) []float64 { return make([]float64, n) }
	lbl := func(pairs ...any) obj {
		var ls []obj
		for i := 0; i < len(pairs); i += 2 {
			ls = append(ls, obj{"label": pairs[i], "confidence": pairs[i+1]})
		}
		return obj{"labels": ls}
	}
	profile := func(url, name, source string) obj {
		return obj{"profile": obj{"url": url, "name": name, "headline": "Engineer", "skills": []string{"go"}, "source": source}}
	}
	li := obj{"profile_url": "https://www.linkedin.com/in/jane-doe"}
	return []capCase{
		{"ok", "embed.text.text-embedding-3-small", obj{"text": "hi"}, obj{"vector": vec(1536), "dim": 1536}, ""},
		{"short vector", "embed.text.text-embedding-3-small", obj{"text": "hi"}, obj{"vector": vec(10), "dim": 1536}, "vector_length"},
		{"wrong model dim", "embed.text.text-embedding-3-small", obj{"text": "hi"}, obj{"vector": vec(768), "dim": 768}, "model_dimension"},
		{"ok", "embed.image.clip-vit-l-14", obj{"image_b64": "aGk="}, obj{"vector": vec(768), "dim": 768}, ""},
		{"length differs", "embed.image.clip-vit-l-14", obj{"image_b64": "aGk="}, obj{"vector": vec(3), "dim": 768}, "vector_length"},
		{"strings in vector", "embed.image.clip-vit-l-14", obj{"image_b64": "aGk="}, obj{"vector": []string{"0.1"}, "dim": 1}, "output_schema"},

		{"ok", "classify.image.coco-categories", obj{"image_b64": "aGk="}, lbl("cat", 0.7, "Dog", 0.3), ""},
		{"ok imagenet synonym", "classify.image.imagenet-1k", obj{"image_b64": "aGk="}, lbl("tabby", 0.6, "Egyptian cat", 0.4), ""},
		{"ok safe-content", "classify.image.safe-content", obj{"image_b64": "aGk="}, lbl("safe", 0.99, "suggestive", 0.01), ""},
		{"not normalized", "classify.image.coco-categories", obj{"image_b64": "aGk="}, lbl("cat", 0.7, "dog", 0.7), "confidence_sum"},
		{"unknown label", "classify.image.coco-categories", obj{"image_b64": "aGk="}, lbl("tabby", 1.0), "labels_in_taxonomy"},
		{"negative confidence", "classify.image.imagenet-1k", obj{"image_b64": "aGk="}, lbl("tabby", 1.5, "tench", -0.5), "confidence_sum"},

		{"ok", "classify.text.topics", obj{"text": "stocks fell"}, lbl("finance", 0.8, "sports", 0.205), ""},
		{"sum off", "classify.text.topics", obj{"text": "stocks fell"}, lbl("finance", 0.8, "sports", 0.1), "confidence_sum"},
		{"confidence string", "classify.text.topics", obj{"text": "stocks fell"}, lbl("finance", "0.8"), "output_schema"},

		{"ok", "classify.text.sentiment", obj{"text": "great"}, obj{"sentiment": "positive", "confidence": 0.93}, ""},
		{"bad enum", "classify.text.sentiment", obj{"text": "great"}, obj{"sentiment": "POSITIVE", "confidence": 0.93}, "sentiment_value"},
		{"percent confidence", "classify.text.sentiment", obj{"text": "great"}, obj{"sentiment": "positive", "confidence": 93}, "confidence_range"},
		{"ok", "classify.text.toxicity", obj{"text": "hello"}, obj{"toxic": false, "confidence": 0.1}, ""},
		{"confidence out of range", "classify.text.toxicity", obj{"text": "hello"}, obj{"toxic": false, "confidence": -0.1}, "confidence_range"},
		{"toxic as string", "classify.text.toxicity", obj{"text": "hello"}, obj{"toxic": "no", "confidence": 0.1}, "output_schema"},

		{"ok", "research.linkedin.profile.enrich", li, profile("https://www.linkedin.com/in/jane-doe", "Jane Doe", "proxycurl"), ""},
		{"no name", "research.linkedin.profile.enrich", li, profile("https://www.linkedin.com/in/jane-doe", "", "apify"), "profile_fields"},
		{"unknown source", "research.linkedin.profile.enrich", li, profile("https://www.linkedin.com/in/jane-doe", "Jane Doe", "my-scraper"), "source_known"},
		{"profile not object", "research.linkedin.profile.enrich", li, obj{"profile": "Jane"}, "output_schema"},
	}
}

func allCases(t *testing.T) []capCase {
	var cases []capCase
	cases = append(cases, imageCases(t)...)
	cases = append(cases, audioCases()...)
	cases = append(cases, textCases()...)
	cases = append(cases, codeCases()...)
	cases = append(cases, dataCases()...)
	cases = append(cases, chartComputeCases(t)...)
	cases = append(cases, embedClassifyCases()...)
	return cases
}

func TestVerifyEveryCapability(t *testing.T) {
	for _, tc := range allCases(t) {
		t.Run(tc.id+"/"+tc.name, func(t *testing.T) {
			rep, err := verify.Verify(context.Background(), tc.id, mustJSON(t, tc.in), mustJSON(t, tc.out))
			require.NoError(t, err)
			require.Equal(t, tc.id, rep.Capability)
			if tc.fails == "" {
				require.True(t, rep.Passed, "%s", rep.Summary())
				return
			}
			require.False(t, rep.Passed)
			i := slices.IndexFunc(rep.Checks, func(c verify.Check) bool { return c.Name == tc.fails })
			require.GreaterOrEqual(t, i, 0, "check %s not in report: %s", tc.fails, rep.Summary())
			require.False(t, rep.Checks[i].Passed, "check %s passed: %s", tc.fails, rep.Summary())
			require.NotEmpty(t, rep.Checks[i].Detail)
		})
	}
}

// TestEveryFamilyHasPassingAndFailingCases holds the table above to the
// acceptance rule: per capability or family, one passing output and two
// failing ones that fail different named checks.
func TestEveryFamilyHasPassingAndFailingCases(t *testing.T) {
	passes := map[string]int{}
	failing := map[string]map[string]bool{}
	for _, tc := range allCases(t) {
		c, err := verify.Parse(tc.id)
		require.NoError(t, err, tc.id)
		if tc.fails == "" {
			passes[c.Template]++
			continue
		}
		if failing[c.Template] == nil {
			failing[c.Template] = map[string]bool{}
		}
		failing[c.Template][tc.fails] = true
	}
	for _, c := range verify.List() {
		if c.Custom {
			continue
		}
		require.Positive(t, passes[c.Template], "no passing case for %s", c.Template)
		require.GreaterOrEqual(t, len(failing[c.Template]), 2, "fewer than two distinct failing checks for %s: %v", c.Template, failing[c.Template])
	}
}

func TestVerifyErrors(t *testing.T) {
	ctx := context.Background()
	_, err := verify.Verify(ctx, "text.summarize.tiny", []byte(`{}`), []byte(`{}`))
	require.ErrorIs(t, err, verify.ErrUnknownCapability)
	_, err = verify.Verify(ctx, "Text.summarize.short", []byte(`{}`), []byte(`{}`))
	require.ErrorIs(t, err, verify.ErrInvalidID)
	_, err = verify.Verify(ctx, "text.summarize.short", []byte(`{"text":`), []byte(`{}`))
	require.ErrorIs(t, err, verify.ErrNotJSON)
	_, err = verify.Verify(ctx, "text.summarize.short", []byte(`{"text":"a"}`), []byte(`{} {}`))
	require.ErrorIs(t, err, verify.ErrNotJSON)

	rep, err := verify.Verify(ctx, "text.summarize.short", []byte(`{"text":"a b c"}`), []byte(`{"summary":5}`))
	require.NoError(t, err)
	require.False(t, rep.Passed)
	require.Equal(t, []string{"input_schema", "output_schema"}, checkNames(rep))
	require.Contains(t, rep.Checks[1].Detail, "/summary")

	big := []byte(fmt.Sprintf(`{"summary":"%s"}`, strings.Repeat("a", verify.MaxOutputSize)))
	rep, err = verify.Verify(ctx, "text.summarize.short", []byte(`{"text":"a b c"}`), big)
	require.NoError(t, err)
	require.False(t, rep.Passed)
	require.Contains(t, rep.Checks[0].Detail, "limit")
}

func checkNames(r verify.Report) []string {
	var out []string
	for _, c := range r.Checks {
		out = append(out, c.Name)
	}
	return out
}

func TestReportChecksMatchCapabilityChecks(t *testing.T) {
	for _, tc := range allCases(t) {
		if tc.fails != "" {
			continue
		}
		c, err := verify.Parse(tc.id)
		require.NoError(t, err)
		rep, err := verify.Verify(context.Background(), tc.id, mustJSON(t, tc.in), mustJSON(t, tc.out))
		require.NoError(t, err)
		require.Equal(t, c.Checks, checkNames(rep), tc.id)
	}
}
