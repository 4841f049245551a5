//go:build nri_before_policies

package main

import (
	"errors"

	"github.com/containerd/nri/pkg/stub"
)

// failurePolicyOption: NRI before v0.12.4 has no WithFailurePolicy.
func failurePolicyOption(string) (stub.Option, error) {
	return nil, errors.New("-policy needs NRI v0.12.4 or later")
}
