// Package vectorfile holds what the programs that write checked-in vector
// files (cmd/golden, cmd/api-helpers) share: which NRI module version they
// were built with, which messages must be compared after decoding, and how
// the files are written.
package vectorfile

import (
	"bytes"
	"encoding/json"
	"runtime/debug"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// NRIModule is the Go module whose behaviour the vectors record.
const NRIModule = "github.com/containerd/nri"

// ModuleVersion is the version of NRIModule this binary was built with.
func ModuleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == NRIModule {
				return dep.Version
			}
		}
	}
	return "(unknown)"
}

// HasMaps reports whether a populated map field occurs anywhere in m. Such
// messages are compared after decoding rather than byte for byte: map entry
// order and the encoding of empty keys and values differ between
// implementations.
func HasMaps(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			found = true
		case fd.IsList() && fd.Message() != nil:
			list := v.List()
			for i := 0; i < list.Len() && !found; i++ {
				found = HasMaps(list.Get(i).Message())
			}
		case fd.Message() != nil:
			found = HasMaps(v.Message())
		}
		return !found
	})
	return found
}

// Marshal renders v as the indented JSON the vector files are checked in as.
func Marshal(v any) ([]byte, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
