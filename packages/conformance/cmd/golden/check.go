package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"google.golang.org/protobuf/proto"
)

// mismatch is one vector whose foreign encoding Go does not read back as
// its own message.
type mismatch struct {
	Name    string `json:"name"`
	Problem string `json:"problem"`
}

// check reads a JSON object mapping vector names to hex-encoded bytes
// produced by another implementation, decodes each with the Go types and
// compares it with what Go decodes from its own encoding of that vector.
// Byte order may differ (map entries); the decoded messages must not.
func check(in io.Reader, messages []named) ([]mismatch, error) {
	var foreign map[string]string
	if err := json.NewDecoder(in).Decode(&foreign); err != nil {
		return nil, fmt.Errorf("reading foreign vectors: %w", err)
	}
	problems := []mismatch{}
	known := make(map[string]bool, len(messages))
	for _, m := range messages {
		known[m.name] = true
		foreignHex, ok := foreign[m.name]
		if !ok {
			problems = append(problems, mismatch{m.name, "missing from the foreign vectors"})
		} else if problem := compare(m.msg, foreignHex); problem != "" {
			problems = append(problems, mismatch{m.name, problem})
		}
	}
	unknown := []string{}
	for name := range foreign {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		problems = append(problems, mismatch{name, "no such Go vector"})
	}
	return problems, nil
}

func compare(msg proto.Message, foreignHex string) string {
	foreignBytes, err := hex.DecodeString(foreignHex)
	if err != nil {
		return "bad hex: " + err.Error()
	}
	ownBytes, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return "marshal: " + err.Error()
	}
	own := msg.ProtoReflect().Type().New().Interface()
	if err := proto.Unmarshal(ownBytes, own); err != nil {
		return "unmarshal own bytes: " + err.Error()
	}
	theirs := msg.ProtoReflect().Type().New().Interface()
	if err := proto.Unmarshal(foreignBytes, theirs); err != nil {
		return "unmarshal: " + err.Error()
	}
	if !proto.Equal(own, theirs) {
		return fmt.Sprintf("decodes differently:\n  go:      %v\n  foreign: %v", own, theirs)
	}
	return ""
}
