package verify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// codeSample is valid and invalid code per language, plus a signature and a
// function that matches it.
type codeSample struct {
	lang      string
	valid     string
	invalid   string
	signature string
	function  string
	// wrongParams defines the signature's function with other parameter names.
	wrongParams string
}

var codeSamples = []codeSample{
	{"python", "import sys\n\ndef main():\n    print(sys.argv)\n\nif __name__ == '__main__':\n    main()\n",
		"def main(:\n    print('x')\n",
		"def add(a: int, b: int = 0) -> int", "def add(a: int, b: int = 0) -> int:\n    return a + b\n", "def add(x, y):\n    return x + y\n"},
	{"javascript", "const fs = require('fs');\nfunction main() { console.log(fs.existsSync('.')); }\nmain();\n",
		"function main( { console.log('x') }",
		"function add(a, b = 0)", "function add(a, b = 0) {\n  return a + b;\n}\n", "const add = (x, y) => x + y;\n"},
	{"typescript", "interface P { x: number }\nfunction main(p: P): void { console.log(p.x); }\nmain({ x: 1 });\n",
		"function main(p: P: void { }",
		"function add(a: number, b: number): number", "export function add(a: number, b: number): number {\n  return a + b;\n}\n", "function add(a: number): number { return a; }\n"},
	{"go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
		"package main\n\nfunc main() {\n\tfmt.Println(\"hi\"\n}\n",
		"func Add(a, b int) int", "// Add adds.\nfunc Add(a, b int) int { return a + b }\n", "func Add(x, y int) int { return x + y }\n"},
	{"rust", "use std::io;\n\nfn main() {\n    let s = io::stdin();\n    println!(\"{:?}\", s);\n}\n",
		"fn main() {\n    let x = ;\n}\n",
		"fn add(a: i32, b: i32) -> i32", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n", "fn add(x: i32, y: i32) -> i32 { x + y }\n"},
	{"java", "public class Main {\n    public static void main(String[] args) {\n        System.out.println(\"hi\");\n    }\n}\n",
		"public class Main {\n    public static void main(String[] args) {\n        System.out.println(\"hi\")\n    }\n}\n",
		"public static int add(int a, int b)", "class M {\n    public static int add(int a, int b) { return a + b; }\n}\n", "class M { static int add(int x) { return x; } }\n"},
	{"ruby", "require 'json'\n\ndef main\n  puts JSON.generate({a: 1})\nend\n\nmain\n",
		"def main\n  puts 'x'\n",
		"def add(a, b = 0)", "def add(a, b = 0)\n  a + b\nend\n", "def add(x)\n  x\nend\n"},
	{"php", "<?php\nfunction main(): void {\n    echo \"hi\";\n}\nmain();\n",
		"<?php\nfunction main( {\n    echo \"hi\";\n}\n",
		"function add(int $a, int $b): int", "<?php\nfunction add(int $a, int $b): int {\n    return $a + $b;\n}\n", "<?php\nfunction add($x, $y) { return $x + $y; }\n"},
	{"csharp", "using System;\nclass Program {\n    static void Main() {\n        Console.WriteLine(\"hi\");\n    }\n}\n",
		"class Program {\n    static void Main() {\n        Console.WriteLine(\"hi\"\n    }\n}\n",
		"public static int Add(int a, int b)", "static class M {\n    public static int Add(int a, int b) => a + b;\n}\n", "class M { int Add(int x, int y) { return x + y; } }\n"},
	{"swift", "import Foundation\n\nfunc main() {\n    print(\"hi\")\n}\nmain()\n",
		"func main() {\n    print(\"hi\"\n}\n",
		"func add(_ a: Int, to b: Int) -> Int", "func add(_ a: Int, to b: Int) -> Int {\n    return a + b\n}\n", "func add(x: Int, y: Int) -> Int { return x + y }\n"},
	{"kotlin", "fun main() {\n    val xs = listOf(1, 2)\n    println(xs.sum())\n}\n",
		"fun main() {\n    println(\"hi\"\n}\n",
		"fun add(a: Int, b: Int): Int", "fun add(a: Int, b: Int): Int {\n    return a + b\n}\n", "fun add(x: Int): Int = x\n"},
}

func TestParseCodeEveryLanguage(t *testing.T) {
	ctx := context.Background()
	for _, s := range codeSamples {
		t.Run(s.lang, func(t *testing.T) {
			_, err := verify.ParseCode(ctx, s.lang, s.valid)
			require.NoError(t, err)
			_, err = verify.ParseCode(ctx, s.lang, s.invalid)
			var se *verify.SyntaxError
			require.ErrorAs(t, err, &se)
			require.Equal(t, s.lang, se.Language)
			require.Positive(t, se.Line)
			_, err = verify.ParseCode(ctx, s.lang, "  \n")
			require.ErrorContains(t, err, "empty")
		})
	}
}

func TestSignatureEveryLanguage(t *testing.T) {
	ctx := context.Background()
	for _, s := range codeSamples {
		t.Run(s.lang, func(t *testing.T) {
			id := fmt.Sprintf("code.generate.%s.function", s.lang)
			in := mustJSON(t, obj{"signature": s.signature, "behavior": "add"})
			rep, err := verify.Verify(ctx, id, in, mustJSON(t, obj{"code": s.function}))
			require.NoError(t, err)
			require.True(t, rep.Passed, rep.Summary())

			rep, err = verify.Verify(ctx, id, in, mustJSON(t, obj{"code": s.wrongParams}))
			require.NoError(t, err)
			require.False(t, rep.Passed)
			require.Equal(t, "matches_signature", rep.Failed()[0].Name, rep.Summary())
		})
	}
}

func TestCodeTestReferencesSymbolsEveryLanguage(t *testing.T) {
	ctx := context.Background()
	for _, s := range codeSamples {
		t.Run(s.lang, func(t *testing.T) {
			id := fmt.Sprintf("code.test.%s", s.lang)
			in := mustJSON(t, obj{"code": s.function, "test_framework": "default"})
			// Any valid program of the language that calls the input's symbol.
			tests := strings.Replace(s.valid, "main", "add", 1)
			if s.lang == "go" {
				tests = "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) { if Add(1, 2) != 3 { t.Fatal() } }\n"
			}
			if s.lang == "csharp" || s.lang == "swift" {
				tests = strings.Replace(s.valid, "Main", "Add", 1)
				tests = strings.Replace(tests, "main", "add", -1)
			}
			rep, err := verify.Verify(ctx, id, in, mustJSON(t, obj{"tests": tests}))
			require.NoError(t, err)
			require.True(t, rep.Passed, rep.Summary())

			rep, err = verify.Verify(ctx, id, in, mustJSON(t, obj{"tests": s.valid}))
			require.NoError(t, err)
			require.False(t, rep.Passed, rep.Summary())
			require.Equal(t, "references_input_symbols", rep.Failed()[0].Name)
		})
	}
}

func TestParseCodeLimits(t *testing.T) {
	_, err := verify.ParseCode(context.Background(), "python", strings.Repeat("x = 1\n", verify.MaxCodeBytes/6+1))
	require.ErrorContains(t, err, "limit")
	_, err = verify.ParseCode(context.Background(), "cobol", "x")
	require.ErrorContains(t, err, "no parser")
}

// Deeply nested code must not exhaust the stack of the tree walk.
func TestParseCodeDeepNesting(t *testing.T) {
	for _, lang := range []string{"python", "javascript", "go"} {
		src := "x = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n"
		if lang == "go" {
			src = "var x = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n"
		}
		_, _ = verify.ParseCode(context.Background(), lang, src)
		_, err := verify.ParseCode(context.Background(), lang, src[:len(src)-3])
		require.Error(t, err, lang)
	}
}
