// Package controlapi is the node's local control API as its callers see
// it: the wire documents (requests, answers and their JSON field names,
// which the CLI's --json output is), the error codes that carry an
// error's kind across HTTP, list paging with its opaque cursors, and the
// Go client (Dial, Client) that cmd, mcp, the gateways and demo use, and
// the server side: the routes and their handlers (Serve, Server), with the
// bearer token, the Host check, the body cap and the event streams. The
// server answers from a Backend, small interfaces of what the routes need,
// which a running node (*node.Node) meets; this package imports no part of
// package node.
//
// The list routes (GET /v1/jobs, GET /v1/escrow) answer one page at a
// time (?limit=, default 100, at most 1000, and ?cursor= from the previous
// page's next_cursor), so that no history is too long to list; job pages
// are summaries without inputs and outputs.
//
// A serving daemon keeps two files in its repo: URLFile with the API's
// URL and TokenFile with its bearer token (0600).
package controlapi
