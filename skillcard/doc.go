// Package skillcard owns SkillCards (docs/specs/skillcard-spec.md, the
// ApeClaw SkillCard format): parsing with a size cap, validation that reports
// every problem with its JSON path, the content and version hashes (keccak256
// of stable JSON), the {slug}.v{version}.json file naming, and running a
// card's cli and http bindings as seller handlers.
//
// It also owns the project's one stable JSON encoding (StableJSON), which the
// node reuses for every signed wire object, so that a signature computed here
// matches the JavaScript stableJsonStringify of the spec byte for byte.
package skillcard
