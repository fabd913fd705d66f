package main

import (
	"os"
	"runtime"
	"testing"
)

func TestSetProcs(t *testing.T) {
	start := runtime.GOMAXPROCS(0)
	tests := []struct {
		name string
		env  *string // nil: GOMAXPROCS unset
		want int
	}{
		{name: "unset: twice the default", want: procsPerCPU * start},
		{name: "set by the operator: kept", env: ptr("3"), want: start},
		{name: "set empty: kept", env: ptr(""), want: start},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", "")
			if tt.env == nil {
				os.Unsetenv("GOMAXPROCS")
			} else {
				os.Setenv("GOMAXPROCS", *tt.env)
			}
			defer runtime.GOMAXPROCS(start)
			setProcs()
			if got := runtime.GOMAXPROCS(0); got != tt.want {
				t.Errorf("GOMAXPROCS after setProcs = %d, want %d", got, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
