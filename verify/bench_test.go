package verify_test

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// BenchmarkVerifyPNG1024 verifies image.generate.photorealistic.png with a
// 1024x1024 RGBA PNG of noise (incompressible, like a photo: about 4 MB):
// JSON and base64 decoding, PNG decode, dimensions, size and blank checks.
func BenchmarkVerifyPNG1024(b *testing.B) {
	in := mustJSON(b, obj{"prompt": "x", "width": 1024, "height": 1024})
	raw := encodePNG(b, noise(1024, 1024))
	out := mustJSON(b, obj{"image_b64": b64(raw), "width": 1024, "height": 1024})
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(out)))
	b.ResetTimer()
	for b.Loop() {
		rep, err := verify.Verify(ctx, "image.generate.photorealistic.png", in, out)
		if err != nil || !rep.Passed {
			b.Fatal(err, rep.Summary())
		}
	}
	b.ReportMetric(float64(len(raw))/1e6, "png-MB")
}

// BenchmarkVerifySummary2000Words verifies text.summarize.short with a
// 10,000-word input and a 2,000-word summary.
func BenchmarkVerifySummary2000Words(b *testing.B) {
	in := mustJSON(b, obj{"text": words(10000, "lorem")})
	out := mustJSON(b, obj{"summary": words(2000, "ipsum")})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rep, err := verify.Verify(ctx, "text.summarize.short", in, out)
		if err != nil || !rep.Passed {
			b.Fatal(err, rep.Summary())
		}
	}
}

// noise is a deterministic pseudo-random opaque image.
func noise(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func kilobyteOf(s string) string {
	var sb strings.Builder
	for sb.Len() < 1024 {
		sb.WriteString(s)
		sb.WriteByte(' ')
	}
	return sb.String()[:1024]
}

// BenchmarkDetectLanguage1KB detects the language of 1 KB of text, per
// script path (Latin goes through whatlanggo's trigrams).
func BenchmarkDetectLanguage1KB(b *testing.B) {
	for _, tc := range []struct{ lang, text string }{{"en", enLong}, {"de", deLong}, {"ja", jaLong}} {
		text := strings.ToValidUTF8(kilobyteOf(tc.text), "")
		b.Run(tc.lang, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if got := verify.DetectLanguage(text); got != tc.lang {
					b.Fatalf("detected %s", got)
				}
			}
		})
	}
}

// BenchmarkDetectorMemory reports the heap in use after a GC once the
// detector has run (whatlanggo builds its trigram tables at init; see
// GODEBUG=inittrace=1 for that package alone) and the bytes one detection
// of 1 KB allocates.
func BenchmarkDetectorMemory(b *testing.B) {
	text := kilobyteOf(enLong)
	verify.DetectLanguage(text)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		verify.DetectLanguage(text)
	}
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-inuse-MB")
}

// codeTemplates is a ten-line function per language; %d makes names unique.
var codeTemplates = map[string]struct{ head, fn, tail string }{
	"python":     {"", "def f%d(a, b):\n    total = 0\n    for i in range(a):\n        if i %% 2 == 0:\n            total += i * b\n        else:\n            total -= i\n    values = [total, a, b]\n    return max(values)\n\n", ""},
	"javascript": {"", "function f%d(a, b) {\n  let total = 0;\n  for (let i = 0; i < a; i++) {\n    if (i %% 2 === 0) {\n      total += i * b;\n    } else {\n      total -= i;\n    }\n  }\n  return Math.max(total, a, b);\n}\n", ""},
	"typescript": {"", "function f%d(a: number, b: number): number {\n  let total: number = 0;\n  for (let i = 0; i < a; i++) {\n    if (i %% 2 === 0) {\n      total += i * b;\n    } else {\n      total -= i;\n    }\n  }\n  return Math.max(total, a, b);\n}\n", ""},
	"go":         {"package main\n\n", "func f%d(a, b int) int {\n\ttotal := 0\n\tfor i := 0; i < a; i++ {\n\t\tif i%%2 == 0 {\n\t\t\ttotal += i * b\n\t\t} else {\n\t\t\ttotal -= i\n\t\t}\n\t}\n\treturn max(total, a, b)\n}\n", ""},
	"rust":       {"", "fn f%d(a: i64, b: i64) -> i64 {\n    let mut total = 0;\n    for i in 0..a {\n        if i %% 2 == 0 {\n            total += i * b;\n        } else {\n            total -= i;\n        }\n    }\n    total.max(a).max(b)\n}\n", ""},
	"java":       {"class M {\n", "  static int f%d(int a, int b) {\n    int total = 0;\n    for (int i = 0; i < a; i++) {\n      if (i %% 2 == 0) {\n        total += i * b;\n      } else {\n        total -= i;\n      }\n    }\n    return Math.max(total, Math.max(a, b));\n  }\n", "}\n"},
	"ruby":       {"", "def f%d(a, b)\n  total = 0\n  a.times do |i|\n    if i.even?\n      total += i * b\n    else\n      total -= i\n    end\n  end\n  [total, a, b].max\nend\n", ""},
	"php":        {"<?php\n", "function f%d($a, $b) {\n    $total = 0;\n    for ($i = 0; $i < $a; $i++) {\n        if ($i %% 2 == 0) {\n            $total += $i * $b;\n        } else {\n            $total -= $i;\n        }\n    }\n    return max($total, $a, $b);\n}\n", ""},
	"csharp":     {"class M {\n", "  static int F%d(int a, int b) {\n    int total = 0;\n    for (int i = 0; i < a; i++) {\n      if (i %% 2 == 0) {\n        total += i * b;\n      } else {\n        total -= i;\n      }\n    }\n    return System.Math.Max(total, System.Math.Max(a, b));\n  }\n", "}\n"},
	"swift":      {"", "func f%d(_ a: Int, _ b: Int) -> Int {\n    var total = 0\n    for i in 0..<a {\n        if i %% 2 == 0 {\n            total += i * b\n        } else {\n            total -= i\n        }\n    }\n    return max(total, a, b)\n}\n", ""},
	"kotlin":     {"", "fun f%d(a: Int, b: Int): Int {\n    var total = 0\n    for (i in 0 until a) {\n        if (i %% 2 == 0) {\n            total += i * b\n        } else {\n            total -= i\n        }\n    }\n    return maxOf(total, a, b)\n}\n", ""},
}

// program200 is a program of at least 200 lines in lang.
func program200(lang string) string {
	t := codeTemplates[lang]
	var sb strings.Builder
	sb.WriteString(t.head)
	for i := 0; strings.Count(sb.String(), "\n") < 200; i++ {
		fmt.Fprintf(&sb, t.fn, i)
	}
	sb.WriteString(t.tail)
	return sb.String()
}

func TestProgram200ParsesInEveryLanguage(t *testing.T) {
	for lang := range codeTemplates {
		src := program200(lang)
		require.GreaterOrEqual(t, strings.Count(src, "\n"), 200)
		p, err := verify.ParseCode(context.Background(), lang, src)
		require.NoError(t, err, lang)
		require.GreaterOrEqual(t, len(p.Functions), 18, lang)
	}
}

// BenchmarkParse200Lines parses 200 lines of each language.
func BenchmarkParse200Lines(b *testing.B) {
	for _, lang := range []string{"python", "javascript", "typescript", "go", "rust", "java", "ruby", "php", "csharp", "swift", "kotlin"} {
		src := program200(lang)
		b.Run(lang, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := verify.ParseCode(ctx, lang, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
