package storage

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// crashDirEnv makes the test binary the writer that
// TestAcknowledgedWritesSurviveAKill kills.
const crashDirEnv = "SWARMWAGE_STORAGE_CRASH_DIR"

// crashValue is the value of writer w's i-th key in round r: sizes from
// a few hundred bytes to values past the value threshold (the value log),
// so that the writes fill several memtables and their write-ahead logs.
func crashValue(r, w, i int) []byte {
	n := 300 + (i*7919)%20000
	if i%97 == 0 {
		n = badgerValueThreshold + 1000
	}
	unit := []byte(fmt.Sprintf("%d/%d/%d;", r, w, i))
	return bytes.Repeat(unit, n/len(unit)+1)[:n]
}

func crashKey(r, w, i int) []byte { return []byte(fmt.Sprintf("crash/%d/%d/%06d", r, w, i)) }

// TestAcknowledgedWritesSurviveAKill kills a process that commits with
// four writers at once (so Badger batches their transactions into one
// write-ahead log write and one sync) and checks that every commit it had
// acknowledged is there after a reopen, value for value. Three rounds: the
// second writes after the replay of the first's logs, the third with one
// writer, whose every commit Badger's writer finds idle, so the
// committer writes and syncs it itself (the patch's writeInline).
func TestAcknowledgedWritesSurviveAKill(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashWriter(dir)
		return
	}
	dir := t.TempDir()
	for round := range 3 {
		acked := runAndKill(t, dir, round, 1200)
		d, err := Open(dir, false)
		if err != nil {
			t.Fatalf("round %d: reopen after the kill: %v", round, err)
		}
		err = d.DB.View(func(txn *badger.Txn) error {
			for _, a := range acked {
				it, err := txn.Get(crashKey(round, a[0], a[1]))
				if err != nil {
					return fmt.Errorf("acknowledged key %s: %w", crashKey(round, a[0], a[1]), err)
				}
				v, err := it.ValueCopy(nil)
				if err != nil {
					return fmt.Errorf("read %s: %w", it.Key(), err)
				}
				if !bytes.Equal(v, crashValue(round, a[0], a[1])) {
					return fmt.Errorf("acknowledged key %s: value of %d bytes differs", it.Key(), len(v))
				}
			}
			return nil
		})
		if cerr := d.Close(); cerr != nil {
			t.Fatalf("round %d: close: %v", round, cerr)
		}
		if err != nil {
			t.Fatalf("round %d, %d acknowledged commits: %v", round, len(acked), err)
		}
	}
}

// runAndKill starts the writer for round, reads the commits it
// acknowledges until it has n, kills it with SIGKILL and returns them as
// (writer, index) pairs.
func runAndKill(t *testing.T, dir string, round, n int) [][2]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAcknowledgedWritesSurviveAKill$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, fmt.Sprintf("SWARMWAGE_STORAGE_CRASH_ROUND=%d", round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the writer: %v", err)
	}
	var acked [][2]int
	sc := bufio.NewScanner(out)
	for len(acked) < n && sc.Scan() {
		var w, i int
		if _, err := fmt.Sscanf(sc.Text(), "ack %d %d", &w, &i); err != nil {
			t.Fatalf("writer said %q: %v", sc.Text(), err)
		}
		acked = append(acked, [2]int{w, i})
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill the writer: %v", err)
	}
	werr := cmd.Wait()
	if len(acked) < n {
		t.Fatalf("round %d: the writer acknowledged %d commits of %d, then: %v", round, len(acked), n, werr)
	}
	return acked
}

// crashWriter commits keys with four goroutines until it is killed,
// printing each commit once Update has returned.
func crashWriter(dir string) {
	var round int
	fmt.Sscan(os.Getenv("SWARMWAGE_STORAGE_CRASH_ROUND"), &round)
	d, err := Open(dir, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	writers := 4
	if round == 2 {
		writers = 1
	}
	for g := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				err := d.DB.Update(func(txn *badger.Txn) error {
					return txn.Set(crashKey(round, g, i), crashValue(round, g, i))
				})
				if err != nil {
					fmt.Fprintln(os.Stderr, "writer:", err)
					os.Exit(2)
				}
				mu.Lock()
				fmt.Fprintf(w, "ack %d %d\n", g, i)
				w.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
