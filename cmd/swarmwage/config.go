package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/node"
)

// 'swarmwage config get KEY' and 'config set KEY VALUE', as Kubo's 'ipfs
// config': one key of config.toml at a time (node.GetConfigKey,
// node.SetConfigKey).

const configHelp = `KEY is a dotted config.toml name: api, listen, network, market.max_price,
p2p.reachability, settlement.rpc ... ('swarmwage config keys' lists them all,
README "Config file" says what each does).

VALUE is parsed by the key's type: a string as it is; a number, or true/false;
a list as a JSON array ('["/ip4/0.0.0.0/tcp/4001"]') or comma-separated items.
'set' validates the new config as the daemon does at start: a bad key or value
exits 2 with a message naming the key, and config.toml is unchanged. The file is
edited in place (comments and the other keys stay) and written atomically.

A running daemon read its config when it started and reloads nothing: it uses
a new value once restarted ('swarmwage shutdown', then 'swarmwage daemon'); set
says so. Flags given to 'daemon' (--listen, --api, ...) still win over the file.`

func configCommand() *cli.Command {
	return &cli.Command{
		Name:        "config",
		Usage:       "get or set one key of the repo's config.toml (as Kubo's 'ipfs config')",
		Description: configHelp,
		Subcommands: []*cli.Command{
			{
				Name:        "get",
				Usage:       "print the value of KEY (a string as it is, a list one item a line, a table as JSON)",
				Description: configHelp,
				ArgsUsage:   "KEY",
				Flags:       []cli.Flag{jsonOutFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrf("config get needs one KEY, as: swarmwage config get market.max_price ('swarmwage config keys' lists them)")
					}
					dir, err := repoDir(c)
					if err != nil {
						return err
					}
					v, err := node.GetConfigKey(dir, c.Args().First())
					if err != nil {
						return envErr(err)
					}
					if c.Bool(jsonFlag) {
						return printJSON(c, v)
					}
					return printConfigValue(c, v.Value)
				},
			},
			{
				Name:        "set",
				Usage:       "set KEY to VALUE in config.toml, validated; a running daemon uses it once restarted",
				Description: configHelp,
				ArgsUsage:   "KEY VALUE",
				Flags:       []cli.Flag{jsonOutFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return usageErrf("config set needs KEY and VALUE, as: swarmwage config set market.max_price 0.25 (quote a VALUE with spaces; a list: '[\"a\", \"b\"]' or a,b)")
					}
					dir, err := repoDir(c)
					if err != nil {
						return err
					}
					res, err := node.SetConfigKey(dir, c.Args().Get(0), c.Args().Get(1))
					if err != nil {
						return envErr(err)
					}
					return printConfigSet(c, res)
				},
			},
			{
				Name:        "unset",
				Usage:       "remove KEY from config.toml, so its default applies",
				Description: configHelp,
				ArgsUsage:   "KEY",
				Flags:       []cli.Flag{jsonOutFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrf("config unset needs one KEY, as: swarmwage config unset market.max_price")
					}
					dir, err := repoDir(c)
					if err != nil {
						return err
					}
					res, err := node.UnsetConfigKey(dir, c.Args().First())
					if err != nil {
						return envErr(err)
					}
					return printConfigSet(c, res)
				},
			},
			{
				Name:      "keys",
				Usage:     "list every key of config.toml with its type",
				ArgsUsage: " ",
				Flags:     []cli.Flag{jsonOutFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() != 0 {
						return usageErrf("config keys takes no arguments")
					}
					keys := node.ConfigKeys()
					if c.Bool(jsonFlag) {
						return printJSON(c, struct {
							Keys []node.ConfigKey `json:"keys"`
						}{keys})
					}
					tw := newTable(c.App.Writer)
					fmt.Fprintln(tw, "KEY\tTYPE")
					for _, k := range keys {
						t := k.Type
						if !k.Settable {
							t += " (edit config.toml)"
						}
						fmt.Fprintf(tw, "%s\t%s\n", k.Key, t)
					}
					return tw.Flush()
				},
			},
		},
	}
}

// printConfigValue writes a value as 'config get' shows it: a string as
// it is, a number or boolean as written, a list of strings one item a
// line, anything else (a table, [[policy]]) as indented JSON.
func printConfigValue(c *cli.Context, v any) error {
	w := c.App.Writer
	switch x := v.(type) {
	case string:
		fmt.Fprintln(w, x)
		return nil
	case []any:
		if allStrings(x) {
			for _, e := range x {
				fmt.Fprintln(w, e)
			}
			return nil
		}
	case []string:
		for _, e := range x {
			fmt.Fprintln(w, e)
		}
		return nil
	case map[string]any, []map[string]any:
	default:
		fmt.Fprintln(w, x)
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", b)
	return nil
}

func allStrings(xs []any) bool {
	for _, e := range xs {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// printConfigSet reports what 'config set' or 'config unset' did; the note
// that a running daemon needs a restart goes to stderr in both forms.
func printConfigSet(c *cli.Context, res node.ConfigSetResult) error {
	if res.RestartNeeded {
		fmt.Fprintf(c.App.ErrWriter, "note: a daemon runs on this repo and read its config at start; it uses the new %s once restarted: swarmwage shutdown, then swarmwage daemon\n", res.Key)
	}
	if res.Rewritten {
		fmt.Fprintln(c.App.ErrWriter, "note: config.toml had a layout that cannot be edited line by line (an inline table?); it was written anew with every value kept, without its comments")
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	show := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	}
	w := c.App.Writer
	switch {
	case res.Unset && !res.Changed:
		fmt.Fprintf(w, "%s was not set (its default applies)\n", res.Key)
	case res.Unset:
		fmt.Fprintf(w, "%s unset (was %s); its default applies\n", res.Key, show(res.Previous))
	case !res.Changed:
		fmt.Fprintf(w, "%s = %s (unchanged)\n", res.Key, show(res.Value))
	case !res.WasSet:
		fmt.Fprintf(w, "%s = %s (was unset)\n", res.Key, show(res.Value))
	default:
		fmt.Fprintf(w, "%s = %s (was %s)\n", res.Key, show(res.Value), show(res.Previous))
	}
	return nil
}
