package verify_test

import (
	"context"
	"fmt"

	"github.com/swarmwage/swarmwage/verify"
)

func ExampleVerify() {
	input := []byte(`{"data":[2,4,4,4,5,5,7,9]}`)
	output := []byte(`{"result":5.5}`)
	rep, err := verify.Verify(context.Background(), "compute.statistics.mean", input, output)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(rep.Passed)
	for _, c := range rep.Failed() {
		fmt.Printf("%s: %s\n", c.Name, c.Detail)
	}
	// Output:
	// false
	// value_matches: result is 5.5 but the mean of the 8 input values is 5
}

func ExampleParse() {
	c, err := verify.Parse("text.translate.en.it.fluent")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(c.Template, c.Params["tgt"], c.Checks)
	_, err = verify.Parse("Text.translate")
	fmt.Println(err)
	// Output:
	// text.translate.{src}.{tgt}.{level} it [input_schema output_schema non_empty length_ratio language_detected]
	// capability ID "Text.translate": rule "lowercase": contains uppercase letters; IDs are all lowercase
}
