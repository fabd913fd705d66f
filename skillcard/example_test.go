package skillcard_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/swarmwage/swarmwage/skillcard"
)

// Stable JSON is what the node signs: the same bytes whatever the field
// order or formatting, as JavaScript's stableJsonStringify writes them.
func ExampleStableJSON() {
	listing := map[string]any{"price": 0.25, "cap": "text.summarize", "note": "<fast> & cheap", "ttl": 1e21}
	b, err := skillcard.StableJSON(listing)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"cap":"text.summarize","note":"<fast> & cheap","price":0.25,"ttl":1e+21}
}

func ExampleParse() {
	card, err := skillcard.ParseFile("testdata/apeclaw-nft-autobuy.v1.0.0.json")
	if err != nil {
		panic(err) // unreadable, too large or not JSON
	}
	for _, p := range card.Validate() {
		fmt.Println(p) // every problem, with its JSON path
	}
	fmt.Println(card.Slug, card.Publisher(), card.RiskTier(), card.FileName())
	fmt.Println(card.ContentHash())
	// Output:
	// apeclaw-nft-autobuy apeclaw 2 apeclaw-nft-autobuy.v1.0.0.json
	// 0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa
}

func ExampleBinding_Run() {
	b := skillcard.Binding{Type: skillcard.BindingCLI, Command: "echo <greeting>"}
	out, err := b.Run(context.Background(), json.RawMessage(`{"greeting":"{\"hello\": \"world\"}"}`), skillcard.Limits{})
	fmt.Println(string(out), err)
	// Output:
	// {"hello":"world"} <nil>
}
