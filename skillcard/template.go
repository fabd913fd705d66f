package skillcard

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A cli binding's command is a template (spec, Bindings):
//
//	ape-claw nft autobuy --count <count> [--scan <scan>] [--execute] --json
//
// It is split into words on whitespace, outside '...' or "..." quotes (the
// quotes group and are removed; there are no escapes). <name> is replaced by
// the input's value for name after splitting, so a value is always part of
// one argument, whatever it contains. [ ... ] is an optional segment: it is
// kept when every placeholder in it has a value (not absent, not null); a
// segment without placeholders, such as [--execute], is kept when the input
// field named by its first word without leading dashes is true. The first
// word is the program and must be literal.
//
// No argument may start with '-' because of an input value, since the
// program would read it as an option (argument injection). A value is
// refused, with an InputError naming its placeholder, when it starts with
// '-' and the argument before it is empty or only dashes (<a>, <a>.txt,
// <a><b> with "-" and "-exec", -<a> with "-exec" making --exec), and so are
// empty values that would let the template's own '-' after them start the
// argument or lengthen its dashes (<a>-x or -<a>-x with ""). Numbers are no exception: <n> with -1 is refused, while
// --n=<n> passes -1 as the option's value, which is how a card takes a
// negative number. Booleans (true, false), arrays and objects never start
// with '-'.

// tmplPiece is literal text or, when name is set, a placeholder.
type tmplPiece struct {
	lit  string
	name string
}

type tmplWord []tmplPiece

// tmplPart is one mandatory word or one optional segment of words.
type tmplPart struct {
	optional bool
	words    []tmplWord
}

type cmdTemplate struct {
	parts []tmplPart
}

var errTemplate = errors.New("bad command template")

func parseTemplate(s string) (*cmdTemplate, error) {
	var (
		t       cmdTemplate
		seg     *tmplPart // open optional segment
		word    tmplWord
		lit     strings.Builder
		inWord  bool
		quote   byte
		segOpen int
	)
	flushLit := func() {
		if lit.Len() > 0 {
			word = append(word, tmplPiece{lit: lit.String()})
			lit.Reset()
		}
	}
	endWord := func() {
		flushLit()
		if inWord {
			if seg != nil {
				seg.words = append(seg.words, word)
			} else {
				t.parts = append(t.parts, tmplPart{words: []tmplWord{word}})
			}
		}
		word, inWord = nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			endWord()
		case quote == 0 && c == '[':
			endWord()
			if seg != nil {
				return nil, fmt.Errorf("%w: nested '[' at offset %d", errTemplate, i)
			}
			seg, segOpen = &tmplPart{optional: true}, i
		case quote == 0 && c == ']':
			endWord()
			if seg == nil {
				return nil, fmt.Errorf("%w: ']' at offset %d closes no '['", errTemplate, i)
			}
			if len(seg.words) == 0 {
				return nil, fmt.Errorf("%w: empty optional segment at offset %d", errTemplate, segOpen)
			}
			t.parts = append(t.parts, *seg)
			seg = nil
		case quote == 0 && (c == '"' || c == '\''):
			quote, inWord = c, true
		case c == '<':
			inWord = true
			if name, n := placeholderAt(s[i:]); n > 0 {
				flushLit()
				word = append(word, tmplPiece{name: name})
				i += n - 1
				continue
			}
			lit.WriteByte(c)
		default:
			inWord = true
			lit.WriteByte(c)
		}
	}
	switch {
	case quote != 0:
		return nil, fmt.Errorf("%w: unterminated %c quote", errTemplate, quote)
	case seg != nil:
		return nil, fmt.Errorf("%w: '[' at offset %d is never closed", errTemplate, segOpen)
	}
	endWord()
	if len(t.parts) == 0 {
		return nil, fmt.Errorf("%w: empty command", errTemplate)
	}
	first := t.parts[0]
	if first.optional || len(first.words[0]) != 1 || first.words[0][0].name != "" || first.words[0][0].lit == "" {
		return nil, fmt.Errorf("%w: the first word must be the program, written literally (an input must not choose the program)", errTemplate)
	}
	return &t, nil
}

// placeholderAt matches <name> at the start of s, name being
// [A-Za-z_][A-Za-z0-9_.-]*, and returns the name and the match length.
func placeholderAt(s string) (string, int) {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '>' && i > 1:
			return s[1:i], i + 1
		case c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
		case i > 1 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return "", 0
		}
	}
	return "", 0
}

// expand builds the argv for an input object.
func (t *cmdTemplate) expand(input map[string]any) ([]string, error) {
	var argv []string
	for _, part := range t.parts {
		if part.optional && !keepSegment(part, input) {
			continue
		}
		for _, w := range part.words {
			arg, err := w.render(input)
			if err != nil {
				return nil, err
			}
			argv = append(argv, arg)
		}
	}
	return argv, nil
}

func keepSegment(part tmplPart, input map[string]any) bool {
	hasPlaceholder := false
	for _, w := range part.words {
		for _, p := range w {
			if p.name == "" {
				continue
			}
			hasPlaceholder = true
			if input[p.name] == nil {
				return false
			}
		}
	}
	if hasPlaceholder {
		return true
	}
	flag := ""
	for _, p := range part.words[0] {
		flag += p.lit
	}
	flag, _, _ = strings.Cut(strings.TrimLeft(flag, "-"), "=")
	return input[flag] == true
}

func (w tmplWord) render(input map[string]any) (string, error) {
	var (
		b     strings.Builder
		empty []string // placeholders with empty values among the leading dashes
	)
	for _, p := range w {
		if p.name == "" {
			if len(empty) > 0 && strings.HasPrefix(p.lit, "-") && onlyDashes(b.String()) {
				return "", emptyBeforeDash(empty)
			}
			b.WriteString(p.lit)
			continue
		}
		v, ok := input[p.name]
		if !ok || v == nil {
			return "", &InputError{Placeholder: p.name, Reason: fmt.Sprintf("the input has no value for <%s>", p.name)}
		}
		s, err := argText(v)
		if err != nil {
			return "", fmt.Errorf("<%s>: %w", p.name, err)
		}
		if strings.IndexByte(s, 0) >= 0 {
			return "", &InputError{Placeholder: p.name, Reason: fmt.Sprintf("the value of <%s> contains a NUL byte, which no argument can hold", p.name)}
		}
		if strings.HasPrefix(s, "-") && onlyDashes(b.String()) {
			return "", &InputError{
				Placeholder: p.name,
				Reason:      fmt.Sprintf("the value of <%s> starts with '-' and would be read as an option", p.name),
				option:      true,
			}
		}
		if s == "" && onlyDashes(b.String()) {
			empty = append(empty, p.name)
		}
		b.WriteString(s)
	}
	arg := b.String()
	if strings.IndexByte(arg, 0) >= 0 {
		return "", errors.New("an argument cannot contain a NUL byte")
	}
	return arg, nil
}

// onlyDashes reports whether s is empty or all '-': a value's leading dash
// would start an option there, or lengthen the one the template starts.
func onlyDashes(s string) bool { return strings.Trim(s, "-") == "" }

// emptyBeforeDash is the error of placeholders whose empty values let the
// template's '-' that follows them start the argument (<a>-x), or join the
// template's dashes before them (-<a>-).
func emptyBeforeDash(names []string) error {
	what := "value of <" + names[0] + "> is"
	if len(names) > 1 {
		what = "values of <" + strings.Join(names, ">, <") + "> are"
	}
	return &InputError{
		Placeholder: names[0],
		Reason:      fmt.Sprintf("the %s empty, so the template's '-' after it would start the argument and be read as an option", what),
		option:      true,
	}
}

// argText writes one input value as a command-line argument: strings as
// they are, numbers as written in the input, booleans as true/false, arrays
// and objects as stable JSON.
func argText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	default:
		b, err := StableJSON(v)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
}
