// Command plugin-ulimit-adjuster is the Go ulimit-adjuster of
// github.com/containerd/nri v0.12.2 (plugins/ulimit-adjuster), restated for
// the conformance suite. The upstream plugin is a separate Go module that
// the module proxy does not serve, and a main package cannot be imported,
// so this program does what it does, on the same libraries: the upstream
// stub (pkg/stub), api.ContainerAdjustment.AddRlimit, sigs.k8s.io/yaml
// v1.3.0 (the version the upstream module pins) into the same `ulimit`
// type in package main, so that Go names it `main.ulimit` in its errors as
// upstream does, and the same error texts.
//
// As a plugin it takes the upstream flags (-name, -idx, -socket, -verbose).
// With -bench N it times its decoder instead: it reads one such request
// on stdin, parses and adjusts it N times and writes {"ns": [...]}, the
// nanoseconds of each run (for the ulimit-adjuster's bench).
//
// With -decode it is a test oracle instead: it reads JSON lines
// {"container": ..., "annotations": {...}} on stdin and writes one JSON line
// per request on stdout: {"rlimits": [{"type", "hard", "soft"}]}, limits as
// decimal text, or {"error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/containerd/log"
	"github.com/sirupsen/logrus"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

const (
	currentKey = "ulimits.noderesource.dev"
	legacyKey  = "ulimits.nri.containerd.io"
	prefix     = "RLIMIT_"
)

var resources = map[string]bool{
	"AS": true, "CORE": true, "CPU": true, "DATA": true, "FSIZE": true, "LOCKS": true,
	"MEMLOCK": true, "MSGQUEUE": true, "NICE": true, "NOFILE": true, "NPROC": true,
	"RSS": true, "RTPRIO": true, "RTTIME": true, "SIGPENDING": true, "STACK": true,
}

// ulimit has the name, fields and JSON tags of the upstream type.
type ulimit struct {
	Type string `json:"type"`
	Hard uint64 `json:"hard"`
	Soft uint64 `json:"soft"`
}

func parse(ctx context.Context, container string, annotations map[string]string) ([]ulimit, error) {
	keys := []string{currentKey + "/container." + container, legacyKey + "/container." + container}
	value := ""
	for _, k := range keys {
		if v, found := annotations[k]; found {
			value = v
			break
		}
	}
	if value == "" {
		log.G(ctx).Debugf("no annotations found with keys %v", keys)
		return nil, nil
	}
	limits := make([]ulimit, 0)
	if err := yaml.Unmarshal([]byte(value), &limits); err != nil {
		return nil, err
	}
	for i, l := range limits {
		name := strings.TrimPrefix(strings.ToUpper(l.Type), prefix)
		if !resources[name] {
			return nil, fmt.Errorf("failed to parse type: %q", l.Type)
		}
		limits[i].Type = prefix + name
	}
	return limits, nil
}

func adjust(ctx context.Context, limits []ulimit) (*api.ContainerAdjustment, error) {
	adjustment := &api.ContainerAdjustment{}
	for _, l := range limits {
		if l.Hard < l.Soft {
			return nil, fmt.Errorf("ulimit %q must have hard limit >= soft limit", l.Type)
		}
		log.G(ctx).WithField("type", l.Type).WithField("hard", l.Hard).WithField("soft", l.Soft).Debug("adjust rlimit")
		adjustment.AddRlimit(l.Type, l.Hard, l.Soft)
	}
	return adjustment, nil
}

type plugin struct{}

func (plugin) CreateContainer(ctx context.Context, pod *api.PodSandbox, c *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	limits, err := parse(ctx, c.Name, pod.Annotations)
	if err != nil {
		return nil, nil, err
	}
	adjustment, err := adjust(ctx, limits)
	if err != nil {
		return nil, nil, err
	}
	return adjustment, nil, nil
}

type request struct {
	Container   string            `json:"container"`
	Annotations map[string]string `json:"annotations"`
}

// rlimit is an adjusted rlimit with its limits as decimal text, which
// JavaScript reads without losing digits above 2^53.
type rlimit struct {
	Type string `json:"type"`
	Hard string `json:"hard"`
	Soft string `json:"soft"`
}

type answer struct {
	Rlimits []rlimit `json:"rlimits"`
	Error   string   `json:"error,omitempty"`
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
		var a answer
		limits, err := parse(context.Background(), req.Container, req.Annotations)
		var adjustment *api.ContainerAdjustment
		if err == nil {
			adjustment, err = adjust(context.Background(), limits)
		}
		if err != nil {
			a.Error = err.Error()
		} else {
			a.Rlimits = []rlimit{}
			for _, r := range adjustment.GetRlimits() {
				a.Rlimits = append(a.Rlimits, rlimit{r.Type, fmt.Sprint(r.Hard), fmt.Sprint(r.Soft)})
			}
		}
		if err := out.Encode(a); err != nil {
			return err
		}
	}
	return in.Err()
}

// bench times parse and adjust of one request, runs times.
func bench(runs int) error {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		return err
	}
	times := make([]int64, 0, runs)
	for i := 0; i < runs; i++ {
		start := time.Now()
		limits, err := parse(context.Background(), req.Container, req.Annotations)
		if err == nil {
			_, err = adjust(context.Background(), limits)
		}
		if err != nil {
			return err
		}
		times = append(times, time.Since(start).Nanoseconds())
	}
	return json.NewEncoder(os.Stdout).Encode(map[string][]int64{"ns": times})
}

func main() {
	var name, idx, socket string
	var verbose, oracle bool
	var runs int
	flag.StringVar(&name, "name", "", "plugin name to register to NRI")
	flag.StringVar(&idx, "idx", "", "plugin index to register to NRI")
	flag.StringVar(&socket, "socket", "", "path to the plugin socket")
	flag.BoolVar(&verbose, "verbose", false, "enable (more) verbose logging")
	flag.BoolVar(&oracle, "decode", false, "decode annotations from stdin instead of running as a plugin")
	flag.IntVar(&runs, "bench", 0, "time the decoding of one annotation from stdin this many times")
	flag.Parse()

	if runs > 0 {
		if err := bench(runs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	if oracle {
		if err := decode(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	l := logrus.StandardLogger()
	l.SetFormatter(&logrus.TextFormatter{PadLevelText: true})
	if verbose {
		l.SetLevel(logrus.DebugLevel)
	}
	var opts []stub.Option
	if name != "" {
		opts = append(opts, stub.WithPluginName(name))
	}
	if idx != "" {
		opts = append(opts, stub.WithPluginIdx(idx))
	}
	if socket != "" {
		opts = append(opts, stub.WithSocketPath(socket))
	}
	s, err := stub.New(plugin{}, opts...)
	if err != nil {
		l.Fatalf("failed to create plugin stub: %v", err)
	}
	if err := s.Run(context.Background()); err != nil {
		l.Errorf("plugin exited with error %v", err)
		os.Exit(1)
	}
}
