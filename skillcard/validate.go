package skillcard

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// versionPattern is the spec's version pattern, verbatim.
var versionPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,3}([\-+][0-9A-Za-z._-]+)?$`)

// slugPattern: lowercase alphanumeric with hyphens. Leading, trailing and
// repeated hyphens are allowed because a slug generated from a name such as
// "Hello!" ends in one.
var slugPattern = regexp.MustCompile(`^[a-z0-9-]*[a-z0-9][a-z0-9-]*$`)

// httpMethods are the methods an http binding may use to send its input.
var httpMethods = []string{"POST", "PUT", "PATCH"}

// checker collects problems while reading the generic document into a Card.
type checker struct {
	problems []Problem
}

func (ck *checker) add(path, format string, args ...any) {
	ck.problems = append(ck.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// fill reads doc into c and returns every problem found, field by field in
// the spec's order.
func (c *Card) fill(doc any) []Problem {
	ck := &checker{}
	obj, ok := doc.(map[string]any)
	if !ok {
		ck.add("", "a SkillCard must be a JSON object, not %s", jsonType(doc))
		return ck.problems
	}
	c.Name = ck.requiredString(obj, "name")
	c.fillSlug(ck, obj)
	c.fillVersion(ck, obj)
	c.Description = ck.requiredString(obj, "description")
	c.InputsSchema, c.inputs = ck.schema(obj, "inputs_schema")
	c.OutputsSchema, c.outputs = ck.schema(obj, "outputs_schema")
	c.fillBindings(ck, obj)
	c.fillConstraints(ck, obj)
	c.RequiredPermissions = ck.stringList(obj, "required_permissions", "/required_permissions")
	c.fillExamples(ck, obj)
	c.fillEvalPacks(ck, obj)
	c.fillProvenance(ck, obj)
	return ck.problems
}

func (ck *checker) requiredString(obj map[string]any, key string) string {
	path := "/" + key
	v, ok := obj[key]
	if !ok {
		ck.add(path, "is required")
		return ""
	}
	s, ok := v.(string)
	switch {
	case !ok:
		ck.add(path, "must be a string, not %s", jsonType(v))
	case jsTrim(s) == "":
		ck.add(path, "must not be empty")
	}
	return s
}

func (c *Card) fillSlug(ck *checker, obj map[string]any) {
	v, ok := obj["slug"]
	if !ok {
		c.SlugGenerated = true
		c.Slug = Slugify(c.Name)
		if c.Name != "" && !slugPattern.MatchString(c.Slug) {
			ck.add("/slug", "is absent and cannot be generated from name %q (it has no letter or digit a-z, 0-9)", c.Name)
		}
		return
	}
	s, ok := v.(string)
	c.Slug = s
	switch {
	case !ok:
		ck.add("/slug", "must be a string, not %s", jsonType(v))
	case s == "":
		ck.add("/slug", "must not be empty")
	case !slugPattern.MatchString(s):
		ck.add("/slug", "%q must be lowercase letters, digits and hyphens (for example %q)", s, Slugify(s))
	}
}

func (c *Card) fillVersion(ck *checker, obj map[string]any) {
	s := ck.requiredString(obj, "version")
	c.Version = s
	if s != "" && !versionPattern.MatchString(s) {
		ck.add("/version", "%q does not match the version pattern %s (for example \"1.0.0\" or \"1.0.0-beta.1\")", s, versionPattern)
	}
}

// schema checks that obj[key] is an object that compiles as a JSON Schema.
func (ck *checker) schema(obj map[string]any, key string) (json.RawMessage, *jsonschema.Schema) {
	path := "/" + key
	v, ok := obj[key]
	if !ok {
		ck.add(path, "is required")
		return nil, nil
	}
	raw, _ := json.Marshal(v) // v came from JSON: it marshals
	if _, ok := v.(map[string]any); !ok {
		ck.add(path, "must be a JSON Schema object, not %s", jsonType(v))
		return raw, nil
	}
	sch, err := compileSchema(key, v)
	if err != nil {
		ck.problems = append(ck.problems, schemaCompileProblems(path, err)...)
		return raw, nil
	}
	return raw, sch
}

// compileSchema compiles one schema on its own. The compiler loads nothing:
// a $ref outside the schema would otherwise read local files.
func compileSchema(name string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.AssertFormat()
	loc := "urn:swarmwage:skillcard:" + name
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("a SkillCard schema must be self-contained: $ref to %s is not loaded", url)
}

// schemaCompileProblems turns a compile error into problems under path: the
// metaschema's complaints each get the location inside the schema.
func schemaCompileProblems(path string, err error) []Problem {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		ps := schemaProblems(path, ve)
		for i := range ps {
			ps[i].Message = "is not a valid JSON Schema: " + ps[i].Message
		}
		return ps
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, "urn:swarmwage:skillcard:", "")
	return []Problem{{Path: path, Message: "is not a valid JSON Schema: " + msg}}
}

// schemaProblems flattens a validation error into its leaves, each located
// at base plus the instance location.
func schemaProblems(base string, ve *jsonschema.ValidationError) []Problem {
	p := message.NewPrinter(language.English)
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, Problem{Path: base + pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(p)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return mergeSamePath(out)
}

// mergeSamePath joins problems at the same path (the branches of an anyOf,
// say) into one, so each location is reported once.
func mergeSamePath(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if i := slices.IndexFunc(out, func(q Problem) bool { return q.Path == p.Path }); i >= 0 {
			out[i].Message += "; " + p.Message
			continue
		}
		out = append(out, p)
	}
	return out
}

func (c *Card) fillBindings(ck *checker, obj map[string]any) {
	v, ok := obj["bindings"]
	if !ok {
		ck.add("/bindings", "is required")
		return
	}
	arr, ok := v.([]any)
	switch {
	case !ok:
		ck.add("/bindings", "must be an array, not %s", jsonType(v))
		return
	case len(arr) == 0:
		ck.add("/bindings", "must not be empty: a card needs at least one binding to run")
		return
	}
	for i, item := range arr {
		path := "/bindings/" + strconv.Itoa(i)
		b, ok := item.(map[string]any)
		if !ok {
			ck.add(path, "must be an object, not %s", jsonType(item))
			continue
		}
		c.Bindings = append(c.Bindings, ck.binding(b, path))
	}
}

func (ck *checker) binding(obj map[string]any, path string) Binding {
	var b Binding
	b.Type, _ = ck.optString(obj, "type", path+"/type")
	b.Command, _ = ck.optString(obj, "command", path+"/command")
	b.URL, _ = ck.optString(obj, "url", path+"/url")
	method, hasMethod := ck.optString(obj, "method", path+"/method")
	b.Method = method
	if _, ok := obj["type"]; !ok {
		ck.add(path+"/type", "is required (one of %s, %s)", BindingCLI, BindingHTTP)
		return b
	}
	switch b.Type {
	case BindingCLI:
		if _, ok := obj["command"]; !ok {
			ck.add(path+"/command", "is required for a cli binding")
		} else if jsTrim(b.Command) != "" {
			if _, err := parseTemplate(b.Command); err != nil {
				ck.add(path+"/command", "%v", err)
			}
		}
	case BindingHTTP:
		if _, ok := obj["url"]; !ok {
			ck.add(path+"/url", "is required for an http binding")
		} else if jsTrim(b.URL) != "" {
			if err := checkBindingURL(b.URL); err != nil {
				ck.add(path+"/url", "%v", err)
			}
		}
		if hasMethod && !slices.Contains(httpMethods, method) {
			ck.add(path+"/method", "%q is not one of %s", method, strings.Join(httpMethods, ", "))
		}
	case "":
		// reported by optString when it is not a string
		if _, isString := obj["type"].(string); isString {
			ck.add(path+"/type", "must not be empty (one of %s, %s)", BindingCLI, BindingHTTP)
		}
	default:
		ck.add(path+"/type", "unknown binding type %q (known: %s, %s)", b.Type, BindingCLI, BindingHTTP)
	}
	return b
}

func checkBindingURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("is not a URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q must be an absolute http:// or https:// URL", s)
	}
	return nil
}

// optString returns obj[key] when it is a string; present reports whether
// the key exists. A non-string value is a problem.
func (ck *checker) optString(obj map[string]any, key, path string) (s string, present bool) {
	v, ok := obj[key]
	if !ok {
		return "", false
	}
	s, isString := v.(string)
	if !isString {
		ck.add(path, "must be a string, not %s", jsonType(v))
		return "", true
	}
	if key != "method" && key != "type" && jsTrim(s) == "" {
		ck.add(path, "must not be empty")
	}
	return s, true
}

func (ck *checker) stringList(obj map[string]any, key, path string) []string {
	v, ok := obj[key]
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		ck.add(path, "must be an array of strings, not %s", jsonType(v))
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, item := range arr {
		s, ok := item.(string)
		if !ok {
			ck.add(path+"/"+strconv.Itoa(i), "must be a string, not %s", jsonType(item))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (c *Card) fillConstraints(ck *checker, obj map[string]any) {
	v, ok := obj["constraints"]
	if !ok {
		return
	}
	con, ok := v.(map[string]any)
	if !ok {
		ck.add("/constraints", "must be an object, not %s", jsonType(v))
		return
	}
	if rt, ok := con["riskTier"]; ok {
		tier, isTier := riskTier(rt)
		if !isTier {
			ck.add("/constraints/riskTier", "must be 1, 2 or 3, not %s", jsonText(rt))
		} else {
			c.Constraints.RiskTier = &tier
		}
	}
	c.Constraints.Notes = ck.stringList(con, "notes", "/constraints/notes")
}

// riskTier accepts the numbers 1, 2 and 3 (1.0 is 1 in JSON, as in JS).
func riskTier(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || f < 1 || f > 3 {
		return 0, false
	}
	return int(f), true
}

func (c *Card) fillExamples(ck *checker, obj map[string]any) {
	v, ok := obj["examples"]
	if !ok {
		return
	}
	arr, ok := v.([]any)
	if !ok {
		ck.add("/examples", "must be an array, not %s", jsonType(v))
		return
	}
	for i, item := range arr {
		path := "/examples/" + strconv.Itoa(i)
		ex, ok := item.(map[string]any)
		if !ok {
			ck.add(path, "must be an object with title and value, not %s", jsonType(item))
			continue
		}
		var e Example
		if _, ok := ex["title"]; !ok {
			ck.add(path+"/title", "is required")
		} else {
			e.Title, _ = ck.optString(ex, "title", path+"/title")
		}
		val, ok := ex["value"]
		switch {
		case !ok:
			ck.add(path+"/value", "is required")
		case !isObject(val):
			ck.add(path+"/value", "must be an object of input values, not %s", jsonType(val))
		default:
			e.Value, _ = json.Marshal(val)
			if c.inputs != nil {
				ck.matches(c.inputs, val, path+"/value", "inputs_schema")
			}
		}
		c.Examples = append(c.Examples, e)
	}
}

func (ck *checker) matches(sch *jsonschema.Schema, v any, path, name string) {
	err := sch.Validate(v)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return
	}
	for _, p := range schemaProblems(path, ve) {
		ck.add(p.Path, "does not match %s: %s", name, p.Message)
	}
}

func (c *Card) fillEvalPacks(ck *checker, obj map[string]any) {
	v, ok := obj["eval_packs"]
	if !ok {
		return
	}
	arr, ok := v.([]any)
	if !ok {
		ck.add("/eval_packs", "must be an array, not %s", jsonType(v))
		return
	}
	for _, item := range arr {
		raw, _ := json.Marshal(item)
		c.EvalPacks = append(c.EvalPacks, raw)
	}
}

func (c *Card) fillProvenance(ck *checker, obj map[string]any) {
	v, ok := obj["provenance"]
	if !ok {
		return
	}
	prov, ok := v.(map[string]any)
	if !ok {
		ck.add("/provenance", "must be an object, not %s", jsonType(v))
		return
	}
	c.Provenance.Publisher, _ = ck.optString(prov, "publisher", "/provenance/publisher")
	c.Provenance.SourceURL, _ = ck.optString(prov, "sourceUrl", "/provenance/sourceUrl")
	if s, ok := prov["signed"]; ok {
		b, isBool := s.(bool)
		if !isBool {
			ck.add("/provenance/signed", "must be a boolean, not %s", jsonType(s))
		}
		c.Provenance.Signed = b
	}
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// jsonType names the JSON type of a decoded value, with an article.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// jsonText renders a decoded value for a message, shortened.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonType(v)
	}
	const maxText = 40
	if len(b) > maxText {
		return string(b[:maxText]) + "..."
	}
	return string(b)
}

// pointer builds a JSON Pointer (RFC 6901) from reference tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
