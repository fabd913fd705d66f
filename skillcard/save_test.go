package skillcard_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/skillcard"
)

// writeCardFile writes the example card, changed by edit when set, as dir/name.
func writeCardFile(t *testing.T, dir, name string, edit func(map[string]any)) string {
	t.Helper()
	data := loadExample(t)
	if edit != nil {
		data = mutate(t, edit)
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestSaveWritesTheCardUnderItsNameByteForByte(t *testing.T) {
	src := t.TempDir()
	out := filepath.Join(t.TempDir(), "cards")
	card := writeCardFile(t, src, "my card.json", nil)

	res, err := skillcard.Save(card, out)
	require.NoError(t, err)
	saved := filepath.Join(out, "apeclaw-nft-autobuy.v1.0.0.json")
	require.Equal(t, skillcard.SaveResult{
		Source: card, Path: saved, Slug: "apeclaw-nft-autobuy", Version: "1.0.0",
		ContentHash: "0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa",
		Renamed:     true,
	}, res)
	want, err := os.ReadFile(card)
	require.NoError(t, err)
	got, err := os.ReadFile(saved)
	require.NoError(t, err)
	require.Equal(t, want, got, "saved byte for byte")
	fi, err := os.Stat(saved)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	again, err := skillcard.Save(saved, out)
	require.NoError(t, err)
	require.True(t, again.Unchanged, "the same card again: left alone")
	require.False(t, again.Renamed, "named as its content says")
}

func TestSaveRefusesWhatItCannotSave(t *testing.T) {
	src := t.TempDir()
	out := t.TempDir()
	_, err := skillcard.Save(writeCardFile(t, src, "card.json", nil), out)
	require.NoError(t, err)

	testCases := []struct {
		name  string
		src   string
		check func(t *testing.T, err error)
	}{
		{"same version, other content", writeCardFile(t, src, "changed.json", func(d map[string]any) { d["description"] = "something else" }), func(t *testing.T, err error) {
			require.ErrorIs(t, err, skillcard.ErrVersionTaken)
			require.ErrorContains(t, err, filepath.Join(out, "apeclaw-nft-autobuy.v1.0.0.json")+" already exists")
		}},
		{"invalid", writeCardFile(t, src, "invalid.json", func(d map[string]any) { d["version"] = "x" }), func(t *testing.T, err error) {
			var ve *skillcard.ValidationError
			require.ErrorAs(t, err, &ve)
			require.ErrorContains(t, err, "/version")
		}},
		{"missing", filepath.Join(src, "missing.json"), func(t *testing.T, err error) {
			var fe *skillcard.FileError
			require.ErrorAs(t, err, &fe)
			require.ErrorIs(t, err, fs.ErrNotExist)
		}},
		{"not JSON", func() string {
			p := filepath.Join(src, "junk.json")
			require.NoError(t, os.WriteFile(p, []byte("{nope"), 0o644))
			return p
		}(), func(t *testing.T, err error) {
			var fe *skillcard.FileError
			require.ErrorAs(t, err, &fe)
			require.ErrorIs(t, err, skillcard.ErrNotJSON)
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := skillcard.Save(tc.src, out)
			tc.check(t, err)
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			require.Len(t, entries, 1, "nothing else written")
		})
	}
}
