// Command plugin-device-injector is the Go device-injector of
// github.com/containerd/nri v0.12.2 to v0.12.5 (plugins/device-injector,
// unchanged in that range), restated for the conformance suite. The upstream
// plugin is a separate Go module that the module proxy does not serve, and a
// main package cannot be imported, so this program does what it does, on the
// same libraries: the upstream stub (pkg/stub), the pkg/api adjustment
// helpers, and sigs.k8s.io/yaml v1.3.0 (the version the upstream module
// pins) into the same types in package main, so that Go names them
// (`main.device`) in its errors as upstream does; the same lookup order and
// error texts. Logging is left out (the suite compares adjustments).
//
// As a plugin it takes the upstream flags (-idx, -socket-path, -verbose).
// With -decode it is a test oracle instead: it reads JSON lines
// {"container": ..., "annotations": {...}} on stdin and writes one JSON line
// per request: {"adjustment": <protojson of the ContainerAdjustment>},
// {"error": "..."}, or {"panic": "..."} where the upstream code would crash
// the plugin (a null entry in the network devices: a nil pointer).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

type kind struct{ key, old, what string }

var (
	devicesKind   = kind{"devices.noderesource.dev", "devices.nri.io", "device"}
	cdiKind       = kind{"cdi-devices.noderesource.dev", "cdi-devices.nri.io", "CDI device"}
	mountsKind    = kind{"mounts.noderesource.dev", "mounts.nri.io", "mount"}
	ioPrioKind    = kind{"io-priority.noderesource.dev", "io-priority.nri.io", "I/O priority"}
	netDevKind    = kind{"network-devices.noderesource.dev", "network-devices.nri.io", "net device"}
	schedKind     = kind{"scheduling-policy.noderesource.dev", "scheduling-policy.nri.io", "scheduler"}
	sysctlKind    = kind{"sysctl.noderesource.dev", "", "sysctl"}
	memPolicyKind = kind{"memory-policy.noderesource.dev", "memory-policy.nri.io", "memory policy"}
)

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

// lookup returns the value of the first key present, nil when none is.
func lookup(annotations map[string]string, k kind, ctr string) []byte {
	for _, key := range []string{
		k.key + "/container." + ctr, k.old + "/container." + ctr,
		k.key + "/pod", k.old + "/pod",
		k.key, k.old,
	} {
		if key == "" || key[0] == '/' {
			continue
		}
		if value, ok := annotations[key]; ok {
			return []byte(value)
		}
	}
	return nil
}

func unmarshal(k kind, value []byte, into interface{}) error {
	if err := yaml.Unmarshal(value, into); err != nil {
		return fmt.Errorf("invalid %s annotation %q: %w", k.what, string(value), err)
	}
	return nil
}

func adjustment(ctr string, annotations map[string]string) (*api.ContainerAdjustment, error) {
	a := &api.ContainerAdjustment{}

	if v := lookup(annotations, devicesKind, ctr); len(v) > 0 {
		var devices []device
		if err := unmarshal(devicesKind, v, &devices); err != nil {
			return nil, err
		}
		for _, d := range devices {
			dev := &api.LinuxDevice{Path: d.Path, Type: d.Type, Major: d.Major, Minor: d.Minor}
			if d.FileMode != 0 {
				dev.FileMode = api.FileMode(d.FileMode)
			}
			if d.UID != 0 {
				dev.Uid = api.UInt32(d.UID)
			}
			if d.GID != 0 {
				dev.Gid = api.UInt32(d.GID)
			}
			a.AddDevice(dev)
		}
	}

	if v := lookup(annotations, cdiKind, ctr); len(v) > 0 {
		var names []string
		if err := unmarshal(cdiKind, v, &names); err != nil {
			return nil, err
		}
		for _, name := range names {
			a.AddCDIDevice(&api.CDIDevice{Name: name})
		}
	}

	if v := lookup(annotations, mountsKind, ctr); len(v) > 0 {
		var mounts []mount
		if err := unmarshal(mountsKind, v, &mounts); err != nil {
			return nil, err
		}
		for _, m := range mounts {
			a.AddMount(&api.Mount{Source: m.Source, Destination: m.Destination, Type: m.Type, Options: m.Options})
		}
	}

	if v := lookup(annotations, ioPrioKind, ctr); v != nil {
		p := &ioPrio{}
		if err := unmarshal(ioPrioKind, v, p); err != nil {
			return nil, err
		}
		var prio *api.LinuxIOPriority
		if class, ok := api.IOPrioClass_value[p.Class]; ok {
			prio = &api.LinuxIOPriority{Class: api.IOPrioClass(class), Priority: p.Priority}
		} else {
			logrus.Warnf("unknown I/O priority class %q, using IOPRIO_CLASS_BE", p.Class)
		}
		a.SetLinuxIOPriority(prio)
	}

	if v := lookup(annotations, schedKind, ctr); v != nil {
		s := &scheduler{}
		if err := unmarshal(schedKind, v, s); err != nil {
			return nil, err
		}
		sch := &api.LinuxScheduler{
			Policy:   api.LinuxSchedulerPolicy(api.LinuxSchedulerPolicy_value[s.Policy]),
			Nice:     s.Nice,
			Priority: s.Priority,
			Runtime:  s.Runtime,
			Deadline: s.Deadline,
			Period:   s.Period,
		}
		for _, f := range s.Flags {
			sch.Flags = append(sch.Flags, api.LinuxSchedulerFlag(api.LinuxSchedulerFlag_value[f]))
		}
		a.SetLinuxScheduler(sch)
	}

	if v := lookup(annotations, netDevKind, ctr); v != nil {
		var devices []*netDevice
		if err := unmarshal(netDevKind, v, &devices); err != nil {
			return nil, err
		}
		for _, d := range devices {
			a.AddLinuxNetDevice(d.HostIf, &api.LinuxNetDevice{Name: d.Name})
		}
	}

	if v := lookup(annotations, sysctlKind, ctr); v != nil {
		var sysctl map[string]string
		if err := unmarshal(sysctlKind, v, &sysctl); err != nil {
			return nil, err
		}
		for key, value := range sysctl {
			a.SetLinuxSysctl(key, value)
		}
	}

	if v := lookup(annotations, memPolicyKind, ctr); v != nil {
		p := &memoryPolicy{}
		if err := unmarshal(memPolicyKind, v, p); err != nil {
			return nil, err
		}
		mode, ok := api.MpolMode_value[p.Mode]
		if !ok {
			return nil, fmt.Errorf("invalid memory policy: %w", fmt.Errorf("invalid memory policy mode %q", p.Mode))
		}
		var flags []api.MpolFlag
		for _, f := range p.Flags {
			flag, ok := api.MpolFlag_value[f]
			if !ok {
				return nil, fmt.Errorf("invalid memory policy: %w", fmt.Errorf("invalid memory policy flag %q", f))
			}
			flags = append(flags, api.MpolFlag(flag))
		}
		a.SetLinuxMemoryPolicy(api.MpolMode(mode), p.Nodes, flags...)
	}

	return a, nil
}

type plugin struct{}

func (plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	a, err := adjustment(c.Name, pod.Annotations)
	if err != nil {
		return nil, nil, err
	}
	return a, nil, nil
}

type request struct {
	Container   string            `json:"container"`
	Annotations map[string]string `json:"annotations"`
}

type answer struct {
	Adjustment json.RawMessage `json:"adjustment,omitempty"`
	Error      string          `json:"error,omitempty"`
	Panic      string          `json:"panic,omitempty"`
}

// guarded is adjustment, with a crash reported instead of ending the oracle.
func guarded(ctr string, annotations map[string]string) (a *api.ContainerAdjustment, err error, crash string) {
	defer func() {
		if r := recover(); r != nil {
			crash = fmt.Sprint(r)
		}
	}()
	a, err = adjustment(ctr, annotations)
	return a, err, ""
}

func decode() error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return err
		}
		var ans answer
		if a, err, crash := guarded(req.Container, req.Annotations); crash != "" {
			ans.Panic = crash
		} else if err != nil {
			ans.Error = err.Error()
		} else if ans.Adjustment, err = protojson.Marshal(a); err != nil {
			return err
		}
		if len(ans.Adjustment) == 0 && ans.Error == "" && ans.Panic == "" {
			ans.Adjustment = json.RawMessage("{}")
		}
		if err := out.Encode(ans); err != nil {
			return err
		}
	}
	return in.Err()
}

func main() {
	var idx, socket string
	var verbose, oracle bool
	flag.StringVar(&idx, "idx", "", "plugin index to register to NRI")
	flag.StringVar(&socket, "socket-path", "", "path of the NRI socket file")
	flag.BoolVar(&verbose, "verbose", false, "enable (more) verbose logging")
	flag.BoolVar(&oracle, "decode", false, "decode annotations from stdin instead of running as a plugin")
	flag.Parse()

	logrus.SetOutput(os.Stderr)
	if oracle {
		if err := decode(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	var opts []stub.Option
	if idx != "" {
		opts = append(opts, stub.WithPluginIdx(idx))
	}
	if socket != "" {
		opts = append(opts, stub.WithSocketPath(socket))
	}
	s, err := stub.New(plugin{}, opts...)
	if err != nil {
		logrus.Fatalf("failed to create plugin stub: %v", err)
	}
	if err := s.Run(context.Background()); err != nil {
		logrus.Errorf("plugin exited with error %v", err)
		os.Exit(1)
	}
}
