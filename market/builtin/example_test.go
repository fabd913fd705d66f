package builtin_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/swarmwage/swarmwage/market/builtin"
)

func Example() {
	reg, err := builtin.New()
	if err != nil {
		panic(err)
	}
	h, ok := reg.Lookup(builtin.CapStatsMedian)
	if !ok {
		panic("no median")
	}
	out, err := h.Handle(context.Background(), []byte(`{"data":[3,1,4,1,5,9]}`))
	fmt.Println(string(out), err)

	// Bad input is an *InputError; the agent endpoint answers it with 400.
	_, err = h.Handle(context.Background(), []byte(`{"data":[]}`))
	var st interface{ HTTPStatus() int }
	if errors.As(err, &st) {
		fmt.Println(st.HTTPStatus(), err)
	}
	// Output:
	// {"result":3.5} <nil>
	// 400 invalid input for compute.statistics.median: data is empty
}
