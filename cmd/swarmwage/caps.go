package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/verify"
)

const (
	domainFlag  = "domain"
	builtinFlag = "builtin"
	inputFlag   = "input"
	outputFlag  = "output"
	schemaFlag  = "schema"
)

// capsCommand browses the capability taxonomy (package verify).
func capsCommand() *cli.Command {
	return &cli.Command{
		Name:        "caps",
		Usage:       "browse the v0.1 capability taxonomy: IDs, schemas and the checks a buyer runs",
		Subcommands: []*cli.Command{capsListCommand(), capsShowCommand()},
	}
}

func capsListCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list every standard capability and templated family",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: domainFlag, Usage: "only this domain (" + strings.Join(append(verify.Domains(), "custom"), ", ") + ")"},
			&cli.BoolFlag{Name: builtinFlag, Usage: "only what this binary can sell by itself (sell add --handler builtin CAP)"},
			jsonOutFlag(),
		},
		Action: capsListAction,
	}
}

// capSummary is one row of caps list --json.
type capSummary struct {
	ID           string               `json:"id"`
	Domain       string               `json:"domain"`
	Description  string               `json:"description"`
	Custom       bool                 `json:"custom"`
	Checks       []string             `json:"checks"`
	Placeholders []verify.Placeholder `json:"placeholders,omitempty"`
	// Builtin marks capabilities this binary sells with --handler builtin.
	Builtin bool `json:"builtin"`
}

// capsListResult is the document caps list --json prints.
type capsListResult struct {
	Capabilities []capSummary `json:"capabilities"`
}

func capsListAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrf("caps list takes no arguments; to see one capability run 'swarmwage caps show %s'", c.Args().First())
	}
	domain := c.String(domainFlag)
	if domain != "" && domain != "custom" && !slices.Contains(verify.Domains(), domain) {
		return usageErrf("unknown domain %q; domains: %s, custom", domain, strings.Join(verify.Domains(), ", "))
	}
	res := capsListResult{Capabilities: []capSummary{}}
	builtins := builtin.AllCapabilities()
	list := verify.List()
	if c.Bool(builtinFlag) {
		list = list[:0]
		for _, id := range builtins {
			if cp, err := verify.Parse(id); err == nil {
				list = append(list, cp)
			}
		}
	}
	for _, cp := range list {
		if domain != "" && cp.Domain != domain {
			continue
		}
		res.Capabilities = append(res.Capabilities, capSummary{
			ID: cp.ID, Domain: cp.Domain, Description: cp.Description, Custom: cp.Custom,
			Checks: cp.Checks, Placeholders: cp.Placeholders, Builtin: slices.Contains(builtins, cp.ID),
		})
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "CAPABILITY\tBUILTIN\tDESCRIPTION")
	for _, s := range res.Capabilities {
		mark := ""
		if s.Builtin {
			mark = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.ID, mark, s.Description)
	}
	return tw.Flush()
}

func capsShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a capability: placeholders, checks, input and output JSON Schemas",
		ArgsUsage: "CAP (an ID such as text.translate.en.it.fluent, or a family such as 'text.translate.{src}.{tgt}.{level}')",
		Flags:     []cli.Flag{jsonOutFlag()},
		Action:    capsShowAction,
	}
}

// checkDoc is a check with what it verifies.
type checkDoc struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// capsShowResult is the document caps show --json prints.
type capsShowResult struct {
	ID           string               `json:"id"`
	Template     string               `json:"template,omitempty"`
	Domain       string               `json:"domain"`
	Description  string               `json:"description"`
	Custom       bool                 `json:"custom"`
	Params       map[string]string    `json:"params,omitempty"`
	Placeholders []verify.Placeholder `json:"placeholders,omitempty"`
	Checks       []checkDoc           `json:"checks"`
	InputSchema  json.RawMessage      `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage      `json:"output_schema,omitempty"`
	// Sellers are the sellers a running daemon finds for a capability
	// outside the taxonomy, with what their SkillCards require.
	Sellers []controlapi.SellerInfo `json:"sellers,omitempty"`
	// Tombstone is the WCP catalog's entry ([wcp] catalog) when the ID is
	// retired; hires of it are served by RoutesTo.
	Tombstone *tombstoneDoc `json:"tombstone,omitempty"`
}

// tombstoneDoc is a retired capability ID's catalog entry.
type tombstoneDoc struct {
	route.CatalogEntry
	RoutesTo string `json:"routes_to"`
}

// tombstoneOf looks capID up in the repo's WCP catalog, if the repo has
// one; no repo or no catalog is no tombstone.
func tombstoneOf(c *cli.Context, capID string) (*tombstoneDoc, error) {
	dir, err := repoDir(c)
	if err != nil {
		return nil, nil
	}
	repo, err := node.Open(dir)
	if err != nil || repo.Config.WCP.Catalog == "" {
		return nil, nil
	}
	cat, err := node.LoadCatalog(dir, repo.Config.WCP.Catalog)
	if err != nil {
		return nil, usageErr(err)
	}
	e, ok := cat.Lookup(capID)
	if !ok || !e.Tombstoned() {
		return nil, nil
	}
	to, _, err := cat.Resolve(capID)
	if err != nil {
		return nil, usageErr(err)
	}
	return &tombstoneDoc{CatalogEntry: e, RoutesTo: to}, nil
}

func capsShowAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErrf("caps show needs exactly one capability ID; run 'swarmwage caps list' to see them")
	}
	cp, err := verify.Lookup(c.Args().First())
	if err != nil {
		return usageErr(err)
	}
	res := capsShowResult{
		ID: cp.ID, Template: cp.Template, Domain: cp.Domain, Description: cp.Description,
		Custom: cp.Custom, Params: cp.Params, Placeholders: cp.Placeholders,
	}
	for _, name := range cp.Checks {
		res.Checks = append(res.Checks, checkDoc{Name: name, Description: verify.DescribeCheck(name)})
	}
	if !cp.Custom {
		if res.InputSchema, err = verify.InputSchema(cp.ID); err != nil {
			return err
		}
		if res.OutputSchema, err = verify.OutputSchema(cp.ID); err != nil {
			return err
		}
	}
	if res.Tombstone, err = tombstoneOf(c, cp.ID); err != nil {
		return err
	}
	if cp.Custom || res.InputSchema == nil {
		res.Sellers = customSellers(c, cp.ID)
	}
	if c.Bool(jsonFlag) {
		return printJSON(c, res)
	}
	if t := res.Tombstone; t != nil {
		fmt.Fprintf(c.App.Writer, "tombstoned (%s) in the WCP catalog: superseded by %s; hires of it are served by %s", t.Status, t.SupersededBy, t.RoutesTo)
		if t.DeprecatedCatalog != "" {
			fmt.Fprintf(c.App.Writer, " (deprecated in catalog %s", t.DeprecatedCatalog)
			if t.SunsetCatalog != "" {
				fmt.Fprintf(c.App.Writer, ", sunset in %s", t.SunsetCatalog)
			}
			fmt.Fprint(c.App.Writer, ")")
		}
		fmt.Fprintln(c.App.Writer)
	}
	if err := renderCapsShow(c.App.Writer, res); err != nil {
		return err
	}
	for _, s := range res.Sellers {
		perms := "none"
		if len(s.RequiredPermissions) > 0 {
			perms = strings.Join(s.RequiredPermissions, ", ")
		}
		fmt.Fprintf(c.App.Writer, "seller %s: price %s, risk tier %d, required permissions: %s\n", s.PeerID, s.Price, s.RiskTier, perms)
	}
	return nil
}

// customSellers asks a running daemon, if any, who sells capID: a custom
// capability's schemas, risk tier and required permissions are its
// sellers'. Without a daemon (or on any error) there is nothing to add.
func customSellers(c *cli.Context, capID string) []controlapi.SellerInfo {
	cl, err := daemonClient(c)
	if err != nil || cl == nil {
		return nil
	}
	info, err := cl.Find(c.Context, capID, 20, 5*time.Second)
	if err != nil {
		return nil
	}
	return info.Sellers
}

func renderCapsShow(w io.Writer, res capsShowResult) error {
	fmt.Fprintf(w, "%s\n  %s\n", res.ID, res.Description)
	if res.Template != "" && res.Template != res.ID {
		fmt.Fprintf(w, "family: %s\n", res.Template)
	}
	for _, k := range sortedParamNames(res.Params) {
		fmt.Fprintf(w, "  {%s} = %s\n", k, res.Params[k])
	}
	if len(res.Params) == 0 {
		for _, p := range res.Placeholders {
			allowed := p.Rule
			if len(p.Allowed) > 0 {
				allowed = strings.Join(p.Allowed, ", ")
			}
			fmt.Fprintf(w, "  {%s}: %s\n", p.Name, allowed)
		}
	}
	fmt.Fprintln(w, "checks:")
	for _, ch := range res.Checks {
		fmt.Fprintf(w, "  %-26s %s\n", ch.Name, ch.Description)
	}
	if res.Custom {
		fmt.Fprintln(w, "schemas: none standard; the seller serves them at GET /capabilities/<id>/schema")
		return nil
	}
	fmt.Fprintf(w, "input schema:\n%s\noutput schema:\n%s\n", indentBlock(res.InputSchema), indentBlock(res.OutputSchema))
	return nil
}

func sortedParamNames(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func indentBlock(raw json.RawMessage) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(string(raw)), "\n", "\n  ")
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "verify a capability's output locally, as a buyer does before releasing escrow",
		Description: "Runs the capability's input and output JSON Schemas and every check of its\n" +
			"verification function. Exit codes: 0 passed, 1 a check failed, 2 usage (unknown or\n" +
			"malformed capability ID, unreadable file, invalid JSON). Custom capabilities need\n" +
			"--schema, the seller's output schema.",
		ArgsUsage: "CAP",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: inputFlag, Usage: "the job's input JSON file"},
			&cli.StringFlag{Name: outputFlag, Usage: "the seller's output JSON file"},
			&cli.StringFlag{Name: "evidence", Usage: "a job's evidence ('swarmwage escrow evidence JOB'): checks its signatures and hashes, then verifies its output against its input"},
			&cli.StringFlag{Name: schemaFlag, Usage: "output JSON Schema file for custom capabilities"},
			jsonOutFlag(),
		},
		Action: verifyAction,
	}
}

func verifyAction(c *cli.Context) error {
	if f := c.String("evidence"); f != "" {
		return verifyEvidence(c, f)
	}
	if c.String(outputFlag) == "" {
		return usageErrf("verify needs --output FILE (or --evidence FILE)")
	}
	if c.NArg() != 1 {
		return usageErrf("verify needs exactly one capability ID, e.g. 'swarmwage verify --input in.json --output out.json text.summarize.short'")
	}
	id := c.Args().First()
	cp, err := verify.Parse(id)
	if err != nil {
		return usageErr(err)
	}
	output, err := readDoc(c.String(outputFlag), verify.MaxOutputSize)
	if err != nil {
		return usageErr(err)
	}
	var rep verify.Report
	if cp.Custom {
		if c.String(schemaFlag) == "" {
			return usageErrf("%s is a custom capability without a standard schema; pass the seller's output schema with --schema", id)
		}
		schema, err := readDoc(c.String(schemaFlag), verify.MaxInputSize)
		if err != nil {
			return usageErr(err)
		}
		if !json.Valid(schema) {
			return usageErrf("%s is not valid JSON", c.String(schemaFlag))
		}
		rep, err = verify.VerifyWithSchema(c.Context, id, schema, output)
		if err != nil {
			return verifyErr(err)
		}
	} else {
		if c.String(inputFlag) == "" {
			return usageErrf("--input is required: the checks of %s compare the output with the job's input", id)
		}
		input, err := readDoc(c.String(inputFlag), verify.MaxInputSize)
		if err != nil {
			return usageErr(err)
		}
		rep, err = verify.Verify(c.Context, id, input, output)
		if err != nil {
			return verifyErr(err)
		}
	}
	if c.Bool(jsonFlag) {
		if err := printJSON(c, rep); err != nil {
			return err
		}
	} else {
		renderReport(c.App.Writer, rep)
	}
	if !rep.Passed {
		var names []string
		for _, ch := range rep.Failed() {
			names = append(names, ch.Name)
		}
		return exitErr(exitFailure, fmt.Errorf("verification of %s failed: %s", id, strings.Join(names, ", ")))
	}
	return nil
}

// verifyErr maps verify's errors: bad documents and IDs are usage errors.
func verifyErr(err error) error {
	for _, e := range []error{verify.ErrNotJSON, verify.ErrTooLarge, verify.ErrInvalidID, verify.ErrUnknownCapability, verify.ErrNoStandardSchema} {
		if errors.Is(err, e) {
			return usageErr(err)
		}
	}
	return err
}

// readDoc reads a whole file of at most limit bytes (one more is read so
// an oversized file is reported, not truncated).
func readDoc(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

func renderReport(w io.Writer, rep verify.Report) {
	verdict := "PASSED"
	if !rep.Passed {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "%s %s\n", verdict, rep.Capability)
	for _, ch := range rep.Checks {
		mark := "ok  "
		if !ch.Passed {
			mark = "FAIL"
		}
		if ch.Detail == "" {
			fmt.Fprintf(w, "  %s %s\n", mark, ch.Name)
			continue
		}
		fmt.Fprintf(w, "  %s %s: %s\n", mark, ch.Name, ch.Detail)
	}
}

// evidenceResult is what verify --evidence --json prints.
type evidenceResult struct {
	JobID      string        `json:"job_id"`
	Capability string        `json:"capability"`
	Buyer      string        `json:"buyer"`
	Seller     string        `json:"seller"`
	Decision   string        `json:"decision"`
	Signatures bool          `json:"signatures"` // lock, delivery and settle signed by their parties, hashes match
	Report     verify.Report `json:"verification"`
	// RefundShownFalse: the buyer refunded output the capability's
	// verifier accepts.
	RefundShownFalse bool `json:"refund_shown_false"`
}

// verifyEvidence checks a job's evidence as a third party: every signature
// and hash, then the capability's verification of the output on the
// input. Exit 0: the output passes; 1: it fails; 2: the file is not
// evidence (unreadable, forged, no payloads, no standard verifier).
func verifyEvidence(c *cli.Context, file string) error {
	data, err := readDoc(file, escrow.MaxReceiptSize+2*escrow.MaxPayloadSize)
	if err != nil {
		return usageErr(err)
	}
	rc, err := escrow.DecodeReceipt(data)
	if err != nil {
		return usageErrf("%s is not a receipt: %v", file, err)
	}
	if err := rc.Check(); err != nil {
		return usageErrf("%s does not check out: %v", file, err)
	}
	if rc.Input == nil || rc.Output == nil || rc.Delivery == nil {
		return usageErrf("%s has no input and output: evidence needs both ('swarmwage escrow evidence JOB' on the seller)", file)
	}
	rep, err := verify.Verify(c.Context, rc.Lock.Capability, rc.Input, rc.Output)
	if err != nil {
		return verifyErr(err)
	}
	res := evidenceResult{
		JobID: rc.Lock.JobID, Capability: rc.Lock.Capability, Buyer: rc.Lock.Buyer.String(), Seller: rc.Lock.Seller.String(),
		Decision: rc.Settle.Decision, Signatures: true, Report: rep,
		RefundShownFalse: rep.Passed && rc.Settle.Decision == escrow.DecisionRefund,
	}
	if c.Bool(jsonFlag) {
		if err := printJSON(c, res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "job %s (%s): signatures and hashes check out; the buyer decided %s\n", res.JobID, res.Capability, res.Decision)
		renderReport(c.App.Writer, rep)
		if res.RefundShownFalse {
			fmt.Fprintln(c.App.Writer, "the buyer refunded output that the capability's verifier accepts")
		}
	}
	if !rep.Passed {
		return exitErr(exitFailure, fmt.Errorf("the output of job %s fails verification", res.JobID))
	}
	return nil
}
