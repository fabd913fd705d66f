// Command bindgen writes the Go binding of one compiled contract artifact
// (contracts/artifacts/<Name>.json: its ABI and bytecode) with go-ethereum's
// abigen library, at the go-ethereum version go.mod pins.
//
// contracts/build.sh runs it for every contract. It replaces `go run
// .../cmd/abigen@version`, which built abigen in a module graph of its own:
// on a fresh machine that downloaded and compiled a second go-ethereum with
// its command-line dependencies, minutes that TestArtifactsMatchSource spent
// before it checked anything. In this module it reuses what the escrow
// packages already build.
//
//	go run ./escrow/evm/contract/bindgen -artifact A.json -pkg contract -type Name -out name.go
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/abigen"
)

// artifact is what contracts/compile.cjs writes for one contract.
type artifact struct {
	ABI      json.RawMessage `json:"abi"`
	Bytecode string          `json:"bytecode"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bindgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("bindgen", flag.ContinueOnError)
	path := fs.String("artifact", "", "compiled artifact (JSON with abi and bytecode)")
	pkg := fs.String("pkg", "", "Go package of the binding")
	typ := fs.String("type", "", "Go type of the contract")
	out := fs.String("out", "", "file to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" || *pkg == "" || *typ == "" || *out == "" {
		return errors.New("-artifact, -pkg, -type and -out are all required")
	}
	raw, err := os.ReadFile(*path)
	if err != nil {
		return fmt.Errorf("reading the artifact: %w", err)
	}
	var a artifact
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("artifact %s: %w", *path, err)
	}
	if len(a.ABI) == 0 {
		return fmt.Errorf("artifact %s has no abi", *path)
	}
	bin := strings.TrimPrefix(a.Bytecode, "0x")
	if strings.Contains(bin, "//") {
		return fmt.Errorf("artifact %s links libraries, which bindgen does not bind", *path)
	}
	code, err := abigen.Bind([]string{*typ}, []string{string(a.ABI)}, []string{bin}, nil, *pkg, map[string]string{}, map[string]string{})
	if err != nil {
		return fmt.Errorf("binding %s: %w", *typ, err)
	}
	if err := os.WriteFile(*out, []byte(code), 0o644); err != nil {
		return fmt.Errorf("writing the binding: %w", err)
	}
	return nil
}
