// Command sigs-yaml-oracle decodes YAML into the Go types the upstream
// plugins of github.com/containerd/nri v0.12.2 decode their annotations and
// configuration into, with sigs.k8s.io/yaml v1.3.0 (the version those
// plugins pin), so that @nri-ts/sigs-yaml can be checked against it. The
// types have the upstream names (in package main, as there), fields and
// JSON tags, so that Go's error texts name them as the upstream plugins do.
//
// It reads JSON lines {"type": "<name>", "yaml": "..."} on stdin and writes
// one JSON line per request: {"value": ...} or {"error": "..."}. Values are
// written with integers as decimal text (JavaScript reads them without
// losing digits), nil slices and maps as empty ones, nil pointers as null.
//
// A line {"marshal": "<JSON>"} asks the other way round (see marshal.go):
// the YAML sigs.k8s.io/yaml writes for that value, {"yaml": "..."} or
// {"error": "..."}, with "unstable": true where runs gave different YAML.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	"sigs.k8s.io/yaml"
)

// ulimit-adjuster
type ulimit struct {
	Type string `json:"type"`
	Hard uint64 `json:"hard"`
	Soft uint64 `json:"soft"`
}

// device-injector
type device struct {
	Path     string `json:"path"`
	Type     string `json:"type"`
	Major    int64  `json:"major"`
	Minor    int64  `json:"minor"`
	FileMode uint32 `json:"file_mode"`
	UID      uint32 `json:"uid"`
	GID      uint32 `json:"gid"`
}

type mount struct {
	Source      string   `json:"source"`
	Destination string   `json:"destination"`
	Type        string   `json:"type"`
	Options     []string `json:"options"`
}

type ioPrio struct {
	Class    string `json:"class"`
	Priority int32  `json:"priority"`
}

type netDevice struct {
	HostIf string `json:"hostIf"`
	Name   string `json:"name"`
}

type scheduler struct {
	Policy   string   `json:"policy"`
	Nice     int32    `json:"nice"`
	Priority int32    `json:"priority"`
	Flags    []string `json:"flags"`
	Runtime  uint64   `json:"runtime"`
	Deadline uint64   `json:"deadline"`
	Period   uint64   `json:"period"`
}

type memoryPolicy struct {
	Mode  string   `json:"mode"`
	Nodes string   `json:"nodes"`
	Flags []string `json:"flags"`
}

// network-device-injector
type netdevice struct {
	Name    string `json:"name"`
	NewName string `json:"new_name"`
	Address string `json:"address"`
	Prefix  int    `json:"prefix"`
	MTU     int    `json:"mtu"`
}

// logger
type config struct {
	LogFile       string   `json:"logFile"`
	Events        []string `json:"events"`
	AddAnnotation string   `json:"addAnnotation"`
	SetAnnotation string   `json:"setAnnotation"`
	AddEnv        string   `json:"addEnv"`
	SetEnv        string   `json:"setEnv"`
}

// targets, decoded as the upstream plugins decode them: a list into the
// address of a nil slice, a struct into a pointer to a zero struct
var targets = map[string]func() interface{}{
	"ulimits":         func() interface{} { return &[]ulimit{} },
	"devices":         func() interface{} { var v []device; return &v },
	"cdi-devices":     func() interface{} { var v []string; return &v },
	"mounts":          func() interface{} { var v []mount; return &v },
	"io-priority":     func() interface{} { return &ioPrio{} },
	"network-devices": func() interface{} { var v []*netDevice; return &v },
	"scheduler":       func() interface{} { return &scheduler{} },
	"sysctl":          func() interface{} { var v map[string]string; return &v },
	"memory-policy":   func() interface{} { return &memoryPolicy{} },
	"netdevices":      func() interface{} { var v []netdevice; return &v },
	"logger-config":   func() interface{} { return &config{Events: []string{""}} },
}

// plain renders a decoded value for JavaScript: integers as decimal text.
func plain(v reflect.Value) interface{} {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return plain(v.Elem())
	case reflect.Struct:
		out := map[string]interface{}{}
		for i := 0; i < v.NumField(); i++ {
			name := strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0]
			out[name] = plain(v.Field(i))
		}
		return out
	case reflect.Slice:
		out := []interface{}{}
		for i := 0; i < v.Len(); i++ {
			out = append(out, plain(v.Index(i)))
		}
		return out
	case reflect.Map:
		out := map[string]interface{}{}
		for _, k := range v.MapKeys() {
			out[k.String()] = plain(v.MapIndex(k))
		}
		return out
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprint(v.Interface())
	default:
		return v.Interface()
	}
}

type request struct {
	Type    string  `json:"type"`
	YAML    string  `json:"yaml"`
	Marshal *string `json:"marshal"`
}

type answer struct {
	Value    interface{} `json:"value,omitempty"`
	YAML     string      `json:"yaml,omitempty"`
	Error    string      `json:"error,omitempty"`
	Unstable bool        `json:"unstable,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if req.Marshal != nil {
			if err := out.Encode(marshal(*req.Marshal)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			continue
		}
		target, ok := targets[req.Type]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown type %q\n", req.Type)
			os.Exit(1)
		}
		v := target()
		var a answer
		if err := yaml.Unmarshal([]byte(req.YAML), v); err != nil {
			a.Error = err.Error()
		} else {
			a.Value = plain(reflect.ValueOf(v))
		}
		if err := out.Encode(a); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
