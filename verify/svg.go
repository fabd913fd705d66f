package verify

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// SVG limits.
const (
	// MaxSVGBytes caps an SVG document.
	MaxSVGBytes = 10 << 20
	// maxSVGDepth caps element nesting, so a hostile document cannot make
	// the checker track millions of open elements.
	maxSVGDepth = 512
)

// svgNS is the namespace an SVG root must be in.
const svgNS = "http://www.w3.org/2000/svg"

// SVGInfo describes an SVG that CheckSVG accepted.
type SVGInfo struct {
	Paths    int
	Elements int
}

// CheckSVG parses s as a well-formed XML document whose root is an <svg>
// in the SVG namespace, and counts its <path> elements. Entities other than
// XML's five are rejected (no DTD expansion).
func CheckSVG(s string) (SVGInfo, error) {
	if len(s) > MaxSVGBytes {
		return SVGInfo{}, fmt.Errorf("SVG is %d bytes, the limit is %d", len(s), MaxSVGBytes)
	}
	if strings.TrimSpace(s) == "" {
		return SVGInfo{}, errors.New("svg is empty")
	}
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	var info SVGInfo
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return SVGInfo{}, fmt.Errorf("SVG is not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return SVGInfo{}, errors.New("SVG has more than one root element")
				}
				if t.Name.Local != "svg" {
					return SVGInfo{}, fmt.Errorf("root element is <%s>, want <svg>", t.Name.Local)
				}
				if t.Name.Space != svgNS {
					return SVGInfo{}, fmt.Errorf("root <svg> is not in the SVG namespace; add xmlns=%q", svgNS)
				}
			}
			depth++
			if depth > maxSVGDepth {
				return SVGInfo{}, fmt.Errorf("SVG nests deeper than %d elements", maxSVGDepth)
			}
			info.Elements++
			if t.Name.Local == "path" && t.Name.Space == svgNS {
				info.Paths++
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(t)) != "" {
				return SVGInfo{}, errors.New("SVG has text outside the root element")
			}
		}
	}
	if roots == 0 {
		return SVGInfo{}, errors.New("SVG has no root element")
	}
	return info, nil
}

func verifySVG(_ context.Context, j *job) []Check {
	var in struct {
		MaxPaths int `json:"max_paths"`
	}
	var out struct {
		SVG string `json:"svg"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	info, err := CheckSVG(out.SVG)
	if err != nil {
		return []Check{fail(ckValidSVG, "%v", err), skipped(ckHasPath, "the SVG does not parse")}
	}
	checks := []Check{pass(ckValidSVG, "%d elements", info.Elements)}
	switch {
	case info.Paths == 0:
		return append(checks, fail(ckHasPath, "the SVG has no <path> element; draw at least one shape as a path"))
	case in.MaxPaths > 0 && info.Paths > in.MaxPaths:
		return append(checks, fail(ckHasPath, "the SVG has %d <path> elements; the buyer allowed at most %d", info.Paths, in.MaxPaths))
	}
	return append(checks, pass(ckHasPath, "%d paths", info.Paths))
}
