package main

import (
	"bytes"
	"encoding/json"

	"sigs.k8s.io/yaml"
)

// marshalRuns is how often a value is marshalled: go-yaml v2 sorts a map's
// keys, but it starts from Go's random map order, so where its key order is
// not a total order the output changes from run to run.
const marshalRuns = 5

// marshal answers a {"marshal": "<JSON>"} request: the JSON is decoded into
// plain Go values (numbers kept as written) and marshalled with
// sigs.k8s.io/yaml, as the Go logger marshals the objects it dumps. The
// answer carries the YAML, or the error, and whether runs disagreed.
func marshal(text string) answer {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return answer{Error: "bad request: " + err.Error()}
	}
	var first answer
	for i := 0; i < marshalRuns; i++ {
		var a answer
		if y, err := yaml.Marshal(v); err != nil {
			a.Error = err.Error()
		} else {
			a.YAML = string(y)
		}
		if i == 0 {
			first = a
		} else if a != first {
			first.Unstable = true
		}
	}
	return first
}
