package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"
)

// confirmPrompt is the end of the question hire asks on a terminal.
const confirmPrompt = "confirm? [y/N]"

// TestHireAsksAPersonToConfirmAPolicyHoldOnATerminal: issue 22, point 5.
// A [[policy]] require_confirmation hold is confirmed by --confirm or, with
// stdin and stderr on a terminal, by the person answering the prompt: y
// hires (and pays), n and EOF (^D) do not, and with no terminal there is
// no prompt and the hold's error stays (exit 2), whatever stdin holds.
func TestHireAsksAPersonToConfirmAPolicyHoldOnATerminal(t *testing.T) {
	t.Parallel()
	seller := initRepo(t)
	startDaemon(t, seller)
	buyer := initRepo(t)
	setConfig(t, buyer, "[[policy]]\ncapability = \"compute.statistics.mean\"\nrequire_confirmation = true")
	startDaemon(t, buyer, "--bootstrap", nodeIDOf(t, seller).Addrs[0])
	require.Equal(t, 0, swarmwage(t, "--repo", buyer, "wallet", "deposit", "10").Code)
	m := &testMarket{seller: seller, buyer: buyer}
	m.sell(t, "compute.statistics.mean", "0.05")
	args := []string{"--repo", buyer, "hire", "--input-json", `{"data":[1,2,3,4]}`, "compute.statistics.mean"}

	testCases := []struct {
		name   string
		answer string // typed once the prompt shows; "\x04" is ^D (EOF)
		code   int
		paid   string // the buyer's paid balance afterwards
	}{
		{name: "n", answer: "n\n", code: 2, paid: "0"},
		{name: "EOF", answer: "\x04", code: 2, paid: "0"},
		{name: "empty answer is no", answer: "\n", code: 2, paid: "0"},
		{name: "y", answer: "y\n", code: 0, paid: "0.05"},
		{name: "yes again", answer: "YES\n", code: 0, paid: "0.1"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			screen, stdout, code := answerOnTerminal(t, tc.answer, args...)
			require.Equal(t, tc.code, code, "screen: %q, stdout: %q", screen, stdout)
			require.Contains(t, screen, "[[policy]] compute.statistics.mean holds every hire of compute.statistics.mean until a person confirms it")
			require.Equal(t, 1, strings.Count(screen, confirmPrompt), "asked once: %q", screen)
			if tc.code == 0 {
				require.JSONEq(t, `{"result":2.5}`, stdout)
			} else {
				require.Contains(t, screen, "hire again with --confirm", "the hold's error stays")
				require.Empty(t, stdout)
			}
			b := balance(t, buyer)
			require.Equal(t, tc.paid, b.Paid)
			require.Equal(t, "0", b.Held)
		})
	}

	t.Run("no terminal: no prompt, a piped y confirms nothing", func(t *testing.T) {
		cmd := exec.Command(binPath, args...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader("y\n")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "exit: %v", err)
		require.Equal(t, 2, ee.ExitCode(), errOut.String())
		require.NotContains(t, errOut.String(), confirmPrompt)
		require.Contains(t, errOut.String(), "hire again with --confirm")
		require.Equal(t, "0.1", balance(t, buyer).Paid)
	})

	t.Run("--confirm asks nothing", func(t *testing.T) {
		screen, stdout, code := answerOnTerminal(t, "", append([]string{"--repo", buyer, "hire", "--confirm"}, args[3:]...)...)
		require.Equal(t, 0, code, screen)
		require.NotContains(t, screen, confirmPrompt)
		require.JSONEq(t, `{"result":2.5}`, stdout)
		require.Equal(t, "0.15", balance(t, buyer).Paid)
	})
}

// answerOnTerminal runs the binary with stdin and stderr on a
// pseudo-terminal and stdout piped; once the terminal shows the
// confirmation prompt it types answer (nothing when answer is empty). It
// returns what the terminal showed, what stdout held and the exit code.
func answerOnTerminal(t *testing.T, answer string, args ...string) (screen, stdout string, code int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	defer ptmx.Close()
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 200}))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm")
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, tty
	require.NoError(t, cmd.Start())
	tty.Close() // the child has its copy; EOF on ptmx once it exits

	var (
		mu    sync.Mutex
		shown bytes.Buffer
	)
	prompted := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 4096)
		signalled := false
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			if !signalled && strings.Contains(shown.String(), confirmPrompt) {
				close(prompted)
				signalled = true
			}
			mu.Unlock()
			if err != nil { // EIO once the child closed the tty
				return
			}
		}
	}()
	if answer != "" {
		select {
		case <-prompted:
			_, err := io.WriteString(ptmx, answer)
			require.NoError(t, err)
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("no prompt within a minute; the terminal showed %q", shown.String())
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		code = ee.ExitCode()
	default:
		t.Fatalf("run %v: %v", args, err)
	}
	wg.Wait()
	return shown.String(), out.String(), code
}
