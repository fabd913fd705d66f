package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/node/ui"
)

// dashboardResult is what 'dashboard --json' prints.
type dashboardResult struct {
	URL string `json:"url"`
}

func dashboardCommand() *cli.Command {
	return &cli.Command{
		Name:      "dashboard",
		Usage:     "open the node's dashboard in a browser (needs a running daemon)",
		ArgsUsage: " ",
		Description: "Prints a link to the daemon's dashboard, on its control API address, and opens it in the\n" +
			"default browser when there is one (xdg-open with a display, or open on macOS). The link carries\n" +
			"a one-time login: it logs one browser in, within " + loginTTLText() + ". Run the command again for another.\n" +
			"With --json it only prints {\"url\": ...}.",
		Flags: []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			cl, err := needDaemon(c)
			if err != nil {
				return err
			}
			info, err := cl.DashboardLogin(c.Context)
			if err != nil {
				return fmt.Errorf("ask the daemon for a dashboard login: %w", err)
			}
			res := dashboardResult{URL: info.URL}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			fmt.Fprintln(c.App.Writer, res.URL)
			if err := openBrowser(res.URL); err != nil {
				fmt.Fprintf(c.App.ErrWriter, "No browser opened (%v).\nOpen the link above in a browser on this machine; it logs in once, within %s.\n", err, loginTTLText())
				return nil
			}
			fmt.Fprintf(c.App.ErrWriter, "Opened the dashboard in your browser. The link logs in once, within %s.\n", loginTTLText())
			return nil
		},
	}
}

// openBrowser starts the system's URL opener on url and does not wait for
// it: xdg-open may stay until the browser exits.
func openBrowser(url string) error {
	name, err := browserOpener(runtime.GOOS, os.Getenv, exec.LookPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	return cmd.Process.Release()
}

// browserOpener finds the command that opens a URL in the default browser
// on goos, or says why there is none.
func browserOpener(goos string, getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	name := "xdg-open"
	switch goos {
	case "darwin":
		name = "open"
	case "windows":
		return "", errors.New("opening a browser is not supported on windows")
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return "", errors.New("no display: DISPLAY and WAYLAND_DISPLAY are unset")
		}
	}
	path, err := lookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not installed", name)
	}
	return path, nil
}

// loginTTLText says how long a login link works, for people.
func loginTTLText() string { return fmt.Sprintf("%d minutes", int(ui.LoginTTL/time.Minute)) }
