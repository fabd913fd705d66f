package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/skillcard"
)

func skillcardCommand() *cli.Command {
	return &cli.Command{
		Name:  "skillcard",
		Usage: "check, hash, create and save SkillCards (docs: docs/specs/skillcard-spec.md)",
		Subcommands: []*cli.Command{
			skillcardValidateCommand(),
			skillcardHashCommand(),
			skillcardNewCommand(),
			skillcardSaveCommand(),
		},
	}
}

// cardFileResult is the outcome of checking one card file.
type cardFileResult struct {
	File     string              `json:"file"`
	Valid    bool                `json:"valid"`
	Slug     string              `json:"slug,omitempty"`
	Version  string              `json:"version,omitempty"`
	Problems []skillcard.Problem `json:"problems"`
	Warnings []string            `json:"warnings,omitempty"`
	// Error is set when the file cannot be read or is not JSON.
	Error string `json:"error,omitempty"`
}

type validateResult struct {
	Valid bool             `json:"valid"`
	Files []cardFileResult `json:"files"`
}

func skillcardValidateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check SkillCard files against every rule of the spec; exit 0 valid, 1 invalid, 2 unreadable or not JSON",
		ArgsUsage: "FILE...",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrf("validate needs at least one SkillCard file, as: skillcard validate card.json")
			}
			res := validateResult{Valid: true}
			code := exitOK
			for _, path := range c.Args().Slice() {
				r := checkCardFile(path)
				switch {
				case r.Error != "":
					code = exitUsage
				case !r.Valid && code == exitOK:
					code = exitFailure
				}
				res.Valid = res.Valid && r.Valid
				res.Files = append(res.Files, r)
			}
			if c.Bool(jsonFlag) {
				if err := printJSON(c, res); err != nil {
					return err
				}
			} else {
				printValidate(c, res)
			}
			return exitCode(code)
		},
	}
}

// checkCardFile parses and validates one file. A name that claims the
// {slug}.v{version}.json convention but disagrees with the content is a
// problem; any other name is only a warning.
func checkCardFile(path string) cardFileResult {
	r := cardFileResult{File: path, Problems: []skillcard.Problem{}}
	card, err := skillcard.ParseFile(path)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Slug, r.Version = card.Slug, card.Version
	r.Problems = card.Validate()
	if len(r.Problems) == 0 {
		if err := card.CheckFileName(path); err != nil {
			if skillcard.ClaimsCardFileName(path) {
				r.Problems = append(r.Problems, skillcard.Problem{Path: "", Message: err.Error()})
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("not named %s; 'swarmwage skillcard save' stores it under that name", card.FileName()))
			}
		}
	}
	r.Valid = len(r.Problems) == 0
	return r
}

func printValidate(c *cli.Context, res validateResult) {
	w := c.App.Writer
	for _, r := range res.Files {
		switch {
		case r.Error != "":
			fmt.Fprintf(c.App.ErrWriter, "Error: %s\n", r.Error)
		case r.Valid:
			fmt.Fprintf(w, "ok: %s (%s %s)\n", r.File, r.Slug, r.Version)
		default:
			fmt.Fprintf(w, "invalid: %s, %d problem(s):\n", r.File, len(r.Problems))
			for _, p := range r.Problems {
				fmt.Fprintf(w, "  %s\n", p)
			}
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", warn)
		}
	}
}

// loadCard parses one card file for hash and save: unreadable or not JSON
// is a usage error (exit 2).
func loadCard(path string) (*skillcard.Card, error) {
	card, err := skillcard.ParseFile(path)
	if err != nil {
		return nil, usageErr(err)
	}
	return card, nil
}

type hashResult struct {
	File        string `json:"file"`
	ContentHash string `json:"contentHash"`
	VersionHash string `json:"versionHash"`
}

func skillcardHashCommand() *cli.Command {
	return &cli.Command{
		Name:      "hash",
		Usage:     "print a SkillCard's contentHash and versionHash (keccak256, as the spec computes them)",
		ArgsUsage: "FILE",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("hash needs exactly one SkillCard file, as: skillcard hash card.json")
			}
			path := c.Args().First()
			card, err := loadCard(path)
			if err != nil {
				return err
			}
			if n := len(card.Validate()); n > 0 {
				fmt.Fprintf(c.App.ErrWriter, "warning: %s is not a valid SkillCard (%d problem(s); run 'swarmwage skillcard validate %s')\n", path, n, path)
			}
			res := hashResult{File: path, ContentHash: card.ContentHash(), VersionHash: card.VersionHash()}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			fmt.Fprintf(c.App.Writer, "contentHash %s\nversionHash %s\n", res.ContentHash, res.VersionHash)
			return nil
		},
	}
}

func skillcardNewCommand() *cli.Command {
	return &cli.Command{
		Name:  "new",
		Usage: "print a valid starter SkillCard to edit (swarmwage skillcard new --name 'My Skill' > card.json)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Value: "My Skill", Usage: "the skill's name; the slug is generated from it"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageErrf("new takes no arguments; set the name with --name")
			}
			card, err := skillcard.Starter(c.String("name"))
			if err != nil {
				return usageErr(err)
			}
			// The card is itself the one JSON document, with or without --json.
			_, err = c.App.Writer.Write(card)
			return err
		},
	}
}

func skillcardSaveCommand() *cli.Command {
	return &cli.Command{
		Name:      "save",
		Usage:     "validate a SkillCard and write it as DIR/{slug}.v{version}.json",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory to save the card in"},
			jsonOutFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrf("save needs exactly one SkillCard file, as: skillcard save --dir cards card.json")
			}
			res, err := saveCard(c.Args().First(), c.String("dir"))
			if err != nil {
				return err
			}
			if c.Bool(jsonFlag) {
				return printJSON(c, res)
			}
			w := c.App.Writer
			if res.Renamed {
				fmt.Fprintf(w, "note: %s is named differently from its content (%s %s)\n", res.Source, res.Slug, res.Version)
			}
			if res.Unchanged {
				fmt.Fprintf(w, "already saved: %s (contentHash %s)\n", res.Path, res.ContentHash)
			} else {
				fmt.Fprintf(w, "saved %s (contentHash %s)\n", res.Path, res.ContentHash)
			}
			return nil
		},
	}
}

// saveCard is skillcard.Save with the exit codes and the next step: an
// unreadable file is a usage error (exit 2), an invalid card says how to
// list its problems.
func saveCard(src, dir string) (skillcard.SaveResult, error) {
	res, err := skillcard.Save(src, dir)
	var fe *skillcard.FileError
	var ve *skillcard.ValidationError
	switch {
	case errors.As(err, &fe):
		return res, usageErr(err)
	case errors.As(err, &ve):
		return res, fmt.Errorf("%w (run 'swarmwage skillcard validate %s' for the list)", err, src)
	}
	return res, err
}
