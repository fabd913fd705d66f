// Package skillcard owns SkillCards (docs/specs/skillcard-spec.md, the
// ApeClaw SkillCard format): parsing with a size cap, validation that reports
// every problem with its JSON path, the content and version hashes (keccak256
// of stable JSON), the {slug}.v{version}.json file naming, and running a
// card's cli and http bindings as seller handlers.
//
// Its hashes use the project's one stable JSON encoding, which lives in
// package internal/canon with the signing of every wire message (StableJSON
// here is canon.JSON), so that a hash computed here matches the JavaScript
// stableJsonStringify of the spec byte for byte.
package skillcard
