package verify

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Suggest returns the known capability ID closest to id (a typo of one),
// or "" when none is close. Families are matched with their placeholders
// filled by id's own segments, so "text.translate.en.it.fluemt" suggests
// "text.translate.en.it.fluent".
func Suggest(id string) string {
	best, bestDist := "", 4 // more than 3 edits away is not a typo
	for _, c := range List() {
		cand := c.ID
		if strings.Contains(cand, "{") {
			cand = fillFrom(c, id)
		}
		if cand == id {
			continue
		}
		if d := editDistance(id, cand, bestDist); d < bestDist {
			if _, err := Parse(cand); err == nil {
				best, bestDist = cand, d
			}
		}
	}
	return best
}

// fillFrom fills the placeholders of family c with id's segments at the
// same positions, each replaced by the nearest allowed value when it is
// not one.
func fillFrom(c Capability, id string) string {
	allowed := map[string][]string{}
	for _, p := range c.Placeholders {
		allowed["{"+p.Name+"}"] = p.Allowed
	}
	t, s := strings.Split(c.ID, "."), strings.Split(id, ".")
	for i, seg := range t {
		if !strings.HasPrefix(seg, "{") || i >= len(s) {
			continue
		}
		t[i] = s[i]
		if vals := allowed[seg]; len(vals) > 0 && !slices.Contains(vals, s[i]) {
			best := 4
			for _, v := range vals {
				if d := editDistance(s[i], v, best); d < best {
					t[i], best = v, d
				}
			}
		}
	}
	return strings.Join(t, ".")
}

// editDistance is the Levenshtein distance of a and b, or limit when it is
// at least limit (the search stops early).
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

// CheckKnown accepts a well-formed ID that names a capability: a standard
// one of the taxonomy, a custom.<provider>.<capability> or a WCP ID. A
// taxonomy-shaped ID the taxonomy does not have is an error wrapping
// ErrUnknownCapability that suggests the nearest known one.
func CheckKnown(id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	_, err := Parse(id)
	if err == nil || !errors.Is(err, ErrUnknownCapability) {
		return err
	}
	if s := Suggest(id); s != "" {
		return fmt.Errorf("%w; did you mean %s?", err, s)
	}
	return err
}
