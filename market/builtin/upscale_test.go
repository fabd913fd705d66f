package builtin

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"
)

func testImage(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x * 255 / max(1, w-1)), G: uint8(y * 255 / max(1, h-1)), B: uint8((x ^ y) & 0xff), A: 255})
		}
	}
	return img
}

func pngB64(t testing.TB, img image.Image) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func upscaled(t testing.TB, r *Registry, capID, b64 string) image.Image {
	t.Helper()
	out, err := run(t, r, capID, map[string]any{"image_b64": b64})
	require.NoError(t, err)
	var o upscaleOutput
	require.NoError(t, json.Unmarshal(out, &o))
	raw, err := base64.StdEncoding.DecodeString(o.ImageB64)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	require.Equal(t, image.Pt(o.Width, o.Height), img.Bounds().Size())
	return img
}

func TestUpscaleDimensions(t *testing.T) {
	r := newTestRegistry(t)
	for _, size := range [][2]int{{1, 1}, {3, 7}, {64, 48}} {
		src := testImage(size[0], size[1])
		require.Equal(t, image.Pt(2*size[0], 2*size[1]), upscaled(t, r, CapUpscale2x, pngB64(t, src)).Bounds().Size())
		require.Equal(t, image.Pt(4*size[0], 4*size[1]), upscaled(t, r, CapUpscale4x, pngB64(t, src)).Bounds().Size())
	}
}

func TestUpscaleKeepsContentAndAlpha(t *testing.T) {
	r := newTestRegistry(t)
	src := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if x < 4 {
				src.SetNRGBA(x, y, color.NRGBA{R: 255, A: 255})
			} else {
				src.SetNRGBA(x, y, color.NRGBA{B: 255, A: 0})
			}
		}
	}
	out := upscaled(t, r, CapUpscale4x, pngB64(t, src))
	_, _, _, a := out.At(28, 16).RGBA()
	require.Zero(t, a, "transparent half stays transparent")
	rr, _, _, a := out.At(2, 16).RGBA()
	require.Equal(t, uint32(0xffff), a)
	require.Equal(t, uint32(0xffff), rr)
}

func TestUpscaleAcceptsJPEGAndDataURL(t *testing.T) {
	r := newTestRegistry(t)
	var buf bytes.Buffer
	require.NoError(t, jpeg.Encode(&buf, testImage(10, 6), nil))
	b64 := "data:image/jpeg;base64," + base64.RawStdEncoding.EncodeToString(buf.Bytes())
	require.Equal(t, image.Pt(20, 12), upscaled(t, r, CapUpscale2x, b64).Bounds().Size())
}

func TestUpscaleRejections(t *testing.T) {
	r := newTestRegistry(t)
	// A 1-pixel-high PNG header claiming 5000 pixels of width: refused from
	// the header, before decoding.
	wide := pngB64(t, image.NewGray(image.Rect(0, 0, 5000, 1)))
	big4x := pngB64(t, image.NewGray(image.Rect(0, 0, 1025, 1024)))
	testCases := []struct {
		name, capID string
		in          map[string]any
	}{
		{"missing image", CapUpscale2x, map[string]any{}},
		{"empty image", CapUpscale2x, map[string]any{"image_b64": ""}},
		{"not base64", CapUpscale2x, map[string]any{"image_b64": "!!!"}},
		{"not an image", CapUpscale2x, map[string]any{"image_b64": base64.StdEncoding.EncodeToString([]byte("hello world"))}},
		{"output side too large", CapUpscale2x, map[string]any{"image_b64": wide}},
		{"4x output too many pixels", CapUpscale4x, map[string]any{"image_b64": big4x}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, r, tc.capID, tc.in)
			requireInputError(t, err)
		})
	}
}
