package main

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/node"
)

// openRepo opens the repo named by --repo; a missing repo is a usage error
// whose message says how to create one.
func openRepo(c *cli.Context) (*node.Repo, error) {
	dir, err := repoDir(c)
	if err != nil {
		return nil, err
	}
	repo, err := node.Open(dir)
	var nr node.NoRepoError
	var ce *node.ConfigError
	if errors.As(err, &nr) || errors.As(err, &ce) {
		return nil, usageErr(err)
	}
	return repo, err
}

// daemonClient returns a client of the daemon serving the repo, or nil when
// none runs (the caller then works offline if it can).
func daemonClient(c *cli.Context) (*node.Client, error) {
	dir, err := repoDir(c)
	if err != nil {
		return nil, err
	}
	cl, err := node.Dial(dir)
	if errors.Is(err, node.ErrNoDaemon) {
		return nil, nil
	}
	if err == nil && !node.DaemonRunning(dir) {
		// A daemon that was killed leaves its api files behind.
		node.RemoveStaleAPI(dir)
		return nil, nil
	}
	return cl, err
}

// needDaemon returns the daemon's client or an error saying to start one.
func needDaemon(c *cli.Context) (*node.Client, error) {
	if _, err := openRepo(c); err != nil {
		return nil, err
	}
	cl, err := daemonClient(c)
	if err != nil {
		return nil, err
	}
	if cl == nil {
		return nil, exitErr(exitFailure, errors.New("this command needs the network: start 'swarmwage daemon' first (in another terminal, or with '&')"))
	}
	return cl, nil
}

// openLocal opens the repo's database for an offline command that writes.
func openLocal(c *cli.Context) (*node.Local, error) { return openLocalAs(c, node.OpenLocal) }

// openLocalRead opens the repo's database for an offline command that only
// reads: read-only, so that it works on a full disk.
func openLocalRead(c *cli.Context) (*node.Local, error) {
	return openLocalAs(c, node.OpenLocalReadOnly)
}

func openLocalAs(c *cli.Context, open func(*node.Repo) (*node.Local, error)) (*node.Local, error) {
	repo, err := openRepo(c)
	if err != nil {
		return nil, err
	}
	l, err := open(repo)
	if errors.Is(err, node.ErrRepoLocked) || errors.Is(err, node.ErrDiskFull) {
		return nil, exitErr(exitFailure, err)
	}
	return l, err
}

// signalContext is cancelled on SIGINT or SIGTERM.
func signalContext(c *cli.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
}
