package ui_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/internal/safetext"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// A seller's output can hold a U+202E (right-to-left override) or
// zero-width characters that reorder or hide what the buyer reads on the
// job page ("Trojan Source"). The dashboard shows them escaped, as \u202e,
// with the same list of characters as the CLI's internal/safetext.
func TestDashboardShowsHiddenCharactersEscaped(t *testing.T) {
	chrome := needChromium(t)
	shots := artifactDir(t)
	ctx := context.Background()

	// The worker answers a summary with a bidi override and a zero-width
	// space in it, whatever the input.
	worker := filepath.Join(t.TempDir(), "bidi.sh")
	require.NoError(t, os.WriteFile(worker, []byte("cat >/dev/null\nprintf '{\"summary\":\"paid \\342\\200\\256gpj.exe \\342\\200\\213ok\"}'\n"), 0o600))
	boot := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{})
	seller := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{}, boot)
	buyer := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{}, boot)
	_, err := dial(t, seller).AddListing(ctx, controlapi.AddListingRequest{Capability: "text.summarize.short", Price: "0.01", Handler: "exec:/bin/sh " + worker})
	require.NoError(t, err)
	nodetest.WaitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(ctx, nodetest.Amount(t, "10"), "test"))
	input := `{"text":"The payment went through. The file was delivered. Everyone was happy about it in the end."}`
	res := hireInfo(buyer, "text.summarize.short", input)
	require.NotEmpty(t, res.JobID, res.Error)

	browser := startBrowser(t, chrome)
	b := newTab(t, browser)
	b.open(login(t, buyer))
	b.waitReady("overview")
	b.open(buyer.APIURL() + "/#/jobs/" + res.JobID)
	b.waitFor("#job-output")
	shown := b.text("#job-output")
	require.Contains(t, shown, `paid \u202egpj.exe \u200bok`)
	require.NotContains(t, shown, "\u202e")
	require.NotContains(t, shown, "\u200b")
	b.shot(shots, "job-hidden-characters")

	// The page's list is Go's: every code point of the BMP but the
	// surrogates, escaped in the browser and by safetext, alike.
	var all []rune
	for r := rune(0); r <= 0xffff; r++ {
		if r < 0xd800 || r > 0xdfff {
			all = append(all, r)
		}
	}
	js := `(() => { let s = ''; for (let c = 0; c <= 0xffff; c++) if (c < 0xd800 || c > 0xdfff) s += String.fromCharCode(c); return JSON.stringify(window.swarmwageSafe(s)); })()`
	var fromPage string
	require.NoError(t, json.Unmarshal([]byte(b.eval(js)), &fromPage))
	want := safetext.Escape(string(all))
	if fromPage != want {
		got, exp := []rune(fromPage), []rune(want)
		i := 0
		for i < len(got) && i < len(exp) && got[i] == exp[i] {
			i++
		}
		t.Fatalf("the dashboard's list of hidden characters differs from internal/safetext's at rune %d: page %q, Go %q",
			i, string(got[i:min(len(got), i+12)]), string(exp[i:min(len(exp), i+12)]))
	}
}
