package builtin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // input formats accepted besides PNG
	_ "image/jpeg"
	"image/png"
	"strings"

	"golang.org/x/image/draw"
)

// image.upscale.2x and image.upscale.4x
//
// The input image (PNG, JPEG or GIF, base64 in image_b64) is resampled with
// the Catmull-Rom kernel of golang.org/x/image/draw to exactly factor times
// its width and height, and returned as PNG (alpha kept). The header is read
// before the pixels, so a small file that claims a huge image is refused
// before any memory is spent on it.

const (
	// upscaleMaxOutputPixels bounds the output at 4096x4096 (64 MiB RGBA):
	// inputs up to 2048x2048 for 2x and 1024x1024 for 4x.
	upscaleMaxOutputPixels = 4096 * 4096
	upscaleMaxOutputSide   = 8192
	// upscaleMaxInputBytes bounds the decoded file.
	upscaleMaxInputBytes = 20 << 20
)

type upscaleInput struct {
	ImageB64 *string `json:"image_b64"`
}

type upscaleOutput struct {
	ImageB64 string `json:"image_b64"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
}

type upscaleHandler struct {
	capID  string
	factor int
}

func (h upscaleHandler) Handle(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in upscaleInput
	if err := decodeInput(h.capID, input, &in); err != nil {
		return nil, err
	}
	if in.ImageB64 == nil || *in.ImageB64 == "" {
		return nil, inputErr(h.capID, "image_b64 is required")
	}
	raw, err := decodeBase64(*in.ImageB64, upscaleMaxInputBytes)
	if err != nil {
		return nil, inputErr(h.capID, "image_b64: "+err.Error())
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, inputErr(h.capID, "image_b64 is not a PNG, JPEG or GIF image: "+err.Error())
	}
	if reason := h.checkSize(cfg.Width, cfg.Height); reason != "" {
		return nil, inputErr(h.capID, reason)
	}
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, inputErr(h.capID, fmt.Sprintf("decode %s image: %v", format, err))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, w, hgt, err := upscalePNG(src, h.factor)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.capID, err)
	}
	return encodeOutput(h.capID, upscaleOutput{ImageB64: base64.StdEncoding.EncodeToString(out), Width: w, Height: hgt})
}

func (h upscaleHandler) checkSize(w, hgt int) string {
	if w <= 0 || hgt <= 0 {
		return fmt.Sprintf("image is %dx%d; it needs at least one pixel", w, hgt)
	}
	ow, oh := int64(w)*int64(h.factor), int64(hgt)*int64(h.factor)
	if ow > upscaleMaxOutputSide || oh > upscaleMaxOutputSide || ow*oh > upscaleMaxOutputPixels {
		return fmt.Sprintf("image is %dx%d; the %dx output %dx%d exceeds the limit of %d pixels (%d per side)",
			w, hgt, h.factor, ow, oh, upscaleMaxOutputPixels, upscaleMaxOutputSide)
	}
	return ""
}

func upscalePNG(src image.Image, factor int) ([]byte, int, int, error) {
	b := src.Bounds()
	w, h := b.Dx()*factor, b.Dy()*factor
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, dst); err != nil {
		return nil, 0, 0, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), w, h, nil
}

// decodeBase64 accepts standard base64 with or without padding, and a
// data: URL prefix, which buyers commonly paste.
func decodeBase64(s string, limit int) ([]byte, error) {
	if strings.HasPrefix(s, "data:") {
		if i := strings.Index(s, ";base64,"); i >= 0 {
			s = s[i+len(";base64,"):]
		}
	}
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if base64.RawStdEncoding.DecodedLen(len(s)) > limit {
		return nil, fmt.Errorf("decoded size exceeds the limit of %d bytes", limit)
	}
	raw, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("not valid base64: %w", err)
	}
	return raw, nil
}
