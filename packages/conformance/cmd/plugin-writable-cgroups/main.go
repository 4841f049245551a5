// Command plugin-writable-cgroups is the Go writable-cgroups plugin of
// github.com/containerd/nri (plugins/writable-cgroups), restated for the
// conformance suite. The upstream plugin is a separate Go module that the
// module proxy does not serve, and a main package cannot be imported, so
// this program does what it does, on the same libraries: the upstream stub
// (pkg/stub), pkg/plugin.GetEffectiveAnnotation, the api's AddMount and
// RemoveMount, github.com/moby/sys/mountinfo v0.7.2 (the version the
// upstream module pins), logrus. As a plugin it takes the upstream flags
// (-idx, -socket-path, -host-mount-file, -verbose).
//
// With -decode it is a test oracle instead: it reads JSON lines on stdin and
// writes one JSON line per request. {"mountFile": path} is answered with
// {"nsdelegate": bool} or {"error": "..."} (the start-up check);
// {"pod": ..., "container": ..., "hostNsDelegate": bool} (pod and container
// in protojson) with {"adjustment": <protojson, or null>} or {"error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/moby/sys/mountinfo"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/containerd/nri/pkg/api"
	nriplugin "github.com/containerd/nri/pkg/plugin"
	"github.com/containerd/nri/pkg/stub"
)

const (
	writableCgroupsAnnotation = "writable-cgroups.noderesource.dev"
	cgroupsMount              = "/sys/fs/cgroup"
)

var log *logrus.Logger

type plugin struct {
	hostNsDelegate bool
}

func (p *plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, container *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	if pod == nil || container == nil {
		return nil, nil, nil
	}
	l := log.WithFields(logrus.Fields{"container": container.Name, "pod": pod.Name, "namespace": pod.Namespace})
	l.Debug("Started CreateContainer")

	if !isWritableCgroupsEnabled(pod, container, l) {
		return nil, nil, nil
	}
	if !p.hostNsDelegate {
		l.Warn("cgroup mount on host does not have 'nsdelegate' option; ignoring request to make cgroups writable")
		return nil, nil, nil
	}
	oldMount := findCgroupsMount(container.Mounts)
	if oldMount == nil {
		err := fmt.Errorf("no %s mount found to modify, this is unexpected", cgroupsMount)
		l.WithError(err).Error("failed to find cgroup mount")
		return nil, nil, err
	}
	newMount, changed := createReadWriteMount(oldMount)
	if !changed {
		l.Debug("cgroup mount is already read-write")
		return nil, nil, nil
	}
	adjust := &api.ContainerAdjustment{}
	adjust.AddMount(newMount)
	adjust.RemoveMount(oldMount.Destination)
	l.Info("Successfully adjusted mounts for writable cgroups")
	return adjust, nil, nil
}

func checkHostNsDelegate(mountFilePath string) (bool, error) {
	f, err := os.Open(mountFilePath)
	if err != nil {
		return false, fmt.Errorf("failed to open mount file %q: %w", mountFilePath, err)
	}
	defer f.Close()

	filter := func(info *mountinfo.Info) (skip, stop bool) {
		if info.FSType != "cgroup2" {
			return true, false
		}
		if info.Mountpoint != "/sys/fs/cgroup" && info.Mountpoint != "/sys/fs/cgroup/unified" {
			return true, false
		}
		return false, true
	}
	mounts, err := mountinfo.GetMountsFromReader(f, filter)
	if err != nil {
		return false, fmt.Errorf("error scanning mount file: %w", err)
	}
	if len(mounts) == 0 {
		return false, nil
	}
	return slices.Contains(strings.Split(mounts[0].VFSOptions, ","), "nsdelegate"), nil
}

func isWritableCgroupsEnabled(pod *api.PodSandbox, container *api.Container, l *logrus.Entry) bool {
	val, ok := nriplugin.GetEffectiveAnnotation(pod, writableCgroupsAnnotation, container.Name)
	if ok {
		l.WithFields(logrus.Fields{"annotation": writableCgroupsAnnotation, "value": val}).Debug("Found effective annotation")
		return val == "true"
	}
	l.WithField("annotation", writableCgroupsAnnotation).Debug("Annotation not found")
	return false
}

func findCgroupsMount(mounts []*api.Mount) *api.Mount {
	for _, m := range mounts {
		if m.Destination == cgroupsMount {
			return m
		}
	}
	return nil
}

func createReadWriteMount(oldMount *api.Mount) (*api.Mount, bool) {
	newOptions := make([]string, 0, len(oldMount.Options))
	hasRW, changed := false, false
	for _, opt := range oldMount.Options {
		switch opt {
		case "rw":
			hasRW = true
			newOptions = append(newOptions, opt)
		case "ro":
			changed = true
		default:
			newOptions = append(newOptions, opt)
		}
	}
	if !hasRW {
		newOptions = append(newOptions, "rw")
		changed = true
	}
	if !changed {
		return oldMount, false
	}
	return &api.Mount{Destination: oldMount.Destination, Type: oldMount.Type, Source: oldMount.Source, Options: newOptions}, true
}

type request struct {
	MountFile      *string         `json:"mountFile"`
	Pod            json.RawMessage `json:"pod"`
	Container      json.RawMessage `json:"container"`
	HostNsDelegate bool            `json:"hostNsDelegate"`
}

type answer struct {
	NsDelegate *bool           `json:"nsdelegate,omitempty"`
	Adjustment json.RawMessage `json:"adjustment,omitempty"`
	Error      string          `json:"error,omitempty"`
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
		if req.MountFile != nil {
			if ok, err := checkHostNsDelegate(*req.MountFile); err != nil {
				a.Error = err.Error()
			} else {
				a.NsDelegate = &ok
			}
		} else {
			pod, container := &api.PodSandbox{}, &api.Container{}
			if err := protojson.Unmarshal(req.Pod, pod); err != nil {
				return err
			}
			if err := protojson.Unmarshal(req.Container, container); err != nil {
				return err
			}
			adjust, _, err := (&plugin{hostNsDelegate: req.HostNsDelegate}).CreateContainer(context.Background(), pod, container)
			switch {
			case err != nil:
				a.Error = err.Error()
			case adjust == nil:
				a.Adjustment = json.RawMessage("null")
			default:
				if a.Adjustment, err = protojson.Marshal(adjust); err != nil {
					return err
				}
			}
		}
		if err := out.Encode(a); err != nil {
			return err
		}
	}
	return in.Err()
}

func main() {
	var pluginIdx, socketPath, hostMountFile string
	var verbose, oracle bool

	log = logrus.StandardLogger()
	log.SetFormatter(&logrus.TextFormatter{PadLevelText: true})

	flag.StringVar(&pluginIdx, "idx", "", "plugin index to register to NRI")
	flag.StringVar(&socketPath, "socket-path", "", "path of the NRI socket file")
	flag.StringVar(&hostMountFile, "host-mount-file", "/host/proc/1/mountinfo", "path to the host mountinfo file to check for nsdelegate")
	flag.BoolVar(&verbose, "verbose", false, "enable (more) verbose logging")
	flag.BoolVar(&oracle, "decode", false, "answer requests from stdin instead of running as a plugin")
	flag.Parse()

	if oracle {
		log.SetOutput(io.Discard)
		if err := decode(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	var opts []stub.Option
	if pluginIdx != "" {
		opts = append(opts, stub.WithPluginIdx(pluginIdx))
	}
	if socketPath != "" {
		opts = append(opts, stub.WithSocketPath(socketPath))
	}
	if verbose {
		log.SetLevel(logrus.DebugLevel)
	}

	nsDelegate, err := checkHostNsDelegate(hostMountFile)
	if err != nil {
		log.WithError(err).Warnf("Failed to check for nsdelegate option on host cgroup mount, disabling writable cgroups")
		nsDelegate = false
	} else if !nsDelegate {
		log.Warn("Host cgroup mount does not have 'nsdelegate' option, disabling writable cgroups")
	} else {
		log.Info("Host cgroup mount has 'nsdelegate' option, enabling writable cgroups support")
	}

	s, err := stub.New(&plugin{hostNsDelegate: nsDelegate}, opts...)
	if err != nil {
		log.Fatalf("failed to create plugin stub: %v", err)
	}
	if err = s.Run(context.Background()); err != nil {
		log.Errorf("plugin exited with error %v", err)
		os.Exit(1)
	}
}
