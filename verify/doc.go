// Package verify is the single source of truth for the swarmwage v0.1
// capability taxonomy: capability IDs and their naming rules, the templated
// families and their allowed placeholder values, the input and output JSON
// Schemas of every standard capability, and one programmatic verification
// function per capability. A buyer runs Verify on its own machine before it
// releases escrow; a seller validates inputs with ValidateInput.
//
// Specs: docs/specs/capability-taxonomy-v0.1.md (taxonomy, schemas, the
// "Verification" column) and docs/specs/wcp-capabilities.md (WCP IDs,
// reserved namespaces, tombstones).
//
// # IDs
//
// CheckID applies the naming rules of an ID's namespace, one function per
// rule set, and names the failed rule in the error (IDError, wrapping
// ErrInvalidID): CheckTaxonomyName (<domain>.<action>[.<modifier>]*[.<format>],
// lowercase, dot-separated, segments of a-z, 0-9 and inner hyphens, a known
// domain, at most 128 characters), CheckCustomID (custom.<provider>.<capability>),
// CheckWCPID (cap.*, x.*, org.<name>.*: 2 to 4 segments, at most 64
// characters), CheckPublishable (reserved WCP namespaces), CheckPrefix (browse
// prefixes such as "text" or "text.translate") and Tombstone.Validate.
// Parse resolves an ID against the taxonomy and checks placeholder values
// ({lang}, {src} and {tgt} are the eleven ISO 639-1 codes the spec lists;
// {level}, {language}, {format}, {op} and {taxonomy} their spec sets;
// {factor} a whole number from 2 to 10; {model} a model of known dimension;
// {url} of data.scrape.{url}.json a host name such as example.com). custom.*
// and WCP IDs parse with Custom set: they have no standard schema and are
// verified against the seller's schema with VerifyWithSchema.
//
// Every function of the package is safe for concurrent use; the taxonomy
// and its compiled schemas are built once, on first use.
//
// # Reports
//
// Verify returns a Report of named checks, each {name, passed, detail}. Every
// standard capability runs input_schema and output_schema first (JSON Schema
// draft 2020-12, strict about types: an exit_code of "0" is not an integer),
// then the checks of its Verification column, listed in Capability.Checks and
// described by DescribeCheck. Checks that need an artefact that failed to
// decode are reported as failed with "not checked: ...". Verify returns an
// error only for a malformed or unknown ID, a custom capability, or an input
// or output that is not one JSON document; everything wrong with an output
// is a failed check whose detail tells the seller what to fix.
//
// # Definitions
//
// Length (text.translate, text.rewrite.formal, text.expand) is measured in
// characters, not words: Unicode code points after trimming surrounding
// whitespace, with East Asian wide and fullwidth characters (Han, kana,
// Hangul) counted twice, their display width, so that a faithful
// English-to-Chinese translation is not 0.25x "as long" (see TextLength).
// Word counts (text.summarize.*) count runs of letters and digits as one
// word and each Han or kana character as one word (see WordCount).
//
// Language detection (language_detected) decides Japanese, Chinese, Korean,
// Russian and Arabic by script and the Latin-script languages with
// whatlanggo's trigram model among all Latin-script languages it knows, so a
// Dutch text delivered for German fails. It is reliable from about twenty
// words; on five-word texts it is right about four times in five for the
// Latin-script languages (see the accuracy table in the report of issue 3).
//
// Integer timestamps are Unix seconds; a value above 1e11 (the year 5138 in
// seconds) is read as Unix milliseconds. "Recent" (timestamp_recent) means
// at most 96 hours old, so a stock's last close over a long weekend still
// counts, and at most 5 minutes ahead of the buyer's clock.
//
// compute.statistics.{op} recomputes the value from the input (Statistic):
// population variance and standard deviation (divide by n, numpy's default;
// gonum's default is the sample form), the median as the mean of the two
// middle values for even n, percentile-95 by linear interpolation with
// h = (n-1)*0.95 (numpy "linear", R type 7). The sample (n-1) variance and
// standard deviation are accepted too (AltStatistic): the spec does not say
// which one it means, both are standard library defaults, and a wrong
// computation matches neither. Results match within 1e-9 + 1e-6*|value|.
//
// Images: "file size < 10MB" is 10 MiB of PNG; images over 64 megapixels
// are rejected before decoding. "Not blank" means the luminance standard
// deviation is at least 1 (of 255), or the perceptual hash differs from a
// uniform image's. "Not all-black/white" allows channel values up to 16
// (black) and from 239 (white). A mask is binary when every pixel is pure
// black or pure white. MP3s must decode (go-mp3) and have most of their
// bytes in MPEG frames (frame scan), which a renamed WAV file does not.
// code "parses" uses go/parser for Go and tree-sitter for the other ten
// languages, counting ERROR and MISSING nodes and empty Python blocks as
// syntax errors. code.execute.sandboxed allows 1 s of grace over timeout_ms.
//
// Label lists shipped for classify.image.{taxonomy} (data/*.txt):
// coco-categories (80 COCO names) and imagenet-1k (1000 ILSVRC-2012
// classes, each synonym accepted), both from the TensorFlow.js models
// (Apache-2.0), and safe-content, a list defined here because the spec names
// it without labels. Labels compare case-insensitively.
package verify
