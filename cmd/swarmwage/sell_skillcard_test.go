package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLISkillCardSoldAndHiredOverLoopback: a SkillCard with a cli binding
// sold by one node and hired by another returns the binding's JSON, and a
// hostile input value reaches the program as one literal argument.
func TestCLISkillCardSoldAndHiredOverLoopback(t *testing.T) {
	t.Parallel()
	// The card runs from a copy, so the test can see whether anything was
	// created next to it.
	dir := t.TempDir()
	for _, f := range []string{"args.py", "echo-args.v1.0.0.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "echo-card", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o755))
	}
	card := filepath.Join(dir, "echo-args.v1.0.0.json")
	r := swarmwage(t, "skillcard", "hash", "--json", card)
	require.Equal(t, 0, r.Code, r.Stderr)
	var hash struct {
		ContentHash string `json:"contentHash"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &hash))

	m := startMarket(t, "")
	m.sell(t, "custom.acme.echo-args", "0.1", "--skillcard", card)

	r = swarmwage(t, "--repo", m.buyer, "find", "--json", "custom.acme.echo-args")
	require.Equal(t, 0, r.Code, r.Stderr)
	var found struct {
		Sellers []struct {
			SkillCardHash       string   `json:"skillcard_hash"`
			RequiredPermissions []string `json:"required_permissions"`
		} `json:"sellers"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &found))
	require.Len(t, found.Sellers, 1)
	require.Equal(t, hash.ContentHash, found.Sellers[0].SkillCardHash, "the signed listing carries the card's content hash")
	require.Equal(t, []string{"none"}, found.Sellers[0].RequiredPermissions)

	hostile := `; rm -rf / $(touch pwned) ` + "`touch pwned2`" + ` && echo hi`
	input, _ := json.Marshal(map[string]any{"text": hostile, "loud": true})
	h, r := hire(t, m.buyer, "--input-json", string(input), "custom.acme.echo-args")
	require.Equal(t, 0, r.Code, r.Stderr)
	var out struct {
		Args []string `json:"args"`
	}
	require.NoError(t, json.Unmarshal(h.Output, &out))
	require.Equal(t, []string{"--text", hostile, "--loud"}, out.Args)
	require.Equal(t, "delivered", h.Escrow.State, "no standard verifier: the hold waits for the window")
	for _, f := range []string{"pwned", "pwned2"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.True(t, os.IsNotExist(err), "input reached a shell: %s exists", f)
	}

	// caps show names what the sellers' card requires.
	r = swarmwage(t, "--repo", m.buyer, "caps", "show", "--json", "custom.acme.echo-args")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"required_permissions"`)

	// An input the card's schema refuses is refused before anything is paid.
	_, r = hire(t, m.buyer, "--input-json", `{"text": 5}`, "custom.acme.echo-args")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Equal(t, "0.1", balance(t, m.buyer).Held, "only the delivered job's hold, nothing for the refused input")
}

func TestCLISellSkillCardRejectsBadCards(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name":"x"}`), 0o644))
	r := swarmwage(t, "--repo", repo, "sell", "add", "--price", "1", "--skillcard", bad)
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "not a valid SkillCard")

	// Sold as a standard capability whose schemas it does not fit.
	card := filepath.Join("testdata", "echo-card", "echo-args.v1.0.0.json")
	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "1", "--skillcard", card, "compute.statistics.mean")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "does not fit")
}

// TestCLIRiskTier3NeedsConfirm: hiring a risk tier 3 SkillCard is refused
// (exit 2, nothing locked) unless confirmed.
func TestCLIRiskTier3NeedsConfirm(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "custom.acme.risky-echo", "0.1", "--skillcard", filepath.Join("testdata", "risky-card", "risky-echo.v1.0.0.json"))

	_, r := hire(t, m.buyer, "--input-json", `{"text":"x"}`, "custom.acme.risky-echo")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "--confirm")
	require.Equal(t, "0", balance(t, m.buyer).Held)

	h, r := hire(t, m.buyer, "--confirm", "--input-json", `{"text":"x"}`, "custom.acme.risky-echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "delivered", h.Escrow.State)
}
