package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ID length limits.
const (
	// MaxIDLength caps a taxonomy or custom.* ID. The taxonomy sets no limit;
	// 128 bytes keeps IDs usable as DHT key material and in log lines.
	MaxIDLength = 128
	// MaxWCPIDLength is WCP's limit: "Max length: 64 characters total".
	MaxWCPIDLength = 64
	// minWCPSegments and maxWCPSegments are WCP's "2 to 4 dot-separated segments".
	minWCPSegments = 2
	maxWCPSegments = 4
)

// Domains of the v0.1 taxonomy (the naming convention's list, plus
// research, which the spec's Research table uses).
var taxonomyDomains = []string{
	"image", "audio", "text", "code", "data", "chart", "compute", "exec", "embed", "classify", "research",
}

// WCP namespaces. Reserved ones belong to the WCP catalog maintainers; of
// them only cap.* names capabilities (wrk.* are worker species, pol.* policies...).
var (
	wcpReserved        = []string{"cap", "wrk", "ctrl", "pol", "prof", "evt"}
	wcpCapabilitySpace = []string{"cap", "x", "org"}
)

// CustomPrefix starts every out-of-taxonomy capability: custom.<provider>.<capability>.
const CustomPrefix = "custom."

var segmentRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// IDError says which naming rule an ID broke. It wraps ErrInvalidID.
type IDError struct {
	ID     string
	Rule   string
	Reason string
}

var _ error = (*IDError)(nil)

func (e *IDError) Error() string {
	return fmt.Sprintf("capability ID %q: rule %q: %s", e.ID, e.Rule, e.Reason)
}

func (e *IDError) Unwrap() error { return ErrInvalidID }

func idErr(id, rule, format string, args ...any) error {
	return &IDError{ID: id, Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

// Domains returns the top-level domains of the v0.1 taxonomy.
func Domains() []string { return slices.Clone(taxonomyDomains) }

// CheckID checks id against the naming rules of its namespace: custom.* IDs
// against CheckCustomID, cap.*, x.* and org.* against CheckWCPID, everything
// else against CheckTaxonomyName. It does not say whether the capability
// exists; Parse does.
func CheckID(id string) error {
	first, _, _ := strings.Cut(id, ".")
	switch {
	case strings.HasPrefix(id, CustomPrefix):
		return CheckCustomID(id)
	case slices.Contains(wcpCapabilitySpace, first) || slices.Contains(wcpReserved, first):
		return CheckWCPID(id)
	default:
		return CheckTaxonomyName(id)
	}
}

// checkSegments applies the rules shared by every namespace: not empty, no
// spaces, lowercase, non-empty dot-separated segments of [a-z0-9-].
func checkSegments(id string, maxLen int) ([]string, error) {
	switch {
	case id == "":
		return nil, idErr(id, "non-empty", "the ID is empty")
	case len(id) > maxLen:
		return nil, idErr(id, "length", "%d characters, at most %d allowed", len(id), maxLen)
	case strings.ContainsAny(id, " \t\r\n"):
		return nil, idErr(id, "no-spaces", "contains whitespace")
	case strings.ToLower(id) != id:
		return nil, idErr(id, "lowercase", "contains uppercase letters; IDs are all lowercase")
	}
	segs := strings.Split(id, ".")
	for i, s := range segs {
		if s == "" {
			return nil, idErr(id, "dot-separated", "segment %d is empty (leading, trailing or double dot)", i+1)
		}
		if !segmentRE.MatchString(s) {
			return nil, idErr(id, "charset", "segment %q may only hold a-z, 0-9 and inner hyphens", s)
		}
	}
	return segs, nil
}

// CheckTaxonomyName checks the swarmwage naming convention
// <domain>.<action>[.<modifier>]*[.<format>]: lowercase, dot-separated, at
// least a domain and an action, and the domain one of Domains().
func CheckTaxonomyName(id string) error {
	segs, err := checkSegments(id, MaxIDLength)
	if err != nil {
		return err
	}
	if err := checkDomain(id, segs[0]); err != nil {
		return err
	}
	if len(segs) < 2 {
		return idErr(id, "domain-action", "needs at least <domain>.<action>")
	}
	return nil
}

func checkDomain(id, domain string) error {
	if domain == "custom" {
		return idErr(id, "custom-form", "custom IDs are custom.<provider>.<capability>")
	}
	if !slices.Contains(taxonomyDomains, domain) {
		return idErr(id, "domain", "unknown domain %q; known: %s", domain, strings.Join(taxonomyDomains, ", "))
	}
	return nil
}

// CheckCustomID checks custom.<provider>.<capability>: the custom. prefix, a
// provider segment, and at least one capability segment after it.
func CheckCustomID(id string) error {
	if !strings.HasPrefix(id, CustomPrefix) {
		return idErr(id, "custom-prefix", "custom capabilities start with %q", CustomPrefix)
	}
	segs, err := checkSegments(id, MaxIDLength)
	if err != nil {
		return err
	}
	if len(segs) < 3 {
		return idErr(id, "custom-form", "needs custom.<provider>.<capability>")
	}
	return nil
}

// CheckWCPID checks a WCP capability ID: 2 to 4 segments of [a-z0-9-], at
// most 64 characters, in a capability namespace (cap.*, x.*, or
// org.<name>.*, which needs a name and at least one more segment).
func CheckWCPID(id string) error {
	segs, err := checkSegments(id, MaxWCPIDLength)
	if err != nil {
		if strings.Contains(id, "_") {
			return idErr(id, "wcp-charset", "underscores are forbidden; use hyphens")
		}
		return err
	}
	if n := len(segs); n < minWCPSegments || n > maxWCPSegments {
		return idErr(id, "wcp-segments", "%d segments, WCP allows %d to %d", n, minWCPSegments, maxWCPSegments)
	}
	switch ns := segs[0]; {
	case ns == "org" && len(segs) < 3:
		return idErr(id, "wcp-org-namespace", "organization IDs are org.<name>.<capability>")
	case !slices.Contains(wcpCapabilitySpace, ns):
		return idErr(id, "wcp-namespace", "namespace %q does not name capabilities; use cap.*, x.* or org.<name>.*", ns)
	}
	return nil
}

// IsReserved reports whether id lies in a namespace reserved to the WCP
// catalog maintainers (cap.*, wrk.*, ctrl.*, pol.*, prof.*, evt.*).
func IsReserved(id string) bool {
	first, _, _ := strings.Cut(id, ".")
	return slices.Contains(wcpReserved, first)
}

// CheckPublishable checks that a party other than the WCP catalog
// maintainers may publish id: it must be valid and outside the reserved
// namespaces. Sellers announcing WCP capabilities call it.
func CheckPublishable(id string) error {
	if IsReserved(id) {
		first, _, _ := strings.Cut(id, ".")
		return idErr(id, "reserved-namespace", "%s.* is reserved to the WCP catalog; publish under x.* or org.<name>.*", first)
	}
	return CheckID(id)
}

// CheckPrefix checks a browse prefix such as "text" or "text.translate": the
// leading segments of a valid ID (a known domain, "custom", or a WCP
// capability namespace) under the same character rules.
func CheckPrefix(id string) error {
	segs, err := checkSegments(id, MaxIDLength)
	if err != nil {
		return err
	}
	first := segs[0]
	switch {
	case first == "custom":
		return nil
	case slices.Contains(wcpCapabilitySpace, first):
		if len(segs) > maxWCPSegments || len(id) > MaxWCPIDLength {
			return idErr(id, "wcp-segments", "a WCP prefix has at most %d segments and %d characters", maxWCPSegments, MaxWCPIDLength)
		}
		return nil
	default:
		return checkDomain(id, first)
	}
}

// TombstoneStatus is the only status a WCP tombstone carries.
const TombstoneStatus = "deprecated"

// Tombstone is WCP's record for a retired capability ID: IDs are never
// removed, only deprecated with a pointer to their successor.
type Tombstone struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	SupersededBy      string `json:"superseded_by"`
	DeprecatedCatalog string `json:"deprecated_catalog,omitempty"`
	SunsetCatalog     string `json:"sunset_catalog,omitempty"`
}

var catalogVersionRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// Validate checks the tombstone: both IDs valid and different, status
// "deprecated", catalog versions (when set) in MAJOR.MINOR.PATCH form.
// Errors wrap ErrInvalidTombstone (and ErrInvalidID for a bad ID).
func (t Tombstone) Validate() error {
	if err := CheckID(t.ID); err != nil {
		return fmt.Errorf("%w: id: %w", ErrInvalidTombstone, err)
	}
	if t.Status != TombstoneStatus {
		return fmt.Errorf("%w: %s: status %q, want %q", ErrInvalidTombstone, t.ID, t.Status, TombstoneStatus)
	}
	if t.SupersededBy == "" {
		return fmt.Errorf("%w: %s: superseded_by is required", ErrInvalidTombstone, t.ID)
	}
	if err := CheckID(t.SupersededBy); err != nil {
		return fmt.Errorf("%w: %s: superseded_by: %w", ErrInvalidTombstone, t.ID, err)
	}
	if t.SupersededBy == t.ID {
		return fmt.Errorf("%w: %s: superseded_by points to itself", ErrInvalidTombstone, t.ID)
	}
	for name, v := range map[string]string{"deprecated_catalog": t.DeprecatedCatalog, "sunset_catalog": t.SunsetCatalog} {
		if v != "" && !catalogVersionRE.MatchString(v) {
			return fmt.Errorf("%w: %s: %s %q is not MAJOR.MINOR.PATCH", ErrInvalidTombstone, t.ID, name, v)
		}
	}
	return nil
}
