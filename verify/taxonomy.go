package verify

// This file is the v0.1 taxonomy table: one capSpec per row of the spec's
// tables, with its input and output JSON Schemas (draft 2020-12) and the
// names of the checks its verifier reports. Schemas are strict about types
// and required fields; value rules (ranges, enums with seller-facing
// explanations, cross-field rules) are named checks, so a failed output
// says which rule it broke. Unknown extra fields are allowed: within a
// major version capabilities only gain optional fields.

// Check names. Each is documented in checkDocs.
const (
	ckValidPNG          = "valid_png"
	ckDimensions        = "dimensions_match"
	ckFileSize          = "file_size"
	ckNotBlank          = "not_blank"
	ckNotBlackWhite     = "not_black_or_white"
	ckValidSVG          = "valid_svg"
	ckHasPath           = "has_path"
	ckHasAlpha          = "has_alpha"
	ckMaskBinary        = "mask_binary"
	ckUpscale           = "upscale_factor"
	ckLanguageCode      = "language_code"
	ckSegmentsNonEmpty  = "segments_non_empty"
	ckMonotonic         = "timestamps_monotonic"
	ckNonEmpty          = "non_empty"
	ckLanguageDetected  = "language_detected"
	ckValidMP3          = "valid_mp3"
	ckDuration          = "duration_positive"
	ckLengthRatio       = "length_ratio"
	ckWordCount         = "word_count_ratio"
	ckParses            = "parses"
	ckSignature         = "matches_signature"
	ckReferencesSymbols = "references_input_symbols"
	ckFindingLines      = "finding_lines"
	ckExitCode          = "exit_code"
	ckDurationTimeout   = "duration_within_timeout"
	ckValidFormat       = "valid_format"
	ckRequiredFields    = "required_fields"
	ckURLs              = "urls_well_formed"
	ckResultLimit       = "result_limit"
	ckFieldsPresent     = "fields_present"
	ckURLEcho           = "url_echo"
	ckCurrency          = "currency_code"
	ckHTTPSURLs         = "https_urls"
	ckFieldConventions  = "field_conventions"
	ckConfidenceRange   = "confidence_range"
	ckExtractedAt       = "extracted_at_iso8601"
	ckDataMatchesSchema = "data_matches_schema"
	ckPricePositive     = "price_positive"
	ckTimestampRecent   = "timestamp_recent"
	ckDataNonEmpty      = "data_non_empty"
	ckExpression        = "result_parses"
	ckPrecision         = "precision_honored"
	ckValueMatches      = "value_matches"
	ckVectorLength      = "vector_length"
	ckModelDimension    = "model_dimension"
	ckConfidenceSum     = "confidence_sum"
	ckLabelsInTaxonomy  = "labels_in_taxonomy"
	ckSentimentEnum     = "sentiment_value"
	ckProfileFields     = "profile_fields"
	ckSourceKnown       = "source_known"
)

// checkDocs says in one line what each check verifies (caps show).
var checkDocs = map[string]string{
	checkInputSchema:    "the input matches the capability's input JSON Schema",
	checkOutputSchema:   "the output matches the capability's output JSON Schema (types, required fields)",
	ckValidPNG:          "image_b64 is base64 of a PNG that decodes (at most 64 megapixels)",
	ckDimensions:        "the PNG's width and height equal the requested ones and those the output claims",
	ckFileSize:          "the decoded PNG is under 10 MiB",
	ckNotBlank:          "the image is not one uniform colour (luminance variance and perceptual hash)",
	ckNotBlackWhite:     "the image is not all black or all white",
	ckValidSVG:          "svg parses as XML with an <svg> root in the SVG namespace",
	ckHasPath:           "the SVG has at least one <path> (and at most max_paths when given)",
	ckHasAlpha:          "the PNG has an alpha channel",
	ckMaskBinary:        "mask_b64 is a PNG whose every pixel is pure black or pure white",
	ckUpscale:           "output dimensions are exactly the factor times the input's",
	ckLanguageCode:      "language is a lowercase ISO 639-1 code (equal to language_hint when given)",
	ckSegmentsNonEmpty:  "segments has at least one entry",
	ckMonotonic:         "each segment starts at or after the previous one's end or start, and ends at or after its own start",
	ckNonEmpty:          "the text is not empty or whitespace",
	ckLanguageDetected:  "the language detected in the text is the target language",
	ckValidMP3:          "audio_b64 is base64 of MPEG audio that decodes",
	ckDuration:          "the decoded duration and duration_ms are greater than zero",
	ckLengthRatio:       "the output length in characters is within the capability's ratio of the input's",
	ckWordCount:         "the summary's word count is within the capability's ratio of the input's",
	ckParses:            "the code is non-empty and parses without syntax errors in the language",
	ckSignature:         "the code defines a function with the signature's name and parameter names",
	ckReferencesSymbols: "the tests reference at least one symbol defined in the input code",
	ckFindingLines:      "every finding's line is within the input code",
	ckExitCode:          "exit_code is a process exit status, 0 to 255 (0 clean exit, 1 uncaught exception, 124 timeout, n from sys.exit(n))",
	ckDurationTimeout:   "duration_ms is within the effective timeout plus 1 s of grace",
	ckValidFormat:       "the output is valid in the declared format",
	ckRequiredFields:    "the format's required fields are present",
	ckURLs:              "every result URL is an absolute http(s) URL with a host",
	ckResultLimit:       "no more results than the requested limit",
	ckFieldsPresent:     "every requested field is a key of extracted (null allowed)",
	ckURLEcho:           "url echoes the input url",
	ckCurrency:          "price_currency is an ISO 4217 code",
	ckHTTPSURLs:         "every *_url field is a valid https:// URL",
	ckFieldConventions:  "price_amount >= 0, availability enum, description_short <= 280 characters, published_at ISO 8601",
	ckConfidenceRange:   "confidence is within [0, 1]",
	ckExtractedAt:       "extracted_at parses as an ISO 8601 timestamp",
	ckDataMatchesSchema: "data matches the schema given in the input",
	ckPricePositive:     "price is greater than zero",
	ckTimestampRecent:   "timestamp is within the last 96 hours and not more than 5 minutes ahead",
	ckDataNonEmpty:      "the input data series is not empty",
	ckExpression:        "result parses as an expression (or equation)",
	ckPrecision:         "result has no more decimal places than precision",
	ckValueMatches:      "result equals the statistic recomputed from the input data",
	ckVectorLength:      "length(vector) equals dim",
	ckModelDimension:    "dim equals the model's known dimension",
	ckConfidenceSum:     "every confidence is in [0, 1] and they sum to 1.0 within 0.01",
	ckLabelsInTaxonomy:  "every label is a label of the taxonomy",
	ckSentimentEnum:     "sentiment is positive, negative or neutral",
	ckProfileFields:     "profile.url and profile.name are non-empty strings",
	ckSourceKnown:       "profile.source names a known provenance",
	"decode":            "the documents decode into their Go types",
}

// DescribeCheck returns the one-line description of a check name.
func DescribeCheck(name string) string { return checkDocs[name] }

// Shared schema fragments.
const (
	schImageOnlyIn  = `{"type":"object","required":["image_b64"],"properties":{"image_b64":{"type":"string","minLength":1}}}`
	schImageOnlyOut = `{"type":"object","required":["image_b64"],"properties":{"image_b64":{"type":"string"}}}`
	schTextIn       = `{"type":"object","required":["text"],"properties":{"text":{"type":"string","minLength":1}}}`
	schTextOut      = `{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`
	schAudioURLIn   = `{"type":"object","required":["audio_url"],"properties":{"audio_url":{"type":"string","minLength":1}}}`
	schSummaryOut   = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`
	schCodeIn       = `{"type":"object","required":["code"],"properties":{"code":{"type":"string","minLength":1}}}`
	schCodeOut      = `{"type":"object","required":["code"],"properties":{"code":{"type":"string"}}}`
	schVectorOut    = `{"type":"object","required":["vector","dim"],"properties":{"vector":{"type":"array","items":{"type":"number"}},"dim":{"type":"integer"}}}`
	schLabelsOut    = `{"type":"object","required":["labels"],"properties":{"labels":{"type":"array","items":{"type":"object","required":["label","confidence"],"properties":{"label":{"type":"string"},"confidence":{"type":"number"}}}}}}`
	schDimension    = `{"type":"integer","minimum":1,"maximum":16384}`
)

const schWeatherFields = `"location":{"type":"string"},"date":{"type":"string"},"temperature_c":{"type":"number"},"conditions":{"type":"string"},"humidity_pct":{"type":"number"},"wind_kph":{"type":"number"}`

var (
	schWeatherJSON    = `{"type":"object","properties":{` + schWeatherFields + `}}`
	schWeatherGeoJSON = `{"type":"object","required":["type"],"properties":{"type":{"type":"string"},"geometry":{"type":"object"},"properties":{"type":"object","properties":{` + schWeatherFields + `}},"features":{"type":"array","items":{"type":"object"}}}}`
	schWeatherSummary = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`
)

func taxonomy() []*capSpec {
	return []*capSpec{
		// Image
		{
			template:    "image.generate.photorealistic.png",
			description: "generate a photorealistic PNG of the requested size",
			input:       `{"type":"object","required":["prompt","width","height"],"properties":{"prompt":{"type":"string","minLength":1},"width":` + schDimension + `,"height":` + schDimension + `,"seed":{"type":"integer"}}}`,
			output:      `{"type":"object","required":["image_b64","width","height"],"properties":{"image_b64":{"type":"string"},"width":{"type":"integer"},"height":{"type":"integer"}}}`,
			checks:      []string{ckValidPNG, ckDimensions, ckFileSize, ckNotBlank},
			verify:      verifyPhotorealistic,
		},
		{
			template:    "image.generate.illustration.png",
			description: "generate an illustration as PNG",
			input:       `{"type":"object","required":["prompt","width","height"],"properties":{"prompt":{"type":"string","minLength":1},"style":{"type":"string"},"width":` + schDimension + `,"height":` + schDimension + `}}`,
			output:      schImageOnlyOut,
			checks:      []string{ckValidPNG, ckNotBlackWhite},
			verify:      verifyIllustrationPNG,
		},
		{
			template:    "image.generate.illustration.svg",
			description: "generate an illustration as SVG",
			input:       `{"type":"object","required":["prompt"],"properties":{"prompt":{"type":"string","minLength":1},"max_paths":{"type":"integer","minimum":1}}}`,
			output:      `{"type":"object","required":["svg"],"properties":{"svg":{"type":"string"}}}`,
			checks:      []string{ckValidSVG, ckHasPath},
			verify:      verifySVG,
		},
		{
			template:    "image.edit.background-remove",
			description: "remove the background: a PNG with alpha and a binary mask",
			input:       schImageOnlyIn,
			output:      `{"type":"object","required":["image_b64","mask_b64"],"properties":{"image_b64":{"type":"string"},"mask_b64":{"type":"string"}}}`,
			checks:      []string{ckValidPNG, ckHasAlpha, ckMaskBinary},
			verify:      verifyBackgroundRemove,
		},
		{
			template:    "image.upscale.2x",
			description: "upscale an image to exactly twice its width and height",
			input:       schImageOnlyIn,
			output:      schImageOnlyOut,
			checks:      []string{ckValidPNG, ckUpscale},
			verify:      verifyUpscale(2),
		},
		{
			template:    "image.upscale.4x",
			description: "upscale an image to exactly four times its width and height",
			input:       schImageOnlyIn,
			output:      schImageOnlyOut,
			checks:      []string{ckValidPNG, ckUpscale},
			verify:      verifyUpscale(4),
		},

		// Audio
		{
			template:    "audio.transcribe.json-with-timestamps",
			description: "transcribe audio into timestamped segments",
			input:       `{"type":"object","required":["audio_url"],"properties":{"audio_url":{"type":"string","minLength":1},"language_hint":{"type":"string"}}}`,
			output:      `{"type":"object","required":["language","segments"],"properties":{"language":{"type":"string"},"segments":{"type":"array","items":{"type":"object","required":["start_ms","end_ms","text"],"properties":{"start_ms":{"type":"integer","minimum":0},"end_ms":{"type":"integer","minimum":0},"text":{"type":"string"}}}}}}`,
			checks:      []string{ckLanguageCode, ckSegmentsNonEmpty, ckMonotonic},
			verify:      verifyTranscribeTimestamps,
		},
		{
			template:    "audio.transcribe.{lang}.text",
			description: "transcribe audio in {lang} into plain text",
			params:      map[string]param{"lang": langParam()},
			input:       schAudioURLIn,
			output:      schTextOut,
			checks:      []string{ckNonEmpty, ckLanguageDetected},
			verify:      verifyTextInLanguage("text", "lang"),
		},
		{
			template:    "audio.generate-speech.{voice}.mp3",
			description: "speak the text with the seller's {voice}, as MP3",
			params:      map[string]param{"voice": {rule: "a voice name of the seller (a-z, 0-9, inner hyphens)", match: func(string) bool { return true }}},
			input:       schTextIn,
			output:      `{"type":"object","required":["audio_b64","duration_ms"],"properties":{"audio_b64":{"type":"string"},"duration_ms":{"type":"integer"}}}`,
			checks:      []string{ckValidMP3, ckDuration},
			verify:      verifySpeech,
		},
		{
			template:    "audio.translate.{src}.{tgt}",
			description: "translate speech in {src} into {tgt} text",
			params:      map[string]param{"src": langParam(), "tgt": langParam()},
			cross:       differ("src", "tgt"),
			input:       schAudioURLIn,
			output:      schTextOut,
			checks:      []string{ckNonEmpty, ckLanguageDetected},
			verify:      verifyTextInLanguage("text", "tgt"),
		},

		// Text
		{
			template:    "text.translate.{src}.{tgt}.{level}",
			description: "translate text from {src} to {tgt} in the {level} register",
			params:      map[string]param{"src": langParam(), "tgt": langParam(), "level": set(translateLevels)},
			cross:       differ("src", "tgt"),
			input:       schTextIn,
			output:      `{"type":"object","required":["text"],"properties":{"text":{"type":"string"},"detected_lang":{"type":"string"}}}`,
			checks:      []string{ckNonEmpty, ckLengthRatio, ckLanguageDetected},
			verify:      verifyTranslate,
		},
		{
			template:    "text.summarize.short",
			description: "summarize to at most 20% of the input's words",
			input:       schTextIn,
			output:      schSummaryOut,
			checks:      []string{ckNonEmpty, ckWordCount},
			verify:      verifySummary(0, 0.2, true),
		},
		{
			template:    "text.summarize.medium",
			description: "summarize to 10%-30% of the input's words",
			input:       schTextIn,
			output:      schSummaryOut,
			checks:      []string{ckWordCount},
			verify:      verifySummary(0.1, 0.3, false),
		},
		{
			template:    "text.summarize.long",
			description: "summarize to 25%-60% of the input's words",
			input:       schTextIn,
			output:      schSummaryOut,
			checks:      []string{ckWordCount},
			verify:      verifySummary(0.25, 0.6, false),
		},
		{
			template:    "text.rewrite.formal",
			description: "rewrite in a formal register",
			input:       schTextIn,
			output:      schTextOut,
			checks:      []string{ckNonEmpty, ckLengthRatio},
			verify:      verifyRewriteFormal,
		},
		{
			template:    "text.rewrite.casual",
			description: "rewrite in a casual register",
			input:       schTextIn,
			output:      schTextOut,
			checks:      []string{ckNonEmpty},
			verify:      verifyRewriteCasual,
		},
		{
			template:    "text.expand.{factor}",
			description: "expand the text to about {factor} times its length",
			params:      map[string]param{"factor": {rule: "a whole number from 2 to 10", match: isExpandFactor}},
			input:       schTextIn,
			output:      schTextOut,
			checks:      []string{ckLengthRatio},
			verify:      verifyExpand,
		},

		// Code
		{
			template:    "code.generate.{language}.script",
			description: "write a {language} script for the task",
			params:      map[string]param{"language": codeParam()},
			input:       `{"type":"object","required":["task"],"properties":{"task":{"type":"string","minLength":1},"context":{"type":"string"}}}`,
			output:      `{"type":"object","required":["code"],"properties":{"code":{"type":"string"},"deps":{"type":"array","items":{"type":"string"}}}}`,
			checks:      []string{ckNonEmpty, ckParses},
			verify:      verifyCodeScript,
		},
		{
			template:    "code.generate.{language}.function",
			description: "write a {language} function with the given signature",
			params:      map[string]param{"language": codeParam()},
			input:       `{"type":"object","required":["signature","behavior"],"properties":{"signature":{"type":"string","minLength":1},"behavior":{"type":"string","minLength":1}}}`,
			output:      schCodeOut,
			checks:      []string{ckParses, ckSignature},
			verify:      verifyCodeFunction,
		},
		{
			template:    "code.review.{language}",
			description: "review {language} code: findings with severity, line and message",
			params:      map[string]param{"language": codeParam()},
			input:       schCodeIn,
			output:      `{"type":"object","required":["findings"],"properties":{"findings":{"type":"array","items":{"type":"object","required":["severity","line","message"],"properties":{"severity":{"enum":["critical","high","medium","low","info","error","warning"]},"line":{"type":"integer"},"message":{"type":"string","minLength":1}}}}}}`,
			checks:      []string{ckFindingLines},
			verify:      verifyCodeReview,
		},
		{
			template:    "code.test.{language}",
			description: "write tests in {language} for the given code",
			params:      map[string]param{"language": codeParam()},
			input:       `{"type":"object","required":["code","test_framework"],"properties":{"code":{"type":"string","minLength":1},"test_framework":{"type":"string"}}}`,
			output:      `{"type":"object","required":["tests"],"properties":{"tests":{"type":"string"}}}`,
			checks:      []string{ckParses, ckReferencesSymbols},
			verify:      verifyCodeTest,
		},
		{
			template:    "code.translate.{src}.{tgt}",
			description: "translate code from {src} to {tgt}",
			params:      map[string]param{"src": codeParam(), "tgt": codeParam()},
			cross:       differ("src", "tgt"),
			input:       schCodeIn,
			output:      schCodeOut,
			checks:      []string{ckParses},
			verify:      verifyCodeTranslate,
		},
		{
			template:    "code.execute.sandboxed",
			description: "run Python or JavaScript in a WASM sandbox (no files, no network, bounded output, timeout)",
			input:       `{"type":"object","required":["code"],"properties":{"code":{"type":"string","minLength":1},"language":{"enum":["python","javascript"]},"stdin":{"type":"string"},"timeout_ms":{"type":"integer","minimum":1,"maximum":30000}}}`,
			output:      `{"type":"object","required":["stdout","stderr","exit_code","duration_ms","truncated"],"properties":{"stdout":{"type":"string"},"stderr":{"type":"string"},"exit_code":{"type":"integer"},"duration_ms":{"type":"integer","minimum":0},"truncated":{"type":"boolean"}}}`,
			checks:      []string{ckExitCode, ckDurationTimeout},
			verify:      verifyExecute,
		},

		// Data
		{
			template:    "data.lookup.weather.{format}",
			description: "weather for a location and date, as {format}",
			params:      map[string]param{"format": set(weatherFormats)},
			input:       `{"type":"object","required":["location"],"properties":{"location":{"type":"string","minLength":1},"date":{"type":"string"}}}`,
			output:      `{"anyOf":[` + schWeatherGeoJSON + `,` + schWeatherJSON + `,` + schWeatherSummary + `]}`,
			variant:     "format",
			outputBy:    map[string]string{"geojson": schWeatherGeoJSON, "json": schWeatherJSON, "summary-text": schWeatherSummary},
			checks:      []string{ckValidFormat, ckRequiredFields},
			verify:      verifyWeather,
		},
		{
			template:    "data.lookup.web-search",
			description: "web search results with url, title and snippet",
			input:       `{"type":"object","required":["query"],"properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1}}}`,
			output:      `{"type":"object","required":["results"],"properties":{"results":{"type":"array","items":{"type":"object","required":["url","title","snippet"],"properties":{"url":{"type":"string"},"title":{"type":"string"},"snippet":{"type":"string"}}}}}}`,
			checks:      []string{ckURLs, ckResultLimit},
			verify:      verifyWebSearch,
		},
		{
			template:    "data.extract.from-url",
			description: "fetch a URL and extract the requested fields as typed JSON",
			input:       `{"type":"object","required":["url","fields"],"properties":{"url":{"type":"string","pattern":"^https?://"},"fields":{"type":"array","minItems":1,"items":{"type":"string","minLength":1}},"max_response_kb":{"type":"integer","minimum":1,"maximum":4096}}}`,
			output:      `{"type":"object","required":["url","extracted","confidence","extracted_at"],"properties":{"url":{"type":"string"},"extracted":{"type":"object"},"confidence":{"type":"number"},"extracted_at":{"type":"string"}}}`,
			checks:      []string{ckFieldsPresent, ckURLEcho, ckCurrency, ckHTTPSURLs, ckFieldConventions, ckConfidenceRange, ckExtractedAt},
			verify:      verifyExtract,
		},
		{
			template:    "data.scrape.{url}.json",
			description: "scrape a page of the host {url} into JSON",
			params:      map[string]param{"url": {rule: "a lowercase host name such as example.com", match: hostRE.MatchString, multi: true}},
			input:       `{"type":"object","required":["url"],"properties":{"url":{"type":"string","pattern":"^https?://"},"schema":{"type":"object"}}}`,
			output:      `{"type":"object","required":["data"],"properties":{"data":{"type":"object"}}}`,
			checks:      []string{ckDataMatchesSchema},
			verify:      verifyScrape,
		},
		{
			template:    "data.lookup.stock-price",
			description: "latest price of a stock ticker",
			input:       `{"type":"object","required":["ticker"],"properties":{"ticker":{"type":"string","minLength":1}}}`,
			output:      `{"type":"object","required":["ticker","price","currency","timestamp"],"properties":{"ticker":{"type":"string"},"price":{"type":"number"},"currency":{"type":"string"},"timestamp":{"type":"integer"}}}`,
			checks:      []string{ckPricePositive, ckTimestampRecent},
			verify:      verifyStockPrice,
		},
		{
			template:    "data.lookup.crypto-price",
			description: "latest price of a crypto asset",
			input:       `{"type":"object","required":["symbol"],"properties":{"symbol":{"type":"string","minLength":1},"vs":{"type":"string"}}}`,
			output:      `{"type":"object","required":["symbol","price","vs","timestamp"],"properties":{"symbol":{"type":"string"},"price":{"type":"number"},"vs":{"type":"string"},"timestamp":{"type":"integer"}}}`,
			checks:      []string{ckPricePositive},
			verify:      verifyCryptoPrice,
		},

		// Chart
		{
			template:    "chart.generate.from-data",
			description: "render a bar, line or pie chart of the data as PNG",
			input:       `{"type":"object","required":["data","chart_type","width","height"],"properties":{"title":{"type":"string"},"data":{"type":"array","items":{"type":"object","required":["x","y"],"properties":{"x":{"type":["string","number"]},"y":{"type":"number"}}}},"chart_type":{"enum":["bar","line","pie"]},"width":` + schDimension + `,"height":` + schDimension + `,"x_label":{"type":"string"},"y_label":{"type":"string"},"theme":{"enum":["light","dark"]}}}`,
			output:      `{"type":"object","required":["image_b64","width","height","chart_type"],"properties":{"image_b64":{"type":"string"},"width":{"type":"integer"},"height":{"type":"integer"},"chart_type":{"type":"string"}}}`,
			checks:      []string{ckValidPNG, ckDimensions, ckDataNonEmpty, ckNotBlank},
			verify:      verifyChart,
		},

		// Compute
		{
			template:    "compute.math.symbolic",
			description: "simplify or transform an expression symbolically",
			input:       `{"type":"object","required":["expression"],"properties":{"expression":{"type":"string","minLength":1},"vars":{"type":"object"}}}`,
			output:      `{"type":"object","required":["result"],"properties":{"result":{"type":"string"},"latex":{"type":"string"}}}`,
			checks:      []string{ckExpression},
			verify:      verifySymbolic,
		},
		{
			template:    "compute.math.numeric",
			description: "evaluate an expression numerically",
			input:       `{"type":"object","required":["expression"],"properties":{"expression":{"type":"string","minLength":1},"vars":{"type":"object"},"precision":{"type":"integer","minimum":0,"maximum":17}}}`,
			output:      `{"type":"object","required":["result"],"properties":{"result":{"type":"number"}}}`,
			checks:      []string{ckPrecision},
			verify:      verifyNumeric,
		},
		{
			template:    "compute.statistics.{op}",
			description: "compute the {op} of a number series",
			params:      map[string]param{"op": set(statisticsOps)},
			input:       `{"type":"object","required":["data"],"properties":{"data":{"type":"array","minItems":1,"items":{"type":"number"}}}}`,
			output:      `{"type":"object","required":["result"],"properties":{"result":{"type":"number"}}}`,
			checks:      []string{ckValueMatches},
			verify:      verifyStatistics,
		},

		// Embed
		{
			template:    "embed.text.{model}",
			description: "embed text with {model}",
			params:      map[string]param{"model": set(mapKeys(textEmbedDims))},
			input:       schTextIn,
			output:      schVectorOut,
			checks:      []string{ckVectorLength, ckModelDimension},
			verify:      verifyEmbedText,
		},
		{
			template:    "embed.image.{model}",
			description: "embed an image with {model}",
			params:      map[string]param{"model": set(mapKeys(imageEmbedDims))},
			input:       schImageOnlyIn,
			output:      schVectorOut,
			checks:      []string{ckVectorLength},
			verify:      verifyEmbedImage,
		},

		// Classify
		{
			template:    "classify.image.{taxonomy}",
			description: "classify an image with the labels of {taxonomy}",
			params:      map[string]param{"taxonomy": set(imageTaxonomies)},
			input:       schImageOnlyIn,
			output:      schLabelsOut,
			checks:      []string{ckConfidenceSum, ckLabelsInTaxonomy},
			verify:      verifyClassifyImage,
		},
		{
			template:    "classify.text.sentiment",
			description: "sentiment of a text: positive, negative or neutral",
			input:       schTextIn,
			output:      `{"type":"object","required":["sentiment","confidence"],"properties":{"sentiment":{"type":"string"},"confidence":{"type":"number"}}}`,
			checks:      []string{ckSentimentEnum, ckConfidenceRange},
			verify:      verifySentiment,
		},
		{
			template:    "classify.text.toxicity",
			description: "whether a text is toxic, with confidence",
			input:       schTextIn,
			output:      `{"type":"object","required":["toxic","confidence"],"properties":{"toxic":{"type":"boolean"},"confidence":{"type":"number"}}}`,
			checks:      []string{ckConfidenceRange},
			verify:      verifyToxicity,
		},
		{
			template:    "classify.text.{taxonomy}",
			description: "classify a text with the labels of the seller's {taxonomy}",
			params:      map[string]param{"taxonomy": {rule: "a taxonomy name of the seller (a-z, 0-9, inner hyphens)", match: func(string) bool { return true }}},
			input:       schTextIn,
			output:      schLabelsOut,
			checks:      []string{ckConfidenceSum},
			verify:      verifyClassifyText,
		},

		// Research
		{
			template:    "research.linkedin.profile.enrich",
			description: "enrich a LinkedIn profile URL with public profile data and its provenance",
			input:       `{"type":"object","required":["profile_url"],"properties":{"profile_url":{"type":"string","pattern":"^https://(www\\.)?linkedin\\.com/in/[^/?#\\s]+/?$"}}}`,
			output:      `{"type":"object","required":["profile"],"properties":{"profile":{"type":"object","properties":{"url":{"type":"string"},"name":{"type":"string"},"headline":{"type":["string","null"]},"location":{"type":["string","null"]},"current_position":{"type":["string","null"]},"company":{"type":["string","null"]},"summary":{"type":["string","null"]},"skills":{"type":["array","null"],"items":{"type":"string"}},"source":{"type":"string"}}}}}`,
			checks:      []string{ckProfileFields, ckSourceKnown},
			verify:      verifyLinkedIn,
		},
	}
}
