// Package docs holds the specifications this node implements (specs/) and
// its own wire protocol (protocol.md). Its test checks every vector in
// protocol.md against the implementation, so the document cannot drift
// from the code.
package docs
