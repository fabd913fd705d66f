package route

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Catalog is a WCP catalog: capability IDs with their status. Published IDs
// are never removed, only tombstoned with a pointer to their successor.
type Catalog struct {
	entries map[string]CatalogEntry
}

// CatalogEntry is one capability of a catalog.
type CatalogEntry struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	SupersededBy      string `json:"superseded_by,omitempty"`
	DeprecatedCatalog string `json:"deprecated_catalog,omitempty"`
	SunsetCatalog     string `json:"sunset_catalog,omitempty"`
}

// Tombstoned reports whether the entry points to a successor.
func (e CatalogEntry) Tombstoned() bool {
	return e.SupersededBy != "" || e.Status == "deprecated" || e.Status == "tombstoned" || e.Status == "sunset"
}

// maxCatalogSize caps a catalog file: the WCP catalog has a few hundred
// entries.
const maxCatalogSize = 8 << 20

// maxChain caps how many tombstones a resolution follows.
const maxChain = 64

// ErrBadCatalog is wrapped by every catalog error.
var ErrBadCatalog = errors.New("invalid WCP catalog")

// LoadCatalog reads a catalog file: {"capabilities": [{"id", "status",
// "superseded_by", "deprecated_catalog", "sunset_catalog"}]}.
func LoadCatalog(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read WCP catalog: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCatalogSize+1))
	if err != nil {
		return nil, fmt.Errorf("read WCP catalog %s: %w", path, err)
	}
	c, err := ParseCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCatalog parses a catalog document and checks that every tombstone
// leads, without a loop, to a capability that is not tombstoned.
func ParseCatalog(data []byte) (*Catalog, error) {
	if len(data) > maxCatalogSize {
		return nil, fmt.Errorf("%w: over %d bytes", ErrBadCatalog, maxCatalogSize)
	}
	var doc struct {
		Capabilities []CatalogEntry `json:"capabilities"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCatalog, err)
	}
	c := &Catalog{entries: make(map[string]CatalogEntry, len(doc.Capabilities))}
	for i, e := range doc.Capabilities {
		if e.ID == "" || strings.ContainsAny(e.ID, " \t/") {
			return nil, fmt.Errorf("%w: capabilities[%d]: id %q is not a capability ID", ErrBadCatalog, i, e.ID)
		}
		if _, dup := c.entries[e.ID]; dup {
			return nil, fmt.Errorf("%w: capabilities[%d]: %s listed twice", ErrBadCatalog, i, e.ID)
		}
		c.entries[e.ID] = e
	}
	for id := range c.entries {
		if _, _, err := c.Resolve(id); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Lookup returns a capability's catalog entry.
func (c *Catalog) Lookup(id string) (CatalogEntry, bool) {
	if c == nil {
		return CatalogEntry{}, false
	}
	e, ok := c.entries[id]
	return e, ok
}

// Resolve follows id's tombstones to the capability that serves it now.
// It returns id itself when it is not tombstoned (or not in the catalog),
// and the chain of IDs passed through. A loop or a tombstone without a
// successor is an error.
func (c *Catalog) Resolve(id string) (string, []string, error) {
	chain := []string{id}
	seen := map[string]bool{id: true}
	cur := id
	for range maxChain {
		e, ok := c.Lookup(cur)
		if !ok || !e.Tombstoned() {
			return cur, chain, nil
		}
		if e.SupersededBy == "" {
			return "", chain, fmt.Errorf("%w: %s is %s with no superseded_by", ErrBadCatalog, cur, e.Status)
		}
		if seen[e.SupersededBy] {
			return "", chain, fmt.Errorf("%w: tombstones loop: %s -> %s", ErrBadCatalog, strings.Join(chain, " -> "), e.SupersededBy)
		}
		cur = e.SupersededBy
		seen[cur] = true
		chain = append(chain, cur)
	}
	return "", chain, fmt.Errorf("%w: more than %d tombstones from %s", ErrBadCatalog, maxChain, id)
}
