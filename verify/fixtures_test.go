package verify_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tcolgate/mp3"
)

// Fixtures shared by the capability tests, fuzz seeds and benchmarks.

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func pngB64(t testing.TB, img image.Image) string {
	return base64.StdEncoding.EncodeToString(encodePNG(t, img))
}

// gradient is an opaque RGBA picture with content in every channel.
func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / max(1, w-1)), uint8(y * 255 / max(1, h-1)), uint8((x + y) % 256), 255})
		}
	}
	return img
}

// translucent is gradient with a transparent left half (a cut-out).
func translucent(w, h int) *image.NRGBA {
	img := gradient(w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w/2; x++ {
			img.SetNRGBA(x, y, color.NRGBA{})
		}
	}
	return img
}

// opaqueRGB encodes as a PNG without alpha channel (colour type 2).
func opaqueRGB(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 100, 255})
		}
	}
	return img
}

func uniform(w, h int, c color.Color) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	return img
}

// mask is a black/white mask; grey adds one mid-grey pixel.
func mask(w, h int, grey bool) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := w / 2; x < w; x++ {
			img.SetGray(x, y, color.Gray{255})
		}
	}
	if grey {
		img.SetGray(1, 1, color.Gray{128})
	}
	return img
}

// mp3Bytes is n silent MPEG-1 Layer III frames (26 ms each).
func mp3Bytes(n int) []byte {
	return bytes.Repeat(mp3.SilentBytes, n)
}

func mp3B64(n int) string { return base64.StdEncoding.EncodeToString(mp3Bytes(n)) }

// wavBytes is a RIFF/WAVE header and silence that happens to contain an
// MPEG frame sync.
func wavBytes() []byte {
	b := []byte("RIFF\x24\x08\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x44\xac\x00\x00\x10\xb1\x02\x00\x04\x00\x10\x00data\x00\x08\x00\x00")
	b = append(b, 0xff, 0xfb, 0x90, 0x00)
	return append(b, make([]byte, 2048)...)
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func words(n int, word string) string {
	return strings.TrimSpace(strings.Repeat(word+" ", n))
}

type obj = map[string]any

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
