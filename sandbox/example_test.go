package sandbox_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/swarmwage/swarmwage/sandbox"
)

// A seller keeps one Sandbox for the node's lifetime, with the compiled
// interpreter cached in its repo, and runs each job through it.
func ExampleSandbox_Run() {
	ctx := context.Background()
	sb, err := sandbox.New(ctx,
		sandbox.WithCacheDir(filepath.Join("repo", "cache", "wazero")),
		sandbox.WithPoolSize(2),
		sandbox.WithOutputLimit(64<<10),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close(ctx)

	res, err := sb.Run(ctx, sandbox.Request{
		Code:      "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))",
		Stdin:     "1 2 3",
		TimeoutMS: 2000,
	})
	if err != nil {
		log.Fatal(err) // ErrInvalidRequest (HTTP 400), ErrClosed or ctx's error
	}
	fmt.Printf("exit %d: %s", res.ExitCode, res.Stdout)
}
