package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Set at link time by a release build:
//
//	go build -ldflags "-X main.version=v0.1.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/swarmwage
//
// Left empty, they come from the build info the Go toolchain stamps into
// every binary: the module version ('go install ...@v0.1.0', or the
// pseudo-version of a checkout) and vcs.revision (a build from a clone).
var (
	version string
	commit  string
)

const versionFlag = "version"

// versionInfo is what 'swarmwage version --json' prints.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// buildInfo reads the version of this binary: -ldflags first, then the
// toolchain's build info.
func buildInfo() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(version, commit, bi)
}

// versionFrom is the version of a binary linked with -X main.version=ver
// and -X main.commit=rev (either may be empty) and carrying the build info
// bi (nil when it has none).
func versionFrom(ver, rev string, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: ver, Commit: rev, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		return v.withDefaults()
	}
	if v.Version == "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && v.Commit == "" {
			v.Commit = s.Value
		}
	}
	return v.withDefaults()
}

// withDefaults names what is unknown rather than printing empty strings:
// a binary built with -buildvcs=false has no revision.
func (v versionInfo) withDefaults() versionInfo {
	if v.Version == "" {
		v.Version = "devel"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	return v
}

// buildVersion is the version string the node reports to peers and MCP
// clients.
func buildVersion() string { return buildInfo().Version }

func (v versionInfo) String() string {
	return fmt.Sprintf("swarmwage %s (commit %s, %s %s/%s)", v.Version, v.Commit, v.Go, v.OS, v.Arch)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version, commit, Go version and platform of this binary",
		ArgsUsage: " ",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("version takes no arguments")
			}
			return printVersion(c)
		},
	}
}

func printVersion(c *cli.Context) error {
	v := buildInfo()
	if c.Bool(jsonFlag) {
		return printJSON(c, v)
	}
	if _, err := fmt.Fprintln(c.App.Writer, v); err != nil {
		return err
	}
	if v.Version == "devel" && v.Commit == "unknown" {
		// Said on stderr, so stdout stays the one line scripts parse.
		fmt.Fprintln(c.App.ErrWriter, "this binary was built without version or VCS information (go build outside a git clone, or with -buildvcs=false, or go run); "+
			"build it inside a clone of the repository to stamp the commit, or set both: go build -ldflags \"-X main.version=v0.1.0 -X main.commit=$(git rev-parse HEAD)\" ./cmd/swarmwage")
	}
	return nil
}

// rootVersionFlag is the app's --version, the same as 'swarmwage version'.
func rootVersionFlag() cli.Flag {
	return &cli.BoolFlag{Name: versionFlag, Usage: "print the version and exit (as 'swarmwage version')"}
}
