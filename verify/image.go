package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif"  // input images of upscale may be GIF
	_ "image/jpeg" // input images of upscale may be JPEG
	"image/png"
	"math"
	"strings"

	"github.com/corona10/goimagehash"
)

// Image limits.
const (
	// MaxPNGBytes is the spec's "file size < 10MB", read as 10 MiB of PNG.
	MaxPNGBytes = 10 << 20
	// maxPixels bounds width*height before a PNG is decoded: a 1 KB PNG can
	// claim 100000x100000 pixels and make the decoder allocate 40 GB.
	maxPixels = 64 << 20
	// blankStdDev is the luminance standard deviation (0-255 scale) under
	// which an image counts as one uniform colour unless its perceptual
	// hash differs from a uniform image's.
	blankStdDev = 1.0
	// Channel levels (0-255) under/over which a pixel counts as black/white.
	blackLevel = 16
	whiteLevel = 239
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// decodedPNG is a PNG decoded from a base64 field.
type decodedPNG struct {
	raw []byte
	img image.Image
}

// decodeBase64 decodes standard base64 (padding optional), rejecting a
// data: URI prefix with a hint.
func decodeBase64(field, s string) ([]byte, error) {
	if strings.HasPrefix(s, "data:") {
		return nil, fmt.Errorf("%s starts with a data: URI prefix; send the bare base64", field)
	}
	s = strings.TrimRight(s, "=")
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not standard base64: %w", field, err)
	}
	return b, nil
}

// decodePNGField decodes field (base64 PNG) within the pixel limit.
func decodePNGField(field, b64 string) (*decodedPNG, error) {
	raw, err := decodeBase64(field, b64)
	if err != nil {
		return nil, err
	}
	img, err := decodePNG(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return &decodedPNG{raw: raw, img: img}, nil
}

// decodePNG decodes PNG bytes, checking the signature and the pixel count
// before allocating the image.
func decodePNG(raw []byte) (image.Image, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty image")
	}
	if !bytes.HasPrefix(raw, pngMagic) {
		return nil, fmt.Errorf("not a PNG (missing the PNG signature; %s)", sniff(raw))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("PNG header: %w", err)
	}
	if err := checkPixels(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("PNG data: %w", err)
	}
	return img, nil
}

func checkPixels(w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("image is %dx%d", w, h)
	}
	if int64(w)*int64(h) > maxPixels {
		return fmt.Errorf("image is %dx%d, more than the %d-megapixel limit", w, h, maxPixels>>20)
	}
	return nil
}

// sniff names a few formats sellers send by mistake.
func sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "looks like JPEG"
	case bytes.HasPrefix(b, []byte("GIF8")):
		return "looks like GIF"
	case len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "looks like WebP"
	case bytes.Contains(b[:min(len(b), 256)], []byte("<svg")):
		return "looks like SVG"
	default:
		return fmt.Sprintf("first bytes %q", b[:min(len(b), 8)])
	}
}

func dims(img image.Image) (int, int) {
	b := img.Bounds()
	return b.Dx(), b.Dy()
}

// skipped is reported for a check that needs an artefact that failed to decode.
func skipped(name, why string) Check {
	return fail(name, "not checked: %s", why)
}

func pngCheck(p *decodedPNG, err error) Check {
	if err != nil {
		return fail(ckValidPNG, "%v", err)
	}
	w, h := dims(p.img)
	return pass(ckValidPNG, "%dx%d PNG, %d bytes", w, h, len(p.raw))
}

func verifyPhotorealistic(_ context.Context, j *job) []Check {
	var in struct{ Width, Height int }
	var out struct {
		ImageB64 string `json:"image_b64"`
		Width    int    `json:"width"`
		Height   int    `json:"height"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	p, err := decodePNGField("image_b64", out.ImageB64)
	checks := []Check{pngCheck(p, err)}
	if err != nil {
		return append(checks, skipped(ckDimensions, "no image"), skipped(ckFileSize, "no image"), skipped(ckNotBlank, "no image"))
	}
	return append(checks,
		dimensionsCheck(p.img, in.Width, in.Height, out.Width, out.Height),
		fileSizeCheck(p.raw),
		notBlankCheck(p.img))
}

// dimensionsCheck compares the decoded size with the requested one and the
// one the output claims.
func dimensionsCheck(img image.Image, wantW, wantH, claimW, claimH int) Check {
	w, h := dims(img)
	switch {
	case w != wantW || h != wantH:
		return fail(ckDimensions, "image is %dx%d, the buyer asked for %dx%d", w, h, wantW, wantH)
	case claimW != w || claimH != h:
		return fail(ckDimensions, "output claims width=%d height=%d but the image is %dx%d", claimW, claimH, w, h)
	}
	return pass(ckDimensions, "%dx%d as requested", w, h)
}

func fileSizeCheck(raw []byte) Check {
	if len(raw) >= MaxPNGBytes {
		return fail(ckFileSize, "PNG is %d bytes; it must be under %d (10 MiB): compress it or reduce detail", len(raw), MaxPNGBytes)
	}
	return pass(ckFileSize, "%d bytes", len(raw))
}

// lumaStats returns the luminance mean and standard deviation (0-255) and
// whether every pixel has the same alpha.
func lumaStats(img image.Image) (mean, std float64) {
	var sum, sumSq float64
	n := 0
	eachPixel(img, func(r, g, b, _ uint32) {
		y := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
		sum += y
		sumSq += y * y
		n++
	})
	if n == 0 {
		return 0, 0
	}
	mean = sum / float64(n)
	return mean, math.Sqrt(math.Max(0, sumSq/float64(n)-mean*mean))
}

// eachPixel calls f with the premultiplied 16-bit RGBA of every pixel, with
// fast paths for the types image/png returns most.
func eachPixel(img image.Image, f func(r, g, b, a uint32)) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.NRGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[(y-b.Min.Y)*m.Stride:]
			for x := 0; x < b.Dx(); x++ {
				p := row[x*4 : x*4+4]
				a := uint32(p[3]) * 0x101
				f(uint32(p[0])*0x101*a/0xffff, uint32(p[1])*0x101*a/0xffff, uint32(p[2])*0x101*a/0xffff, a)
			}
		}
	case *image.RGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[(y-b.Min.Y)*m.Stride:]
			for x := 0; x < b.Dx(); x++ {
				p := row[x*4 : x*4+4]
				f(uint32(p[0])*0x101, uint32(p[1])*0x101, uint32(p[2])*0x101, uint32(p[3])*0x101)
			}
		}
	case *image.Gray:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[(y-b.Min.Y)*m.Stride:]
			for x := 0; x < b.Dx(); x++ {
				v := uint32(row[x]) * 0x101
				f(v, v, v, 0xffff)
			}
		}
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				f(img.At(x, y).RGBA())
			}
		}
	}
}

func notBlankCheck(img image.Image) Check {
	mean, std := lumaStats(img)
	if std >= blankStdDev {
		return pass(ckNotBlank, "luminance std dev %.1f", std)
	}
	// Nearly uniform: a perceptual hash that differs from a uniform
	// image's still shows content (a small figure on a plain background).
	got, err1 := goimagehash.PerceptionHash(img)
	blank, err2 := goimagehash.PerceptionHash(uniformGray(uint8(mean)))
	if err1 == nil && err2 == nil {
		if d, err := got.Distance(blank); err == nil && d > 0 {
			return pass(ckNotBlank, "nearly uniform (luminance std dev %.2f) but perceptual hash differs from blank by %d bits", std, d)
		}
	}
	return fail(ckNotBlank, "image is blank: one uniform colour (luminance mean %.0f, std dev %.2f, perceptual hash equals a blank image's)", mean, std)
}

func verifyIllustrationPNG(_ context.Context, j *job) []Check {
	var out struct {
		ImageB64 string `json:"image_b64"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	p, err := decodePNGField("image_b64", out.ImageB64)
	checks := []Check{pngCheck(p, err)}
	if err != nil {
		return append(checks, skipped(ckNotBlackWhite, "no image"))
	}
	return append(checks, blackWhiteCheck(p.img))
}

func blackWhiteCheck(img image.Image) Check {
	allBlack, allWhite := true, true
	const lo, hi = blackLevel * 257, whiteLevel * 257
	eachPixel(img, func(r, g, b, _ uint32) {
		if max(r, g, b) > lo {
			allBlack = false
		}
		if min(r, g, b) < hi {
			allWhite = false
		}
	})
	switch {
	case allBlack:
		return fail(ckNotBlackWhite, "every pixel is black (or fully transparent)")
	case allWhite:
		return fail(ckNotBlackWhite, "every pixel is white")
	}
	return pass(ckNotBlackWhite, "has pixels that are neither black nor white")
}

func verifyBackgroundRemove(_ context.Context, j *job) []Check {
	var out struct {
		ImageB64 string `json:"image_b64"`
		MaskB64  string `json:"mask_b64"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	p, err := decodePNGField("image_b64", out.ImageB64)
	checks := []Check{pngCheck(p, err)}
	if err != nil {
		checks = append(checks, skipped(ckHasAlpha, "no image"))
	} else {
		checks = append(checks, alphaCheck(p.raw))
	}
	return append(checks, maskCheck(out.MaskB64))
}

// pngHasAlpha reads the PNG's colour type from IHDR: grey+alpha (4) and
// RGBA (6) have an alpha channel; grey, RGB and palette images have one
// when a tRNS chunk precedes the image data. (image/png returns *image.RGBA
// for opaque RGB files, so the decoded type cannot tell.)
func pngHasAlpha(raw []byte) bool {
	const ihdrColorType = 8 + 8 + 9 // signature, length+type, width+height+depth
	if len(raw) <= ihdrColorType {
		return false
	}
	if ct := raw[ihdrColorType]; ct == 4 || ct == 6 {
		return true
	}
	for off := 8; off+8 <= len(raw); {
		n := int(binary.BigEndian.Uint32(raw[off:]))
		typ := string(raw[off+4 : off+8])
		switch typ {
		case "tRNS":
			return true
		case "IDAT", "IEND":
			return false
		}
		if n < 0 || n > len(raw) {
			return false
		}
		off += 12 + n
	}
	return false
}

func alphaCheck(raw []byte) Check {
	if !pngHasAlpha(raw) {
		return fail(ckHasAlpha, "PNG has no alpha channel; save it as RGBA so the removed background is transparent")
	}
	return pass(ckHasAlpha, "alpha channel present")
}

func maskCheck(b64 string) Check {
	p, err := decodePNGField("mask_b64", b64)
	if err != nil {
		return fail(ckMaskBinary, "%v", err)
	}
	other := 0
	var first image.Point
	b := p.img.Bounds()
	x, y := b.Min.X, b.Min.Y
	eachPixel(p.img, func(r, g, bl, a uint32) {
		black := r == 0 && g == 0 && bl == 0
		white := r == 0xffff && g == 0xffff && bl == 0xffff && a == 0xffff
		if !black && !white {
			if other == 0 {
				first = image.Pt(x, y)
			}
			other++
		}
		if x++; x == b.Max.X {
			x, y = b.Min.X, y+1
		}
	})
	if other > 0 {
		return fail(ckMaskBinary, "%d mask pixels are neither pure black nor pure white (first at %d,%d); threshold the mask", other, first.X, first.Y)
	}
	return pass(ckMaskBinary, "every pixel is pure black or white")
}

func verifyUpscale(factor int) verifier {
	return func(_ context.Context, j *job) []Check {
		var in, out struct {
			ImageB64 string `json:"image_b64"`
		}
		if err := j.decode(&in, &out); err != nil {
			return decodeFailed(err)
		}
		p, err := decodePNGField("image_b64", out.ImageB64)
		checks := []Check{pngCheck(p, err)}
		if err != nil {
			return append(checks, skipped(ckUpscale, "no output image"))
		}
		raw, err := decodeBase64("input image_b64", in.ImageB64)
		if err != nil {
			return append(checks, fail(ckUpscale, "cannot read the input image: %v", err))
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
		if err != nil {
			return append(checks, fail(ckUpscale, "cannot read the input image's size: %v", err))
		}
		w, h := dims(p.img)
		wantW, wantH := cfg.Width*factor, cfg.Height*factor
		if w != wantW || h != wantH {
			return append(checks, fail(ckUpscale, "output is %dx%d; %dx of the %dx%d input (%s) is %dx%d", w, h, factor, cfg.Width, cfg.Height, format, wantW, wantH))
		}
		return append(checks, pass(ckUpscale, "%dx%d is exactly %dx the input", w, h, factor))
	}
}

func verifyChart(_ context.Context, j *job) []Check {
	var in struct {
		Data          []any `json:"data"`
		Width, Height int
	}
	var out struct {
		ImageB64 string `json:"image_b64"`
		Width    int    `json:"width"`
		Height   int    `json:"height"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	p, err := decodePNGField("image_b64", out.ImageB64)
	checks := []Check{pngCheck(p, err)}
	if err != nil {
		checks = append(checks, skipped(ckDimensions, "no image"))
	} else {
		checks = append(checks, dimensionsCheck(p.img, in.Width, in.Height, out.Width, out.Height))
	}
	checks = append(checks, result(ckDataNonEmpty, len(in.Data) > 0,
		fmt.Sprintf("%d data points", len(in.Data)), "the input data series is empty: nothing to chart"))
	if err != nil {
		return append(checks, skipped(ckNotBlank, "no image"))
	}
	return append(checks, notBlankCheck(p.img))
}

// uniformGray is a blank reference image for the perceptual hash.
func uniformGray(y uint8) image.Image {
	g := image.NewGray(image.Rect(0, 0, 64, 64))
	for i := range g.Pix {
		g.Pix[i] = y
	}
	return g
}
