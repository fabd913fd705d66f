package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting in JSONBytes. The parser is recursive; a
// peer sending "[[[[..." a million deep must not exhaust the goroutine stack.
const maxJSONDepth = 512

// JSON writes v as the spec's stableJsonStringify would: v is first
// encoded as encoding/json encodes it (struct tags, json.Marshaler,
// json.RawMessage, []byte as base64), then re-written with object keys sorted
// in UTF-16 code unit order (JavaScript's Array.prototype.sort), no
// whitespace, strings escaped as JSON.stringify escapes them (no HTML
// escaping, U+2028/U+2029 literal) and numbers as Number.prototype.toString
// writes the float64 value (so integers beyond 2^53 lose precision, as in JS).
//
// This is the one canonical form of the project: SkillCard content hashes and
// every signed wire object use it.
func JSON(v any) ([]byte, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return JSONBytes(raw)
}

func marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("stable json: %w", err)
	}
	return raw, nil
}

// JSONBytes re-writes already encoded JSON in the stable form of JSON, as
// stableJsonStringify(JSON.parse(raw)) would. Duplicate keys keep the last
// value (as JSON.parse does). raw must be strict JSON in valid
// UTF-8; a lone surrogate escape such as "\ud800" is kept and written back as
// JSON.stringify writes it.
func JSONBytes(raw []byte) ([]byte, error) {
	val, err := parseJSON(raw)
	if err != nil {
		return nil, err
	}
	return writeJSON(raw, val), nil
}

// parseJSON parses one JSON value and nothing after it.
func parseJSON(raw []byte) (jsonValue, error) {
	p := jsonParser{data: raw}
	p.skipSpace()
	val, err := p.value(0)
	if err != nil {
		return jsonValue{}, fmt.Errorf("stable json: %w", err)
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return jsonValue{}, fmt.Errorf("stable json: %w", p.errorf("unexpected data after the top-level value"))
	}
	return val, nil
}

// writeJSON writes val, parsed from raw, in the stable form.
func writeJSON(raw []byte, val jsonValue) []byte {
	var buf bytes.Buffer
	buf.Grow(len(raw))
	writeStable(&buf, val)
	return buf.Bytes()
}

// isASCII reports whether the UTF-16 string u is the ASCII string s.
func isASCII(u []uint16, s string) bool {
	if len(u) != len(s) {
		return false
	}
	for i := range u {
		if u[i] != uint16(s[i]) {
			return false
		}
	}
	return true
}

// typeIs reports whether val is an object whose top-level "type" is the
// string tag, and else what its "type" is ("" when none or not a string).
func typeIs(val jsonValue, tag string) (bool, string) {
	if val.kind != kindObject {
		return false, ""
	}
	for _, m := range val.members {
		if !isASCII(m.key, "type") {
			continue
		}
		if m.val.kind != kindString {
			return false, ""
		}
		if isASCII(m.val.str, tag) {
			return true, tag
		}
		return false, string(utf16.Decode(m.val.str))
	}
	return false, ""
}

// jsonKind tells which field of jsonValue is set.
type jsonKind uint8

const (
	kindNull jsonKind = iota
	kindTrue
	kindFalse
	kindNumber
	kindString
	kindArray
	kindObject
)

// jsonValue is a parsed JSON value as JavaScript sees it: strings are UTF-16
// code units (so lone surrogates survive and keys sort as JS sorts them) and
// numbers are float64.
type jsonValue struct {
	kind    jsonKind
	num     float64
	str     []uint16
	items   []jsonValue
	members []jsonMember
}

type jsonMember struct {
	key []uint16
	val jsonValue
}

var errJSONSyntax = errors.New("invalid JSON")

type jsonParser struct {
	data []byte
	pos  int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", errJSONSyntax, p.pos, fmt.Sprintf(format, args...))
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (jsonValue, error) {
	if p.pos >= len(p.data) {
		return jsonValue{}, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.string()
		return jsonValue{kind: kindString, str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return jsonValue{kind: kindTrue}, nil
	case p.literal("false"):
		return jsonValue{kind: kindFalse}, nil
	case p.literal("null"):
		return jsonValue{kind: kindNull}, nil
	default:
		return jsonValue{}, p.errorf("unexpected character %q", c)
	}
}

func (p *jsonParser) literal(word string) bool {
	if bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *jsonParser) object(depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, p.errorf("nesting deeper than %d", maxJSONDepth)
	}
	p.pos++ // '{'
	v := jsonValue{kind: kindObject}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return jsonValue{}, p.errorf("expected a string key")
		}
		key, err := p.string()
		if err != nil {
			return jsonValue{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return jsonValue{}, p.errorf("expected ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return jsonValue{}, err
		}
		v.members = append(v.members, jsonMember{key: key, val: val})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jsonValue{}, p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.members = sortMembers(v.members)
			return v, nil
		default:
			return jsonValue{}, p.errorf("expected ',' or '}' in an object")
		}
	}
}

// sortMembers sorts by key in UTF-16 code unit order and keeps only the last
// value of a duplicated key, as JSON.parse then Object.keys().sort() do.
func sortMembers(ms []jsonMember) []jsonMember {
	slices.SortStableFunc(ms, func(a, b jsonMember) int { return slices.Compare(a.key, b.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && slices.Equal(m.key, ms[i+1].key) {
			continue // a later duplicate wins
		}
		out = append(out, m)
	}
	return out
}

func (p *jsonParser) array(depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, p.errorf("nesting deeper than %d", maxJSONDepth)
	}
	p.pos++ // '['
	v := jsonValue{kind: kindArray}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		item, err := p.value(depth)
		if err != nil {
			return jsonValue{}, err
		}
		v.items = append(v.items, item)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return jsonValue{}, p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return jsonValue{}, p.errorf("expected ',' or ']' in an array")
		}
	}
}

// string parses a JSON string into UTF-16 code units.
func (p *jsonParser) string() ([]uint16, error) {
	p.pos++ // opening quote
	var out []uint16
	for {
		if p.pos >= len(p.data) {
			return nil, p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return out, nil
		case c == '\\':
			u, err := p.escape()
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		case c < 0x20:
			return nil, p.errorf("control character %#02x in a string must be escaped", c)
		case c < utf8.RuneSelf:
			out = append(out, uint16(c))
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, p.errorf("invalid UTF-8 in a string")
			}
			out = utf16.AppendRune(out, r)
			p.pos += size
		}
	}
}

func (p *jsonParser) escape() (uint16, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errorf("unterminated escape")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		return uint16(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		if p.pos+4 > len(p.data) {
			return 0, p.errorf("short \\u escape")
		}
		n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
		if err != nil {
			return 0, p.errorf("bad \\u escape %q", p.data[p.pos:p.pos+4])
		}
		p.pos += 4
		return uint16(n), nil
	default:
		return 0, p.errorf("unknown escape \\%c", c)
	}
}

// number checks the JSON number grammar and parses the literal as JS does:
// to the nearest float64, overflowing to ±Infinity.
func (p *jsonParser) number() (jsonValue, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.pos < len(p.data) && p.data[p.pos] >= '1' && p.data[p.pos] <= '9':
		p.digits()
	default:
		return jsonValue{}, p.errorf("bad number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return jsonValue{}, p.errorf("bad number: no digits after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return jsonValue{}, p.errorf("bad number: no digits in the exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return jsonValue{}, p.errorf("bad number: %v", err)
	}
	return jsonValue{kind: kindNumber, num: f}, nil
}

func (p *jsonParser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

func writeStable(buf *bytes.Buffer, v jsonValue) {
	switch v.kind {
	case kindNull:
		buf.WriteString("null")
	case kindTrue:
		buf.WriteString("true")
	case kindFalse:
		buf.WriteString("false")
	case kindNumber:
		buf.WriteString(jsNumber(v.num))
	case kindString:
		writeJSString(buf, v.str)
	case kindArray:
		buf.WriteByte('[')
		for i, item := range v.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeStable(buf, item)
		}
		buf.WriteByte(']')
	case kindObject:
		buf.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSString(buf, m.key)
			buf.WriteByte(':')
			writeStable(buf, m.val)
		}
		buf.WriteByte('}')
	}
}

const hexDigits = "0123456789abcdef"

// writeJSString writes s as JSON.stringify (ES2019 well-formed) does: short
// escapes for " \ \b \f \n \r \t, \u00XX for other controls, \uDXXX (lower
// case) for lone surrogates, everything else as UTF-8.
func writeJSString(buf *bytes.Buffer, s []uint16) {
	buf.WriteByte('"')
	for i := 0; i < len(s); i++ {
		u := s[i]
		switch {
		case u == '"':
			buf.WriteString(`\"`)
		case u == '\\':
			buf.WriteString(`\\`)
		case u == '\b':
			buf.WriteString(`\b`)
		case u == '\f':
			buf.WriteString(`\f`)
		case u == '\n':
			buf.WriteString(`\n`)
		case u == '\r':
			buf.WriteString(`\r`)
		case u == '\t':
			buf.WriteString(`\t`)
		case u < 0x20:
			writeUEscape(buf, u)
		case u < utf8.RuneSelf:
			buf.WriteByte(byte(u))
		case utf16.IsSurrogate(rune(u)):
			if u < 0xdc00 && i+1 < len(s) && s[i+1] >= 0xdc00 && s[i+1] <= 0xdfff {
				buf.WriteRune(utf16.DecodeRune(rune(u), rune(s[i+1])))
				i++
				continue
			}
			writeUEscape(buf, u)
		default:
			buf.WriteRune(rune(u))
		}
	}
	buf.WriteByte('"')
}

func writeUEscape(buf *bytes.Buffer, u uint16) {
	buf.WriteString(`\u`)
	buf.WriteByte(hexDigits[u>>12])
	buf.WriteByte(hexDigits[u>>8&0xf])
	buf.WriteByte(hexDigits[u>>4&0xf])
	buf.WriteByte(hexDigits[u&0xf])
}

// jsNumber formats f as JSON.stringify does: Number::toString (ECMA-262
// §6.1.6.1.20) for finite values, "null" for NaN and ±Infinity.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null"
	case f == 0:
		return "0" // also -0
	case f < 0:
		return "-" + jsNumber(-f)
	}
	// Shortest round-trip digits, as JS requires: d.ddddde±XX.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expPart, _ := strings.Cut(e, "e")
	digits := mant[:1]
	if len(mant) > 2 {
		digits += mant[2:]
	}
	exp, _ := strconv.Atoi(expPart)
	k, n := len(digits), exp+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	out := digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	return out + "e" + sign + strconv.Itoa(abs(n-1))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
