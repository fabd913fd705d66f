package builtin

import (
	"net/url"
	"os"
	"runtime"
	"testing"
	"time"
)

func FuzzDbgHang(f *testing.F) {
	for _, name := range []string{"product-jsonld.html", "article-og.html", "plain.html"} {
		b, _ := os.ReadFile("testdata/" + name)
		f.Add(b)
	}
	base, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, body []byte) {
		tm := time.AfterFunc(3*time.Second, func() {
			_ = os.WriteFile("/tmp/hang_input.html", body, 0o644)
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			_ = os.WriteFile("/tmp/hang_stack.txt", buf[:n], 0o644)
			os.Exit(3)
		})
		defer tm.Stop()
		p, err := parsePage(body, base)
		if err != nil {
			return
		}
		p.extract(append(allFields, "url", "modified_at", "sku"))
	})
}
