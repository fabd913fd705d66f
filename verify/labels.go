package verify

import (
	"embed"
	"fmt"
	"strings"
	"sync"
)

// Embedded reference lists (see the header line of each file for its source).
//
//go:embed data/*.txt
var dataFS embed.FS

// readList reads an embedded list: one entry per line, # comments skipped.
func readList(name string) []string {
	b, err := dataFS.ReadFile("data/" + name)
	if err != nil {
		panic(fmt.Sprintf("verify: embedded list %s missing: %v", name, err)) // build bug
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// iso6391 is the set of ISO 639-1 codes.
var iso6391 = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, c := range readList("iso639-1.txt") {
		m[c] = true
	}
	return m
})

// IsISO6391 reports whether code is a lowercase ISO 639-1 language code.
func IsISO6391(code string) bool { return iso6391()[code] }

// taxonomyLabels maps each image taxonomy to its accepted labels, folded to
// lower case. An ImageNet class line lists synonyms ("tench, Tinca tinca");
// each synonym is accepted.
var taxonomyLabels = sync.OnceValue(func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, tax := range imageTaxonomies {
		set := map[string]bool{}
		for _, line := range readList(tax + ".txt") {
			for _, syn := range strings.Split(line, ",") {
				if s := foldLabel(syn); s != "" {
					set[s] = true
				}
			}
		}
		out[tax] = set
	}
	return out
})

func foldLabel(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Labels returns the labels of an image taxonomy (imagenet-1k,
// coco-categories, safe-content), one entry per class as shipped.
func Labels(taxonomy string) ([]string, error) {
	for _, t := range imageTaxonomies {
		if t == taxonomy {
			return readList(taxonomy + ".txt"), nil
		}
	}
	return nil, fmt.Errorf("%w: taxonomy %q (known: %s)", ErrUnknownCapability, taxonomy, strings.Join(imageTaxonomies, ", "))
}
