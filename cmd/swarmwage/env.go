package main

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/storage"
)

// envErr gives the errors of opening a repo their exit codes: a missing
// repo or a bad config.toml is a usage error (exit 2), a repo in use or a
// full disk and a missing daemon are failures (exit 1) whose messages say
// what to do.
func envErr(err error) error {
	var nr node.NoRepoError
	var ce *node.ConfigError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nr), errors.As(err, &ce):
		return usageErr(err)
	case errors.Is(err, node.ErrRepoLocked), errors.Is(err, storage.ErrDiskFull), errors.Is(err, node.ErrNotOnline):
		return exitErr(exitFailure, err)
	}
	return err
}

// openRepo opens the repo named by --repo.
func openRepo(c *cli.Context) (*node.Repo, error) {
	dir, err := repoDir(c)
	if err != nil {
		return nil, err
	}
	repo, err := node.Open(dir)
	return repo, envErr(err)
}

// withEnv runs fn with the node of the repo: the daemon's API when one
// runs, else the repo opened here with access (node.Env decides).
func withEnv(c *cli.Context, access node.Access, fn func(*node.Env) error) error {
	dir, err := repoDir(c)
	if err != nil {
		return err
	}
	env, err := node.OpenEnv(dir, access)
	if err != nil {
		return envErr(err)
	}
	return errors.Join(fn(env), env.Close())
}

// daemonClient returns a client of the daemon serving the repo, or nil when
// none runs, for a command that only adds what a daemon knows.
func daemonClient(c *cli.Context) (*controlapi.Client, error) {
	dir, err := repoDir(c)
	if err != nil {
		return nil, err
	}
	return node.DialRunning(dir)
}

// needDaemon returns the daemon's client or an error saying to start one.
func needDaemon(c *cli.Context) (*controlapi.Client, error) {
	dir, err := repoDir(c)
	if err != nil {
		return nil, err
	}
	env, err := node.NeedDaemon(dir)
	if err != nil {
		return nil, envErr(err)
	}
	return env.Client, nil
}

// signalContext is cancelled on SIGINT or SIGTERM.
func signalContext(c *cli.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
}
