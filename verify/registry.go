package verify

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Capability is one capability ID resolved against the taxonomy. For a
// templated family, Template is the placeholder form
// ("text.translate.{src}.{tgt}.{level}") and Params holds the values of the
// placeholders. In List, ID equals Template and Params is nil.
type Capability struct {
	ID          string
	Template    string
	Params      map[string]string
	Domain      string
	Description string
	// Custom is true for custom.<provider>.<capability> and for WCP IDs
	// (cap.*, x.*, org.<name>.*): no standard schema, only the seller's.
	Custom bool
	// Checks are the names of the checks Verify runs, in order.
	Checks []string
	// Placeholders describes the allowed values of each placeholder of a
	// templated family (nil for concrete capabilities).
	Placeholders []Placeholder
}

// Placeholder is one {name} of a templated family and its allowed values.
// Allowed is nil when the set is open (Rule then says what is accepted).
type Placeholder struct {
	Name    string   `json:"name"`
	Allowed []string `json:"allowed,omitempty"`
	Rule    string   `json:"rule,omitempty"`
}

// param is a placeholder's allowed set; multi lets a placeholder span
// several dot-separated segments (the host of data.scrape.{url}.json).
type param struct {
	allowed []string
	rule    string
	match   func(string) bool
	multi   bool
}

func (p param) ok(v string) bool {
	if p.match != nil {
		return p.match(v)
	}
	return slices.Contains(p.allowed, v)
}

// capSpec is one row of the taxonomy tables.
type capSpec struct {
	template    string
	description string
	params      map[string]param
	input       string
	output      string
	// outputBy gives the output schema per value of the variant placeholder
	// (data.lookup.weather.{format}); output is then the union for browsing.
	variant  string
	outputBy map[string]string
	checks   []string
	verify   verifier
	// cross checks parameters against each other (src != tgt).
	cross func(map[string]string) error
}

// Value sets of the placeholders, from the spec.
var (
	// speechLangs are the ISO 639-1 codes the spec lists for {lang}, {src}
	// and {tgt}: the languages the detector can confirm.
	speechLangs     = []string{"en", "it", "es", "de", "fr", "pt", "ja", "zh", "ko", "ru", "ar"}
	translateLevels = []string{"literal", "fluent", "business", "casual", "technical"}
	codeLanguages   = []string{"python", "javascript", "typescript", "go", "rust", "java", "ruby", "php", "csharp", "swift", "kotlin"}
	weatherFormats  = []string{"geojson", "json", "summary-text"}
	statisticsOps   = []string{"mean", "median", "stddev", "variance", "percentile-95"}
	imageTaxonomies = []string{"imagenet-1k", "coco-categories", "safe-content"}
)

// textEmbedDims and imageEmbedDims are the known output dimensions of the
// embedding models a {model} may name; "declared dim matches model" needs
// them, so the family is closed to these models.
var (
	textEmbedDims = map[string]int{
		"text-embedding-3-small": 1536,
		"text-embedding-3-large": 3072,
		"text-embedding-ada-002": 1536,
		"clip-vit-l-14":          768,
		"clip-vit-b-32":          512,
		"siglip-base":            768,
		"all-minilm-l6-v2":       384,
		"nomic-embed-text-v1-5":  768,
	}
	imageEmbedDims = map[string]int{
		"clip-vit-l-14": 768,
		"clip-vit-b-32": 512,
		"siglip-base":   768,
	}
)

// maxExpandFactor bounds text.expand.{factor}; factors are whole numbers
// because a segment cannot hold a decimal point.
const maxExpandFactor = 10

var hostRE = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]([a-z0-9-]*[a-z0-9])?$`)

func langParam() param        { return param{allowed: speechLangs} }
func codeParam() param        { return param{allowed: codeLanguages} }
func set(vals []string) param { return param{allowed: vals} }

func mapKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func differ(a, b string) func(map[string]string) error {
	return func(p map[string]string) error {
		if p[a] == p[b] {
			return fmt.Errorf("{%s} and {%s} are both %q; they must differ", a, b, p[a])
		}
		return nil
	}
}

// registry is the parsed taxonomy, built once.
type registry struct {
	specs   []*capSpec
	schemas map[string]*compiledSchema // by schema key (see schemaKey)
}

var loadRegistry = sync.OnceValues(func() (*registry, error) {
	r := &registry{specs: taxonomy()}
	if err := r.compile(); err != nil {
		return nil, err
	}
	return r, nil
})

func mustRegistry() *registry {
	r, err := loadRegistry()
	if err != nil {
		// The schemas are compiled from constants in this package: a
		// failure is a bug caught by every test, not a runtime condition.
		panic(fmt.Sprintf("verify: taxonomy schemas do not compile: %v", err))
	}
	return r
}

// Parse resolves id against the taxonomy. Standard IDs yield their template
// and placeholder values (checked against the allowed sets); custom.* and
// WCP IDs yield Custom=true. Malformed IDs fail with ErrInvalidID naming the
// rule; well-formed IDs outside the taxonomy fail with ErrUnknownCapability
// saying why.
func Parse(id string) (Capability, error) {
	if err := CheckID(id); err != nil {
		return Capability{}, err
	}
	first, _, _ := strings.Cut(id, ".")
	if first == "custom" {
		segs := strings.SplitN(id, ".", 3)
		return Capability{
			ID: id, Template: "custom.{provider}.{capability}", Domain: "custom", Custom: true,
			Params:      map[string]string{"provider": segs[1], "capability": segs[2]},
			Description: "custom capability: the seller's schema is the only one",
			Checks:      []string{checkOutputSchema},
		}, nil
	}
	if slices.Contains(wcpCapabilitySpace, first) {
		return Capability{
			ID: id, Domain: first, Custom: true,
			Description: "WCP capability: no standard swarmwage schema; the seller's schema is the only one",
			Checks:      []string{checkOutputSchema},
		}, nil
	}
	spec, params, err := mustRegistry().match(id)
	if err != nil {
		return Capability{}, err
	}
	c := spec.capability()
	c.ID, c.Params = id, params
	for k, v := range params {
		c.Description = strings.ReplaceAll(c.Description, "{"+k+"}", v)
	}
	return c, nil
}

func (s *capSpec) capability() Capability {
	domain, _, _ := strings.Cut(s.template, ".")
	c := Capability{
		ID: s.template, Template: s.template, Domain: domain, Description: s.description,
		Checks: append([]string{checkInputSchema, checkOutputSchema}, s.checks...),
	}
	for _, name := range placeholderNames(s.template) {
		p := s.params[name]
		c.Placeholders = append(c.Placeholders, Placeholder{Name: name, Allowed: p.allowed, Rule: p.rule})
	}
	return c
}

var placeholderRE = regexp.MustCompile(`\{([a-z]+)\}`)

func placeholderNames(template string) []string {
	var names []string
	for _, m := range placeholderRE.FindAllStringSubmatch(template, -1) {
		names = append(names, m[1])
	}
	return names
}

// match finds the spec of a taxonomy ID. Concrete capabilities win over
// templates (classify.text.sentiment over classify.text.{taxonomy}).
func (r *registry) match(id string) (*capSpec, map[string]string, error) {
	for _, s := range r.specs {
		if s.template == id {
			return s, nil, nil
		}
	}
	var why error
	for _, s := range r.specs {
		if !strings.Contains(s.template, "{") {
			continue
		}
		params, structural, err := s.matchTemplate(id)
		if err == nil {
			return s, params, nil
		}
		if structural && why == nil {
			why = err
		}
	}
	if why != nil {
		return nil, nil, fmt.Errorf("%w: %q: %w", ErrUnknownCapability, id, why)
	}
	return nil, nil, fmt.Errorf("%w: %q is not in the v0.1 taxonomy (run 'swarmwage caps list'; out-of-tree capabilities use custom.<provider>.<capability>)", ErrUnknownCapability, id)
}

// matchTemplate matches id segment by segment. structural reports whether
// the literal segments matched, so a bad placeholder value can be reported
// as the reason.
func (s *capSpec) matchTemplate(id string) (params map[string]string, structural bool, err error) {
	tsegs, segs := strings.Split(s.template, "."), strings.Split(id, ".")
	multi := -1
	for i, t := range tsegs {
		if name, ok := placeholder(t); ok && s.params[name].multi {
			multi = i
		}
	}
	if multi < 0 && len(segs) != len(tsegs) || multi >= 0 && len(segs) < len(tsegs) {
		return nil, false, fmt.Errorf("segment count differs from %s", s.template)
	}
	if multi >= 0 {
		tail := len(tsegs) - multi - 1
		joined := strings.Join(segs[multi:len(segs)-tail], ".")
		segs = append(append(slices.Clone(segs[:multi]), joined), segs[len(segs)-tail:]...)
	}
	params = map[string]string{}
	for i, t := range tsegs {
		if _, ok := placeholder(t); !ok && t != segs[i] {
			return nil, false, fmt.Errorf("does not match %s", s.template)
		}
	}
	for i, t := range tsegs {
		name, ok := placeholder(t)
		if !ok {
			continue
		}
		p := s.params[name]
		if !p.ok(segs[i]) {
			return nil, true, fmt.Errorf("in family %s, {%s} = %q is not allowed: %s", s.template, name, segs[i], p.describe())
		}
		params[name] = segs[i]
	}
	if s.cross != nil {
		if err := s.cross(params); err != nil {
			return nil, true, fmt.Errorf("in family %s: %w", s.template, err)
		}
	}
	return params, true, nil
}

func (p param) describe() string {
	if p.allowed != nil {
		return "one of " + strings.Join(p.allowed, ", ")
	}
	return p.rule
}

func placeholder(seg string) (string, bool) {
	if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
		return seg[1 : len(seg)-1], true
	}
	return "", false
}

// List returns every standard capability and templated family (templates in
// placeholder form), in the spec's order, followed by the custom form.
func List() []Capability {
	r := mustRegistry()
	out := make([]Capability, 0, len(r.specs)+1)
	for _, s := range r.specs {
		out = append(out, s.capability())
	}
	out = append(out, Capability{
		ID: "custom.{provider}.{capability}", Template: "custom.{provider}.{capability}", Domain: "custom", Custom: true,
		Description: "out-of-tree capability; input and output schemas come from the seller",
		Checks:      []string{checkOutputSchema},
		Placeholders: []Placeholder{
			{Name: "provider", Rule: "a segment of a-z, 0-9 and inner hyphens"},
			{Name: "capability", Rule: "one or more such segments"},
		},
	})
	return out
}

// Lookup resolves either a concrete ID (like Parse) or a family in its
// placeholder form as List prints it ("text.translate.{src}.{tgt}.{level}").
func Lookup(idOrTemplate string) (Capability, error) {
	if strings.Contains(idOrTemplate, "{") {
		for _, c := range List() {
			if c.Template == idOrTemplate {
				return c, nil
			}
		}
		return Capability{}, fmt.Errorf("%w: no family %q (run 'swarmwage caps list')", ErrUnknownCapability, idOrTemplate)
	}
	return Parse(idOrTemplate)
}

func isExpandFactor(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 2 && n <= maxExpandFactor && strconv.Itoa(n) == v
}
