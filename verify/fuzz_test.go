package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/tcolgate/mp3"
)

// Fuzz targets for every decoder that reads seller-supplied bytes: random
// input must produce an error or a result, never a panic or a hang.

func seedPNG(f *testing.F) {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	img.Set(3, 3, color.NRGBA{255, 0, 0, 128})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	g := image.NewGray(image.Rect(0, 0, 4, 4))
	buf.Reset()
	if err := png.Encode(&buf, g); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(pngMagic)
	f.Add([]byte{})
}

func FuzzPNGNoPanic(f *testing.F) {
	seedPNG(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := decodePNG(b)
		pngHasAlpha(b)
		if err != nil {
			return
		}
		w, h := dims(img)
		if err := checkPixels(w, h); err != nil {
			t.Fatalf("decodePNG accepted a %dx%d image: %v", w, h, err)
		}
		notBlankCheck(img)
		blackWhiteCheck(img)
		maskCheck(base64.StdEncoding.EncodeToString(b))
	})
}

func FuzzMP3NoPanic(f *testing.F) {
	f.Add(bytes.Repeat(mp3.SilentBytes, 3))
	f.Add(append([]byte("ID3\x03\x00\x00\x00\x00\x00\x10"), bytes.Repeat(mp3.SilentBytes, 2)...))
	f.Add([]byte("RIFF\x24\x08\x00\x00WAVE"))
	f.Add([]byte{0xff, 0xfb, 0x90, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := CheckMP3(b)
		if err == nil && (info.Frames == 0 || info.Duration <= 0) {
			t.Fatalf("CheckMP3 accepted %d frames of %s", info.Frames, info.Duration)
		}
	})
}

func FuzzSVGNoPanic(f *testing.F) {
	f.Add(`<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/></svg>`)
	f.Add(`<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>`)
	f.Add(`<svg xmlns="http://www.w3.org/2000/svg"><g><g><path/></g></g></svg><x/>`)
	f.Add(`<`)
	f.Fuzz(func(t *testing.T, s string) {
		info, err := CheckSVG(s)
		if err == nil && info.Elements == 0 {
			t.Fatal("CheckSVG accepted a document without elements")
		}
	})
}

var fuzzLangs = []string{"python", "javascript", "typescript", "go", "rust", "java", "ruby", "php", "csharp", "swift", "kotlin"}

func FuzzCodeParseNoPanic(f *testing.F) {
	f.Add(uint8(0), "def f(a, b):\n    return a\n")
	f.Add(uint8(3), "func F(a, b int) int { return a }")
	f.Add(uint8(6), "def f\nend\n")
	f.Add(uint8(7), "<?php function f($a) {}")
	f.Add(uint8(9), "func f(_ a: Int) {}")
	f.Add(uint8(10), "fun f(a: Int) {}")
	f.Fuzz(func(t *testing.T, which uint8, src string) {
		lang := fuzzLangs[int(which)%len(fuzzLangs)]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p, err := ParseCode(ctx, lang, src)
		if err == nil && p == nil {
			t.Fatal("nil result without error")
		}
		_, _ = ParseSignature(ctx, lang, src)
	})
}
