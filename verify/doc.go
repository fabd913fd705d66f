// Package verify is the single source of truth for the swarmwage v0.1
// capability taxonomy: capability IDs and their naming rules, the templated
// families, the input and output JSON Schemas of every standard capability,
// and one programmatic verification function per capability.
//
// Specs: ../shared/spec/capability-taxonomy-v0.1.md (taxonomy, schemas,
// verification column) and ../shared/spec/wcp-capabilities.md (WCP IDs,
// reserved namespaces, tombstones).
package verify
