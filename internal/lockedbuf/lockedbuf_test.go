package lockedbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Writers and a reader at once (run with -race): every write lands whole.
func TestConcurrentWritesLandWhole(t *testing.T) {
	var b Buffer
	const writers, lines = 4, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(&b, "w%d-%03d\n", w, i)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, l := range got {
		if len(l) != len("w0-000") {
			t.Fatalf("torn line %q", l)
		}
	}
}
