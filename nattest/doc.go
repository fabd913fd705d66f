// Package nattest tests swarmwage across real network boundaries: its test
// builds a small internet out of Linux network namespaces, veth pairs and
// nftables masquerade, runs the real swarmwage binary in each namespace,
// and checks that a seller behind NAT gets a relay address, is found and
// hired by buyers on both sides of NATs, and is paid.
//
// The topology (addresses are picked at random from ranges the machine does
// not use, namespaces are named swnat-<pid>-<random>-<role>):
//
//	                public segment 198.20.X.0/24 (bridge in namespace "pub")
//	  ┌──────────────┬──────────────┬───────────────┬────────────────┐
//	relay .10      buyer-a .20    nat1 .101       nat2 .102        nat3 .103
//	bootstrap,     (public)       masquerade      masquerade       masquerade fully-random
//	relay service                  │ 198.18.Y/24   │ 198.19.Y/24    │ 198.18.Z/24
//	                              seller          buyer-b          buyer-c
//	                              (cone NAT)      (cone NAT)       (symmetric NAT)
//
// The public segment has no route into a home; each NAT drops what comes in
// unasked. nat1 and nat2 keep a host's port where they can, so hole punching
// (DCUtR) between the seller and buyer-b can work; nat3 maps every
// connection to a random port, so buyer-c reaches the seller only through
// the relay. The public segment uses addresses that libp2p counts as public
// (198.20.0.0/16, outside the benchmarking range 198.18.0.0/15 that it
// counts as unroutable): AutoNAT and hole punching only use public
// addresses. Nothing leaves the namespaces: none of them has a route out of
// the topology, and the root namespace gets no interface at all.
//
// The test runs as root (CI does) and installs nftables and conntrack with
// apt-get when nft or conntrack is missing; it does not skip. Every
// namespace (and with it every veth and nft rule) is removed when the test
// ends, also on failure, and namespaces left by an earlier run that was
// killed are removed at the start.
//
// Flags (after -args): -nat.tries=N repeats the measurement of hole punching
// N times (a fresh buyer-b daemon, its NAT mappings forgotten, each time; default 3,
// the closing note used 20), and -nat.v prints the daemons' logs.
package nattest
