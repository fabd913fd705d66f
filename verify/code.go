package verify

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// MaxCodeBytes caps source code handed to a parser.
const MaxCodeBytes = 1 << 20

// grammar returns the tree-sitter grammar of a {language} other than go.
func grammar(lang string) *sitter.Language {
	switch lang {
	case "python":
		return python.GetLanguage()
	case "javascript":
		return javascript.GetLanguage()
	case "typescript":
		return typescript.GetLanguage()
	case "rust":
		return rust.GetLanguage()
	case "java":
		return java.GetLanguage()
	case "ruby":
		return ruby.GetLanguage()
	case "php":
		return php.GetLanguage()
	case "csharp":
		return csharp.GetLanguage()
	case "swift":
		return swift.GetLanguage()
	case "kotlin":
		return kotlin.GetLanguage()
	}
	return nil
}

// Function is a function definition found in source code.
type Function struct {
	Name   string
	Params []string
}

// Parsed is source code that parsed without syntax errors.
type Parsed struct {
	Language string
	// Functions are the function and method definitions, in source order.
	Functions []Function
	// Symbols are the names the code defines (functions, methods, classes,
	// types), deduplicated, in source order.
	Symbols []string
}

// SyntaxError says where code fails to parse.
type SyntaxError struct {
	Language     string
	Line, Column int // 1-based
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s syntax error at line %d, column %d: %s", e.Language, e.Line, e.Column, e.Msg)
}

// ParseCode parses src as lang (one of the eleven {language} values): go
// with go/parser, the others with tree-sitter, which is lenient, so ERROR
// and MISSING nodes and empty Python blocks count as syntax errors. A
// snippet without a package clause is accepted as Go.
func ParseCode(ctx context.Context, lang, src string) (*Parsed, error) {
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("code is empty")
	}
	if len(src) > MaxCodeBytes {
		return nil, fmt.Errorf("code is %d bytes, the limit is %d", len(src), MaxCodeBytes)
	}
	if lang == "go" {
		return parseGo(src)
	}
	g := grammar(lang)
	if g == nil {
		return nil, fmt.Errorf("no parser for language %q", lang)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g)
	tree, err := p.ParseCtx(ctx, nil, []byte(src))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", lang, err)
	}
	defer tree.Close()
	root := tree.RootNode()
	if err := syntaxError(lang, root, []byte(src)); err != nil {
		return nil, err
	}
	out := &Parsed{Language: lang}
	collect(root, []byte(src), out)
	return out, nil
}

// syntaxError finds the first ERROR or MISSING node (or empty Python block).
func syntaxError(lang string, root *sitter.Node, src []byte) error {
	if !root.HasError() && lang != "python" {
		return nil
	}
	var found *SyntaxError
	walk(root, func(n *sitter.Node) bool {
		if found != nil {
			return false
		}
		pos := n.StartPoint()
		switch {
		case n.IsMissing():
			found = &SyntaxError{Language: lang, Line: int(pos.Row) + 1, Column: int(pos.Column) + 1, Msg: fmt.Sprintf("missing %s", n.Type())}
		case n.IsError():
			found = &SyntaxError{Language: lang, Line: int(pos.Row) + 1, Column: int(pos.Column) + 1, Msg: fmt.Sprintf("unexpected %q", excerpt(n.Content(src)))}
		case lang == "python" && n.Type() == "block" && realChildren(n) == 0:
			found = &SyntaxError{Language: lang, Line: int(pos.Row) + 1, Column: int(pos.Column) + 1, Msg: "empty block (an indented body is required; use pass)"}
		}
		return found == nil && (n.HasError() || lang == "python")
	})
	if found == nil && root.HasError() {
		found = &SyntaxError{Language: lang, Line: 1, Column: 1, Msg: "syntax error"}
	}
	if found == nil {
		return nil
	}
	return found
}

func realChildren(n *sitter.Node) int {
	c := 0
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if ch := n.NamedChild(i); !ch.IsExtra() {
			c++
		}
	}
	return c
}

func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// walk visits n and its descendants in pre-order; visit returns whether to
// descend into the node's children. It iterates with a tree cursor, so
// deeply nested hostile code cannot exhaust the goroutine stack.
func walk(n *sitter.Node, visit func(*sitter.Node) bool) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for {
		if visit(c.CurrentNode()) && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return
			}
		}
	}
}

// Node types of function definitions per grammar, and of other named
// definitions whose names count as symbols.
var (
	funcNodeTypes = []string{
		"function_definition", "function_declaration", "method_definition", "generator_function_declaration",
		"function_item", "method_declaration", "constructor_declaration", "method", "singleton_method",
		"local_function_statement",
	}
	typeNodeTypes = []string{
		"class_definition", "class_declaration", "interface_declaration", "struct_item", "enum_item", "trait_item",
		"enum_declaration", "struct_declaration", "record_declaration", "object_declaration", "protocol_declaration",
		"class", "module", "type_alias_declaration", "type_item", "trait_declaration",
	}
	nameNodeTypes = []string{"identifier", "simple_identifier", "type_identifier", "property_identifier", "name", "constant", "field_identifier"}
)

// collect gathers function definitions and defined symbols.
func collect(root *sitter.Node, src []byte, out *Parsed) {
	seen := map[string]bool{}
	addSym := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out.Symbols = append(out.Symbols, s)
		}
	}
	walk(root, func(n *sitter.Node) bool {
		t := n.Type()
		switch {
		case slices.Contains(funcNodeTypes, t):
			if name := defName(n, src); name != "" {
				out.Functions = append(out.Functions, Function{Name: name, Params: paramNames(paramList(n), src)})
				addSym(name)
			}
		case t == "variable_declarator" || t == "lexical_declaration":
			// const f = (a) => ...; const g = function (a) {...}
			if v := n.ChildByFieldName("value"); v != nil && (v.Type() == "arrow_function" || v.Type() == "function_expression" || v.Type() == "function") {
				if name := defName(n, src); name != "" {
					out.Functions = append(out.Functions, Function{Name: name, Params: paramNames(paramList(v), src)})
					addSym(name)
				}
			}
		case slices.Contains(typeNodeTypes, t):
			addSym(defName(n, src))
		}
		return true
	})
}

// defName is the name of a definition: its name field, else its first
// identifier-like child.
func defName(n *sitter.Node, src []byte) string {
	if name := n.ChildByFieldName("name"); name != nil {
		return name.Content(src)
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if ch := n.NamedChild(i); slices.Contains(nameNodeTypes, ch.Type()) {
			return ch.Content(src)
		}
	}
	return ""
}

// paramList returns the parameter nodes of a function definition.
func paramList(fn *sitter.Node) []*sitter.Node {
	list := fn.ChildByFieldName("parameters")
	if list == nil {
		for i := 0; i < int(fn.NamedChildCount()); i++ {
			ch := fn.NamedChild(i)
			if strings.Contains(ch.Type(), "parameters") || ch.Type() == "parameter_list" {
				list = ch
				break
			}
		}
	}
	var params []*sitter.Node
	if list == nil {
		// Swift: parameters are direct children of the declaration.
		for i := 0; i < int(fn.NamedChildCount()); i++ {
			if ch := fn.NamedChild(i); ch.Type() == "parameter" {
				params = append(params, ch)
			}
		}
		return params
	}
	for i := 0; i < int(list.NamedChildCount()); i++ {
		ch := list.NamedChild(i)
		if ch.IsExtra() || ch.Type() == "comment" {
			continue
		}
		params = append(params, ch)
	}
	return params
}

// paramNames reads the name of each parameter node.
func paramNames(params []*sitter.Node, src []byte) []string {
	names := make([]string, 0, len(params))
	for _, p := range params {
		names = append(names, normalizeParam(paramName(p, src)))
	}
	return dropReceiver(names)
}

func paramName(p *sitter.Node, src []byte) string {
	if slices.Contains(nameNodeTypes, p.Type()) || p.Type() == "self" || p.Type() == "self_parameter" || p.Type() == "variable_name" {
		return p.Content(src)
	}
	for _, field := range []string{"name", "pattern", "left"} {
		if f := p.ChildByFieldName(field); f != nil {
			return f.Content(src)
		}
	}
	var name string
	walk(p, func(n *sitter.Node) bool {
		if name != "" {
			return false
		}
		if slices.Contains(nameNodeTypes, n.Type()) || n.Type() == "variable_name" {
			name = n.Content(src)
			return false
		}
		return true
	})
	if name != "" {
		return name
	}
	return p.Content(src)
}

var paramPrefixRE = regexp.MustCompile(`^(\*\*|\*|\.\.\.|&mut |&|mut |ref |out |in )`)

func normalizeParam(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for {
		t := paramPrefixRE.ReplaceAllString(s, "")
		if t == s {
			return s
		}
		s = t
	}
}

// dropReceiver removes a leading self/cls/this, which a signature may
// or may not spell out.
func dropReceiver(names []string) []string {
	if len(names) > 0 && slices.Contains([]string{"self", "cls", "this"}, names[0]) {
		return names[1:]
	}
	return names
}

// parseGo parses Go source, accepting a snippet without package clause.
func parseGo(src string) (*Parsed, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "code.go", src, parser.SkipObjectResolution)
	offset := 0
	if err != nil && !strings.HasPrefix(strings.TrimSpace(stripGoComments(src)), "package") {
		const header = "package snippet\n"
		file, err = parser.ParseFile(fset, "code.go", header+src, parser.SkipObjectResolution)
		offset = 1
	}
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, &SyntaxError{Language: "go", Line: list[0].Pos.Line - offset, Column: list[0].Pos.Column, Msg: list[0].Msg}
		}
		return nil, &SyntaxError{Language: "go", Line: 1, Column: 1, Msg: err.Error()}
	}
	out := &Parsed{Language: "go"}
	seen := map[string]bool{}
	add := func(s string) {
		if s != "_" && !seen[s] {
			seen[s] = true
			out.Symbols = append(out.Symbols, s)
		}
	}
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out.Functions = append(out.Functions, Function{Name: d.Name.Name, Params: goParams(d.Type.Params)})
			add(d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(n.Name)
					}
				}
			}
		}
	}
	return out, nil
}

func stripGoComments(src string) string {
	for {
		s := strings.TrimSpace(src)
		switch {
		case strings.HasPrefix(s, "//"):
			_, rest, _ := strings.Cut(s, "\n")
			src = rest
		case strings.HasPrefix(s, "/*"):
			_, rest, _ := strings.Cut(s, "*/")
			src = rest
		default:
			return s
		}
	}
}

func goParams(fl *ast.FieldList) []string {
	var names []string
	if fl == nil {
		return names
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			names = append(names, "_")
			continue
		}
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

// parseCheck reports the "parses" check.
func parseCheck(ctx context.Context, lang, code string) (*Parsed, Check) {
	p, err := ParseCode(ctx, lang, code)
	if err != nil {
		return nil, fail(ckParses, "%v", err)
	}
	return p, pass(ckParses, "valid %s (%d lines)", lang, lineCount(code))
}

func lineCount(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func verifyCodeScript(ctx context.Context, j *job) []Check {
	var out struct {
		Code string `json:"code"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	_, parses := parseCheck(ctx, j.param("language"), out.Code)
	return []Check{nonEmptyCheck("code", out.Code), parses}
}

func verifyCodeTranslate(ctx context.Context, j *job) []Check {
	var out struct {
		Code string `json:"code"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	_, parses := parseCheck(ctx, j.param("tgt"), out.Code)
	return []Check{parses}
}

func verifyCodeFunction(ctx context.Context, j *job) []Check {
	var in struct {
		Signature string `json:"signature"`
	}
	var out struct {
		Code string `json:"code"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	lang := j.param("language")
	parsed, parses := parseCheck(ctx, lang, out.Code)
	if parsed == nil {
		return []Check{parses, skipped(ckSignature, "the code does not parse")}
	}
	return []Check{parses, signatureCheck(ctx, lang, in.Signature, parsed)}
}

// ParseSignature reads the function name and parameter names of a
// signature such as "def add(a, b)", "func Add(a, b int) int" or
// "public int add(int a, int b)", by completing it into a definition and
// parsing that with the language's parser.
func ParseSignature(ctx context.Context, lang, sig string) (Function, error) {
	sig = strings.TrimSpace(sig)
	sig = strings.TrimRight(sig, "{;: \t\n")
	for _, src := range signatureWrappers(lang, sig) {
		p, err := ParseCode(ctx, lang, src)
		if err == nil && len(p.Functions) > 0 {
			return p.Functions[0], nil
		}
	}
	return Function{}, fmt.Errorf("cannot read the signature %q as %s", sig, lang)
}

// signatureWrappers completes a signature into small programs to parse,
// from the most literal to the most forgiving.
func signatureWrappers(lang, sig string) []string {
	switch lang {
	case "python":
		return []string{sig + ":\n    pass\n", "def " + sig + ":\n    pass\n"}
	case "ruby":
		return []string{sig + "\nend\n", "def " + sig + "\nend\n"}
	case "php":
		return []string{"<?php " + sig + " {}", "<?php function " + sig + " {}", "<?php class S { " + sig + " {} }"}
	case "java", "csharp":
		return []string{"class S { " + sig + " {} }", "class S { void " + sig + " {} }"}
	case "go":
		return []string{sig + " {}", "func " + sig + " {}"}
	case "rust":
		return []string{sig + " {}", "fn " + sig + " {}"}
	case "kotlin":
		return []string{sig + " {}", "fun " + sig + " {}"}
	case "swift":
		return []string{sig + " {}", "func " + sig + " {}"}
	default: // javascript, typescript
		return []string{sig + " {}", "function " + sig + " {}", "class S { " + sig + " {} }"}
	}
}

func signatureCheck(ctx context.Context, lang, sig string, code *Parsed) Check {
	want, err := ParseSignature(ctx, lang, sig)
	if err != nil {
		return fail(ckSignature, "%v", err)
	}
	var sameName []Function
	for _, f := range code.Functions {
		if f.Name == want.Name {
			if slices.Equal(f.Params, want.Params) {
				return pass(ckSignature, "defines %s(%s)", f.Name, strings.Join(f.Params, ", "))
			}
			sameName = append(sameName, f)
		}
	}
	if len(sameName) > 0 {
		return fail(ckSignature, "%s takes (%s) but the signature has (%s)", want.Name, strings.Join(sameName[0].Params, ", "), strings.Join(want.Params, ", "))
	}
	var names []string
	for _, f := range code.Functions {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return fail(ckSignature, "the code defines no function; expected %s(%s)", want.Name, strings.Join(want.Params, ", "))
	}
	return fail(ckSignature, "no function named %s; the code defines %s", want.Name, strings.Join(names, ", "))
}

// ignoredSymbols are too generic to show that tests use the input code.
var ignoredSymbols = []string{"main", "__init__", "init", "constructor", "new", "self", "this", "test", "setup", "Main"}

var identRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

func verifyCodeTest(ctx context.Context, j *job) []Check {
	var in struct {
		Code string `json:"code"`
	}
	var out struct {
		Tests string `json:"tests"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	lang := j.param("language")
	_, parses := parseCheck(ctx, lang, out.Tests)
	src, err := ParseCode(ctx, lang, in.Code)
	if err != nil {
		return []Check{parses, fail(ckReferencesSymbols, "the input code does not parse, so its symbols are unknown: %v", err)}
	}
	var symbols []string
	for _, s := range src.Symbols {
		if !slices.Contains(ignoredSymbols, s) {
			symbols = append(symbols, s)
		}
	}
	used := map[string]bool{}
	for _, id := range identRE.FindAllString(out.Tests, -1) {
		used[id] = true
	}
	for _, s := range symbols {
		if used[s] {
			return []Check{parses, pass(ckReferencesSymbols, "uses %s from the input code", s)}
		}
	}
	if len(symbols) == 0 {
		return []Check{parses, fail(ckReferencesSymbols, "the input code defines no functions, classes or types to test")}
	}
	return []Check{parses, fail(ckReferencesSymbols, "the tests use none of the input's symbols (%s)", strings.Join(firstN(symbols, 8), ", "))}
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), "...")
	}
	return s
}

func verifyCodeReview(_ context.Context, j *job) []Check {
	var in struct {
		Code string `json:"code"`
	}
	var out struct {
		Findings []struct {
			Line int `json:"line"`
		} `json:"findings"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	n := lineCount(in.Code)
	for i, f := range out.Findings {
		if f.Line < 1 || f.Line > n {
			return []Check{fail(ckFindingLines, "findings[%d].line is %d; the code has lines 1 to %d", i, f.Line, n)}
		}
	}
	return []Check{pass(ckFindingLines, "%d findings, all within the code's %d lines", len(out.Findings), n)}
}
