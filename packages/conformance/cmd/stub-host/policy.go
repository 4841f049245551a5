//go:build !nri_before_policies

package main

import (
	"fmt"
	"strings"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

// failurePolicyOption turns -policy into WithFailurePolicy (NRI v0.12.4 and
// later; the modules under older/ build with -tags nri_before_policies).
func failurePolicyOption(spec string) (stub.Option, error) {
	policy := &api.FailurePolicy{}
	if spec != "none" {
		for _, field := range strings.Split(spec, ",") {
			switch field {
			case "fail":
				policy.FailRequest = true
			case "keep":
				policy.KeepConnected = true
			default:
				return nil, fmt.Errorf("bad -policy %q: want none, fail, keep or fail,keep", spec)
			}
		}
	}
	return stub.WithFailurePolicy(policy), nil
}
