package contract_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestArtifactsMatchSource recompiles contracts/*.sol with the pinned solcjs,
// regenerates the bindings with the pinned abigen and fails if the committed
// artifacts or bindings differ: a .sol change must come with its build.
// build.sh installs the pinned npm tools itself (npm ci) when they are missing.
func TestArtifactsMatchSource(t *testing.T) {
	if testing.Short() {
		t.Skip("recompiles the contracts (about a minute); run without -short")
	}
	for _, tool := range []string{"node", "npm", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install Node.js and npm (apt-get install nodejs npm) to check the contracts", tool)
		}
	}
	script, err := filepath.Abs("../../../contracts/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "bash", script, "--check")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("contracts/build.sh --check: %v\n%s", err, out)
	}
}
