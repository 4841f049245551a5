package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// call is one helper method call as recorded in the output file. Its
// arguments are JSON: strings, booleans, int as a number, int64 and uint64
// as decimal strings (exact in JavaScript), enums by name and messages in
// protojson. The cases below are applied from this JSON form, so the file
// holds exactly the inputs Go ran.
type call struct {
	Method string            `json:"method"`
	Args   []json.RawMessage `json:"args"`
}

// do records a call, turning Go values into their JSON form.
func do(method string, args ...any) call {
	c := call{Method: method, Args: []json.RawMessage{}}
	for _, arg := range args {
		c.Args = append(c.Args, argJSON(arg))
	}
	return c
}

func argJSON(arg any) json.RawMessage {
	var text []byte
	var err error
	switch v := arg.(type) {
	case proto.Message:
		text, err = protojson.Marshal(v)
		if err == nil {
			// protojson varies its whitespace on purpose.
			var compact bytes.Buffer
			err = json.Compact(&compact, text)
			text = compact.Bytes()
		}
	case protoreflect.Enum:
		text, err = json.Marshal(string(v.Descriptor().Values().ByNumber(v.Number()).Name()))
	case int64:
		text, err = json.Marshal(strconv.FormatInt(v, 10))
	case uint64:
		text, err = json.Marshal(strconv.FormatUint(v, 10))
	case string, bool, int, []string:
		text, err = json.Marshal(v)
	default:
		err = fmt.Errorf("unsupported argument type %T", arg)
	}
	if err != nil {
		panic(fmt.Sprintf("encoding argument %v: %v", arg, err))
	}
	return text
}

// args reads the JSON arguments of one call; the first problem sticks.
type args struct {
	call call
	err  error
}

func (a *args) fail(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("%s: %s", a.call.Method, fmt.Sprintf(format, v...))
	}
}

func (a *args) decode(i int, into any) {
	if i >= len(a.call.Args) {
		a.fail("argument %d missing", i)
		return
	}
	if err := json.Unmarshal(a.call.Args[i], into); err != nil {
		a.fail("argument %d: %v", i, err)
	}
}

func (a *args) str(i int) string {
	var s string
	a.decode(i, &s)
	return s
}

func (a *args) strs(i int) []string {
	var s []string
	a.decode(i, &s)
	return s
}

func (a *args) boolean(i int) bool {
	var b bool
	a.decode(i, &b)
	return b
}

func (a *args) integer(i int) int {
	var n int
	a.decode(i, &n)
	return n
}

func (a *args) int64(i int) int64 {
	n, err := strconv.ParseInt(a.str(i), 10, 64)
	if err != nil {
		a.fail("argument %d: %v", i, err)
	}
	return n
}

func (a *args) uint64(i int) uint64 {
	n, err := strconv.ParseUint(a.str(i), 10, 64)
	if err != nil {
		a.fail("argument %d: %v", i, err)
	}
	return n
}

func (a *args) enum(i int, values map[string]int32) int32 {
	name := a.str(i)
	n, ok := values[name]
	if !ok {
		a.fail("argument %d: unknown enum value %q", i, name)
	}
	return n
}

func (a *args) message(i int, into proto.Message) {
	if i >= len(a.call.Args) {
		a.fail("argument %d missing", i)
		return
	}
	if err := protojson.Unmarshal(a.call.Args[i], into); err != nil {
		a.fail("argument %d: %v", i, err)
	}
}

// count checks the number of arguments, or with atLeast set, the minimum.
func (a *args) count(n int, atLeast bool) {
	if got := len(a.call.Args); got < n || (!atLeast && got != n) {
		a.fail("got %d arguments, want %d", got, n)
	}
}

// resourceSetters are the Linux resource helpers that ContainerAdjustment and
// ContainerUpdate share, with the same names and signatures.
type resourceSetters interface {
	SetLinuxMemoryLimit(int64)
	SetLinuxMemoryReservation(int64)
	SetLinuxMemorySwap(int64)
	SetLinuxMemoryKernel(int64)
	SetLinuxMemoryKernelTCP(int64)
	SetLinuxMemorySwappiness(uint64)
	SetLinuxMemoryDisableOomKiller()
	SetLinuxMemoryUseHierarchy()
	SetLinuxCPUShares(uint64)
	SetLinuxCPUQuota(int64)
	SetLinuxCPUPeriod(int64)
	SetLinuxCPURealtimeRuntime(int64)
	SetLinuxCPURealtimePeriod(uint64)
	SetLinuxCPUSetCPUs(string)
	SetLinuxCPUSetMems(string)
	SetLinuxPidLimits(int64)
	AddLinuxHugepageLimit(string, uint64)
	SetLinuxBlockIOClass(string)
	SetLinuxRDTClass(string)
	AddLinuxUnified(string, string)
}

type method[T any] struct {
	arity   int
	atLeast bool
	apply   func(target T, a *args)
}

func fixed[T any](arity int, apply func(T, *args)) method[T] {
	return method[T]{arity: arity, apply: apply}
}

func resourceMethods() map[string]method[resourceSetters] {
	type r = resourceSetters
	return map[string]method[r]{
		"SetLinuxMemoryLimit":            fixed(1, func(t r, a *args) { t.SetLinuxMemoryLimit(a.int64(0)) }),
		"SetLinuxMemoryReservation":      fixed(1, func(t r, a *args) { t.SetLinuxMemoryReservation(a.int64(0)) }),
		"SetLinuxMemorySwap":             fixed(1, func(t r, a *args) { t.SetLinuxMemorySwap(a.int64(0)) }),
		"SetLinuxMemoryKernel":           fixed(1, func(t r, a *args) { t.SetLinuxMemoryKernel(a.int64(0)) }),
		"SetLinuxMemoryKernelTCP":        fixed(1, func(t r, a *args) { t.SetLinuxMemoryKernelTCP(a.int64(0)) }),
		"SetLinuxMemorySwappiness":       fixed(1, func(t r, a *args) { t.SetLinuxMemorySwappiness(a.uint64(0)) }),
		"SetLinuxMemoryDisableOomKiller": fixed(0, func(t r, a *args) { t.SetLinuxMemoryDisableOomKiller() }),
		"SetLinuxMemoryUseHierarchy":     fixed(0, func(t r, a *args) { t.SetLinuxMemoryUseHierarchy() }),
		"SetLinuxCPUShares":              fixed(1, func(t r, a *args) { t.SetLinuxCPUShares(a.uint64(0)) }),
		"SetLinuxCPUQuota":               fixed(1, func(t r, a *args) { t.SetLinuxCPUQuota(a.int64(0)) }),
		"SetLinuxCPUPeriod":              fixed(1, func(t r, a *args) { t.SetLinuxCPUPeriod(a.int64(0)) }),
		"SetLinuxCPURealtimeRuntime":     fixed(1, func(t r, a *args) { t.SetLinuxCPURealtimeRuntime(a.int64(0)) }),
		"SetLinuxCPURealtimePeriod":      fixed(1, func(t r, a *args) { t.SetLinuxCPURealtimePeriod(a.uint64(0)) }),
		"SetLinuxCPUSetCPUs":             fixed(1, func(t r, a *args) { t.SetLinuxCPUSetCPUs(a.str(0)) }),
		"SetLinuxCPUSetMems":             fixed(1, func(t r, a *args) { t.SetLinuxCPUSetMems(a.str(0)) }),
		"SetLinuxPidLimits":              fixed(1, func(t r, a *args) { t.SetLinuxPidLimits(a.int64(0)) }),
		"AddLinuxHugepageLimit":          fixed(2, func(t r, a *args) { t.AddLinuxHugepageLimit(a.str(0), a.uint64(1)) }),
		"SetLinuxBlockIOClass":           fixed(1, func(t r, a *args) { t.SetLinuxBlockIOClass(a.str(0)) }),
		"SetLinuxRDTClass":               fixed(1, func(t r, a *args) { t.SetLinuxRDTClass(a.str(0)) }),
		"AddLinuxUnified":                fixed(2, func(t r, a *args) { t.AddLinuxUnified(a.str(0), a.str(1)) }),
	}
}

// withResources adds the shared resource setters to a type's own methods.
func withResources[T resourceSetters](own map[string]method[T]) map[string]method[T] {
	for name, m := range resourceMethods() {
		own[name] = method[T]{arity: m.arity, atLeast: m.atLeast, apply: func(t T, a *args) { m.apply(t, a) }}
	}
	return own
}

func adjustmentMethods() map[string]method[*api.ContainerAdjustment] {
	type adj = *api.ContainerAdjustment
	return withResources(map[string]method[adj]{
		"AddAnnotation":    fixed(2, func(t adj, a *args) { t.AddAnnotation(a.str(0), a.str(1)) }),
		"RemoveAnnotation": fixed(1, func(t adj, a *args) { t.RemoveAnnotation(a.str(0)) }),
		"AddMount": fixed(1, func(t adj, a *args) {
			m := &api.Mount{}
			a.message(0, m)
			t.AddMount(m)
		}),
		"RemoveMount": fixed(1, func(t adj, a *args) { t.RemoveMount(a.str(0)) }),
		"AddEnv":      fixed(2, func(t adj, a *args) { t.AddEnv(a.str(0), a.str(1)) }),
		"RemoveEnv":   fixed(1, func(t adj, a *args) { t.RemoveEnv(a.str(0)) }),
		"SetArgs":     fixed(1, func(t adj, a *args) { t.SetArgs(a.strs(0)) }),
		"UpdateArgs":  fixed(1, func(t adj, a *args) { t.UpdateArgs(a.strs(0)) }),
		"AddHooks": fixed(1, func(t adj, a *args) {
			h := &api.Hooks{}
			a.message(0, h)
			t.AddHooks(h)
		}),
		"AddRlimit": fixed(3, func(t adj, a *args) { t.AddRlimit(a.str(0), a.uint64(1), a.uint64(2)) }),
		"AddDevice": fixed(1, func(t adj, a *args) {
			d := &api.LinuxDevice{}
			a.message(0, d)
			t.AddDevice(d)
		}),
		"RemoveDevice": fixed(1, func(t adj, a *args) { t.RemoveDevice(a.str(0)) }),
		"AddCDIDevice": fixed(1, func(t adj, a *args) {
			d := &api.CDIDevice{}
			a.message(0, d)
			t.AddCDIDevice(d)
		}),
		"AddOrReplaceNamespace": fixed(1, func(t adj, a *args) {
			n := &api.LinuxNamespace{}
			a.message(0, n)
			t.AddOrReplaceNamespace(n)
		}),
		"RemoveNamespace": fixed(1, func(t adj, a *args) {
			n := &api.LinuxNamespace{}
			a.message(0, n)
			t.RemoveNamespace(n)
		}),
		"AddLinuxNetDevice": fixed(2, func(t adj, a *args) {
			d := &api.LinuxNetDevice{}
			a.message(1, d)
			t.AddLinuxNetDevice(a.str(0), d)
		}),
		"RemoveLinuxNetDevice": fixed(1, func(t adj, a *args) { t.RemoveLinuxNetDevice(a.str(0)) }),
		"SetLinuxMemoryPolicy": {arity: 2, atLeast: true, apply: func(t adj, a *args) {
			var flags []api.MpolFlag
			for i := 2; i < len(a.call.Args); i++ {
				flags = append(flags, api.MpolFlag(a.enum(i, api.MpolFlag_value)))
			}
			t.SetLinuxMemoryPolicy(api.MpolMode(a.enum(0, api.MpolMode_value)), a.str(1), flags...)
		}},
		"SetLinuxRDTClosID":           fixed(1, func(t adj, a *args) { t.SetLinuxRDTClosID(a.str(0)) }),
		"SetLinuxRDTSchemata":         fixed(1, func(t adj, a *args) { t.SetLinuxRDTSchemata(a.strs(0)) }),
		"SetLinuxRDTEnableMonitoring": fixed(1, func(t adj, a *args) { t.SetLinuxRDTEnableMonitoring(a.boolean(0)) }),
		"RemoveLinuxRDT":              fixed(0, func(t adj, a *args) { t.RemoveLinuxRDT() }),
		"SetLinuxCgroupsPath":         fixed(1, func(t adj, a *args) { t.SetLinuxCgroupsPath(a.str(0)) }),
		"SetLinuxOomScoreAdj": fixed(1, func(t adj, a *args) {
			score := a.integer(0)
			t.SetLinuxOomScoreAdj(&score)
		}),
		"SetLinuxIOPriority": fixed(1, func(t adj, a *args) {
			p := &api.LinuxIOPriority{}
			a.message(0, p)
			t.SetLinuxIOPriority(p)
		}),
		"SetLinuxSeccompPolicy": fixed(1, func(t adj, a *args) {
			s := &api.LinuxSeccomp{}
			a.message(0, s)
			t.SetLinuxSeccompPolicy(s)
		}),
		"SetLinuxSysctl": fixed(2, func(t adj, a *args) { t.SetLinuxSysctl(a.str(0), a.str(1)) }),
		"SetLinuxScheduler": fixed(1, func(t adj, a *args) {
			s := &api.LinuxScheduler{}
			a.message(0, s)
			t.SetLinuxScheduler(s)
		}),
	})
}

func updateMethods() map[string]method[*api.ContainerUpdate] {
	type upd = *api.ContainerUpdate
	return withResources(map[string]method[upd]{
		"SetContainerId":   fixed(1, func(t upd, a *args) { t.SetContainerId(a.str(0)) }),
		"SetIgnoreFailure": fixed(0, func(t upd, a *args) { t.SetIgnoreFailure() }),
	})
}

// apply runs the calls on target, reading their arguments from JSON.
func apply[T any](methods map[string]method[T], target T, calls []call) error {
	for _, c := range calls {
		m, ok := methods[c.Method]
		if !ok {
			return fmt.Errorf("no such helper method %q", c.Method)
		}
		a := &args{call: c}
		a.count(m.arity, m.atLeast)
		if a.err == nil {
			m.apply(target, a)
		}
		if a.err != nil {
			return a.err
		}
	}
	return nil
}

// helperMethods lists the exported methods of v that record a change: those
// named Add*, Set*, Remove* or Update*. An NRI upgrade that adds one makes
// the generator fail until the method is dispatched and exercised.
func helperMethods(v any) []string {
	var names []string
	t := reflect.TypeOf(v)
	for i := 0; i < t.NumMethod(); i++ {
		name := t.Method(i).Name
		for _, prefix := range []string{"Add", "Set", "Remove", "Update"} {
			if strings.HasPrefix(name, prefix) {
				names = append(names, name)
				break
			}
		}
	}
	sort.Strings(names)
	return names
}
