package skillcard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/swarmwage/swarmwage/internal/atomicfile"
)

// ErrVersionTaken is returned by Save when the directory already holds a
// card of the same slug and version with other content: the spec's file
// name names one content, so a changed card needs a new version.
var ErrVersionTaken = errors.New("already exists with other content: a changed card needs a new version")

// SaveResult is what Save did ('swarmwage skillcard save --json').
type SaveResult struct {
	Source      string `json:"source"`
	Path        string `json:"path"`
	Slug        string `json:"slug"`
	Version     string `json:"version"`
	ContentHash string `json:"contentHash"`
	// Renamed is true when the source's name disagreed with its content.
	Renamed bool `json:"renamed"`
	// Unchanged is true when the same card was already saved there.
	Unchanged bool `json:"unchanged"`
}

// Save validates the card at src and writes its bytes, as they are, to
// dir/{slug}.v{version}.json (FileName), atomically; dir is created if
// need be. The same card already saved there is left alone (Unchanged);
// another card under that name is ErrVersionTaken. A src that cannot be
// read or is not JSON is a *FileError, an invalid card a
// *ValidationError, and nothing is written in either case.
func Save(src, dir string) (SaveResult, error) {
	card, data, err := readFile(src)
	if err != nil {
		return SaveResult{}, err
	}
	if err := card.Err(); err != nil {
		return SaveResult{}, fmt.Errorf("%s: %w", src, err)
	}
	dst := filepath.Join(dir, card.FileName())
	res := SaveResult{
		Source: src, Path: dst, Slug: card.Slug, Version: card.Version,
		ContentHash: card.ContentHash(), Renamed: card.CheckFileName(src) != nil,
	}
	existing, err := ParseFile(dst)
	switch {
	case err == nil && existing.ContentHash() == res.ContentHash:
		res.Unchanged = true
		return res, nil
	case err == nil || !errors.Is(err, fs.ErrNotExist):
		return SaveResult{}, fmt.Errorf("%s %w", dst, ErrVersionTaken)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return SaveResult{}, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := atomicfile.Write(dst, data, 0o644); err != nil {
		return SaveResult{}, err
	}
	return res, nil
}
