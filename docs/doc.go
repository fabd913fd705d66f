// Package docs holds the specifications this node implements (specs/), its
// own wire protocol (protocol.md), the capability schemas (specs/schemas/)
// and the control API (api.md). Its tests check every vector in
// protocol.md and every schema file against the implementation, and every
// control-API route against api.md, so the documents cannot drift from the
// code.
package docs
