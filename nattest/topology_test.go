package nattest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nsPrefix starts the name of every namespace this package creates:
// swnat-<pid>-<random>-<role>. The pid tells a live run's namespaces from
// those of a run that was killed.
const nsPrefix = "swnat-"

// cmdTimeout bounds one ip, nft or conntrack command.
const cmdTimeout = 30 * time.Second

// NAT kinds of a home router.
const (
	// coneNAT keeps a host's source port where it can (Linux masquerade):
	// one mapping per host port whatever the destination, so hole punching
	// can work.
	coneNAT = "cone"
	// symmetricNAT maps every connection to a random port: the port a
	// relay sees is not the one another peer would have to dial.
	symmetricNAT = "symmetric"
)

// topology is the namespaces, links and NAT rules of one test.
type topology struct {
	t      *testing.T
	id     string            // swnat-<pid>-<random>
	ns     map[string]string // role -> namespace
	pub    netip.Prefix      // the public segment
	addr   map[string]netip.Addr
	homes  map[string]netip.Prefix // host role -> its home network
	natFor map[string]string       // host role -> its NAT's role
}

// ensureTools installs what the topology needs when it is missing.
func ensureTools(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the NAT test builds network namespaces: run it as root (CI does), e.g. sudo -E go test ./nattest/")
	}
	var missing []string
	for tool, pkg := range map[string]string{"ip": "iproute2", "nft": "nftables", "conntrack": "conntrack"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, pkg)
		}
	}
	if len(missing) == 0 {
		return
	}
	t.Logf("installing %v with apt-get", missing)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := func() ([]byte, error) {
		args := append([]string{"install", "-y", "--no-install-recommends"}, missing...)
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		return cmd.CombinedOutput()
	}
	if out, err := install(); err != nil {
		// A fresh machine may have no package lists yet.
		if upd, uerr := exec.CommandContext(ctx, "apt-get", "update").CombinedOutput(); uerr != nil {
			t.Fatalf("apt-get update: %v\n%s", uerr, upd)
		}
		if out, err = install(); err != nil {
			t.Fatalf("apt-get install %v: %v\n%s", missing, err, out)
		}
		_ = out
	}
}

// removeStale deletes namespaces of this package whose run is gone.
func removeStale(t *testing.T) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if !strings.HasPrefix(name, nsPrefix) {
			continue
		}
		pidStr, _, _ := strings.Cut(strings.TrimPrefix(name, nsPrefix), "-")
		pid, err := strconv.Atoi(pidStr)
		if err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == nil {
			continue // another run, still alive
		}
		t.Logf("removing stale namespace %s", name)
		_ = exec.Command("ip", "netns", "del", name).Run()
	}
}

// newTopology builds the topology of the package doc and removes it when
// the test ends, whether it passed or not.
func newTopology(t *testing.T) *topology {
	t.Helper()
	ensureTools(t)
	removeStale(t)
	tp := &topology{
		t:      t,
		id:     fmt.Sprintf("%s%d-%04x", nsPrefix, os.Getpid(), rand.IntN(1<<16)),
		ns:     map[string]string{},
		addr:   map[string]netip.Addr{},
		homes:  map[string]netip.Prefix{},
		natFor: map[string]string{},
	}
	t.Cleanup(tp.remove)
	used := rootPrefixes(t)
	tp.pub = freePrefix(t, used, 198, 20)
	used = append(used, tp.pub)
	for _, role := range []string{"pub", "relay", "buyer-a", "nat1", "seller", "nat2", "buyer-b", "nat3", "buyer-c"} {
		tp.ns[role] = tp.id + "-" + role
		tp.ip("netns", "add", tp.ns[role])
		tp.ip("-n", tp.ns[role], "link", "set", "lo", "up")
	}
	tp.ip("-n", tp.ns["pub"], "link", "add", "br0", "type", "bridge")
	tp.ip("-n", tp.ns["pub"], "link", "set", "br0", "up")
	for i, m := range []struct {
		role, ifname string
		host         int
	}{
		{"relay", "eth0", 10}, {"buyer-a", "eth0", 20}, {"nat1", "wan", 101}, {"nat2", "wan", 102}, {"nat3", "wan", 103},
	} {
		tp.attach(m.role, m.ifname, fmt.Sprintf("port%d", i), m.host)
	}
	for _, h := range []struct {
		nat, host, kind string
		a, b            byte
	}{
		{"nat1", "seller", coneNAT, 198, 18},
		{"nat2", "buyer-b", coneNAT, 198, 19},
		{"nat3", "buyer-c", symmetricNAT, 198, 18},
	} {
		home := freePrefix(t, used, h.a, h.b)
		used = append(used, home)
		tp.home(h.nat, h.host, home, h.kind)
	}
	return tp
}

// attach puts role on the public segment as pubHost on interface ifname.
func (tp *topology) attach(role, ifname, port string, pubHost int) {
	pub := tp.ns["pub"]
	tp.ip("link", "add", ifname, "netns", tp.ns[role], "type", "veth", "peer", "name", port, "netns", pub)
	tp.ip("-n", pub, "link", "set", port, "master", "br0")
	tp.ip("-n", pub, "link", "set", port, "up")
	a := nth(tp.pub, pubHost)
	tp.addr[role] = a
	tp.ip("-n", tp.ns[role], "addr", "add", prefixed(a, tp.pub), "dev", ifname)
	tp.ip("-n", tp.ns[role], "link", "set", ifname, "up")
}

// home builds a home network behind the NAT router nat (already on the
// public segment) with one host; kind is coneNAT or symmetricNAT.
func (tp *topology) home(nat, host string, home netip.Prefix, kind string) {
	natNS, hostNS := tp.ns[nat], tp.ns[host]
	tp.ip("link", "add", "lan", "netns", natNS, "type", "veth", "peer", "name", "eth0", "netns", hostNS)
	gw, a := nth(home, 1), nth(home, 2)
	tp.ip("-n", natNS, "addr", "add", prefixed(gw, home), "dev", "lan")
	tp.ip("-n", natNS, "link", "set", "lan", "up")
	tp.ip("-n", hostNS, "addr", "add", prefixed(a, home), "dev", "eth0")
	tp.ip("-n", hostNS, "link", "set", "eth0", "up")
	tp.ip("-n", hostNS, "route", "add", "default", "via", gw.String())
	tp.addr[host], tp.homes[host], tp.natFor[host] = a, home, nat
	tp.inNS(nat, "sysctl", "-qw", "net.ipv4.ip_forward=1")
	masq := "masquerade"
	if kind == symmetricNAT {
		masq = "masquerade fully-random"
	}
	// A home router: the home's connections go out under the router's
	// address; what comes in unasked is dropped, silently, before
	// conntrack confirms it (so it leaves no mapping behind).
	rules := fmt.Sprintf(`
table ip nat {
	chain postrouting {
		type nat hook postrouting priority srcnat; policy accept;
		oifname "wan" %s
	}
}
table ip filter {
	chain forward {
		type filter hook forward priority filter; policy drop;
		ct state established,related accept
		iifname "lan" oifname "wan" accept
	}
	chain input {
		type filter hook input priority filter; policy accept;
		iifname "wan" ct state new drop
	}
}
`, masq)
	tp.nft(nat, rules)
}

// nft loads a ruleset into role's namespace.
func (tp *topology) nft(role, rules string) {
	tp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", tp.ns[role], "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		tp.t.Fatalf("nft in %s: %v\n%s", role, err, out)
	}
}

// forgetHost makes the routers forget every NAT mapping of host's
// connections, as if host had just arrived: its own router forgets them all,
// the others those with host's public address. Other hosts' mappings, such
// as the seller's connection to its relay, are kept.
func (tp *topology) forgetHost(host string) {
	tp.t.Helper()
	tp.inNS(tp.natFor[host], "conntrack", "-F")
	public := tp.addr[tp.natFor[host]].String()
	for _, nat := range []string{"nat1", "nat2", "nat3"} {
		if nat == tp.natFor[host] {
			continue
		}
		for _, dir := range []string{"--orig-src", "--orig-dst"} {
			// conntrack -D exits 1 when nothing matched: that is fine.
			_ = exec.Command("ip", "netns", "exec", tp.ns[nat], "conntrack", "-D", dir, public).Run()
		}
	}
}

// ip runs the ip command.
func (tp *topology) ip(args ...string) string {
	tp.t.Helper()
	return tp.run("ip", args...)
}

// inNS runs a command in role's namespace.
func (tp *topology) inNS(role string, name string, args ...string) string {
	tp.t.Helper()
	return tp.run("ip", append([]string{"netns", "exec", tp.ns[role], name}, args...)...)
}

func (tp *topology) run(name string, args ...string) string {
	tp.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		tp.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// remove deletes every namespace; their veths and nft rules go with them.
func (tp *topology) remove() {
	for role, ns := range tp.ns {
		if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
			tp.t.Errorf("remove namespace %s (%s): %v\n%s", ns, role, err, out)
		}
	}
}

// rootPrefixes are the IPv4 networks the machine itself uses: its
// addresses and routes, in the root namespace.
func rootPrefixes(t *testing.T) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, args := range [][]string{{"-4", "-o", "addr", "show"}, {"-4", "route", "show", "table", "all"}} {
		b, err := exec.Command("ip", args...).Output()
		if err != nil {
			t.Fatalf("ip %v: %v", args, err)
		}
		for _, f := range strings.Fields(string(b)) {
			if p, err := netip.ParsePrefix(f); err == nil {
				out = append(out, p.Masked())
			} else if a, err := netip.ParseAddr(f); err == nil && a.Is4() {
				out = append(out, netip.PrefixFrom(a, 32))
			}
		}
	}
	return out
}

// freePrefix picks a random a.b.X.0/24 that overlaps nothing in used.
func freePrefix(t *testing.T, used []netip.Prefix, a, b byte) netip.Prefix {
	t.Helper()
	for range 256 {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{a, b, byte(rand.IntN(254) + 1), 0}), 24)
		free := true
		for _, u := range used {
			if u.Overlaps(p) {
				free = false
				break
			}
		}
		if free {
			return p
		}
	}
	t.Fatalf("no free /24 in %d.%d.0.0/16", a, b)
	return netip.Prefix{}
}

// nth is host number n of p.
func nth(p netip.Prefix, n int) netip.Addr {
	b := p.Addr().As4()
	b[3] = byte(n)
	return netip.AddrFrom4(b)
}

// prefixed writes a with p's prefix length, as ip addr add wants it.
func prefixed(a netip.Addr, p netip.Prefix) string {
	return fmt.Sprintf("%s/%d", a, p.Bits())
}
