// Command merge-oracle runs merge scenarios through the upstream Go
// adaptation (github.com/containerd/nri/pkg/adaptation, as pinned in go.mod)
// with in-process builtin plugins that answer what the scenario says, so that
// the @nri-ts/adaptation merge engine can be compared with it decision by
// decision, and timed against it.
//
// One process serves many scenarios: it reads one scenario per line on stdin
// (JSON, see scenario.go) and writes one JSON line per scenario on stdout, in
// the same order, until stdin ends.
//
//	merge-oracle              answer each scenario with the distinct outcomes
//	                          of its runs and how many runs ended in each:
//	                          {"outcomes": [outcome, ...], "runs": [n, ...]}
//	merge-oracle -bench N     time N runs of each scenario's request (after
//	                          N/10 unrecorded ones) in one adaptation:
//	                          {"iterations": N, "nsPerOp": x, "cpuNsPerOp": y,
//	                           "error": "..."}
//
// A scenario that cannot be run (bad base64 or protobuf, an adaptation that
// does not start) is answered with {"fatal": "..."} and the process goes on.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	nrilog "github.com/containerd/nri/pkg/log"
)

// quiet drops the adaptation's and the default validator's logs: rejections
// are logged as errors, and thousands of them would bury real failures.
type quiet struct{}

func (quiet) Debugf(context.Context, string, ...interface{}) {}
func (quiet) Infof(context.Context, string, ...interface{})  {}
func (quiet) Warnf(context.Context, string, ...interface{})  {}
func (quiet) Errorf(context.Context, string, ...interface{}) {}

func main() {
	bench := flag.Int("bench", 0, "time this many runs of each scenario instead of reporting outcomes")
	flag.Parse()
	nrilog.Set(quiet{})

	empty, err := os.MkdirTemp("", "merge-oracle-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "merge-oracle:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(empty)

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		var answer any
		sc, err := parseScenario(in.Bytes())
		switch {
		case err != nil:
			answer = map[string]string{"fatal": err.Error()}
		case *bench > 0:
			answer = timeScenario(sc, empty, *bench)
		default:
			answer = runScenario(sc, empty)
		}
		if err := enc.Encode(answer); err != nil {
			fmt.Fprintln(os.Stderr, "merge-oracle:", err)
			os.Exit(1)
		}
		// Answer each line at once: the caller waits for it before sending more.
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "merge-oracle: reading stdin:", err)
		os.Exit(1)
	}
}
