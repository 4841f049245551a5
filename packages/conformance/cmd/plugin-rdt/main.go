// Command plugin-rdt is the Go rdt plugin of github.com/containerd/nri
// (plugins/rdt), restated for the conformance suite. The upstream plugin is
// a separate Go module that the module proxy does not serve, and a main
// package cannot be imported, so this program does what it does, on the
// same libraries: the upstream stub (pkg/stub), the api's SetLinuxRDT*
// setters, strconv.ParseBool, logrus. As a plugin it takes the upstream
// flags (-idx, -verbose).
//
// With -decode it is a test oracle instead: it reads JSON lines
// {"container": ..., "annotations": {...}} on stdin and writes one JSON line
// per request: {"rdt": <api.LinuxRdt in protojson, or null>} or
// {"error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/containerd/log"
	"github.com/sirupsen/logrus"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

type plugin struct {
	l *logrus.Logger
}

func (p *plugin) CreateContainer(ctx context.Context, pod *api.PodSandbox, container *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	l := logrus.NewEntry(p.l)
	if pod != nil {
		l = l.WithFields(logrus.Fields{"namespace": pod.Namespace, "pod": pod.Name})
	}
	if container != nil {
		l = l.WithField("container", container.Name)
	}
	ctx = log.WithLogger(ctx, l)
	log.G(ctx).Debug("Create container")

	adjustment := &api.ContainerAdjustment{}
	if err := adjustRdt(ctx, adjustment, container.Name, pod.Annotations); err != nil {
		return nil, nil, err
	}
	return adjustment, nil, nil
}

func adjustRdt(ctx context.Context, adjustment *api.ContainerAdjustment, container string, annotations map[string]string) error {
	suffix := ".rdt.noderesource.dev/container." + container
	for k, v := range annotations {
		if !strings.HasSuffix(k, suffix) {
			continue
		}
		switch field := strings.TrimSuffix(k, suffix); field {
		case "closid":
			log.G(ctx).WithField("closid", v).Info("Adjust closid")
			adjustment.SetLinuxRDTClosID(v)
		case "schemata":
			schemata := strings.Split(v, ",")
			log.G(ctx).WithField("schemata", schemata).Info("Adjust schemata")
			adjustment.SetLinuxRDTSchemata(schemata)
		case "enablemonitoring":
			enable, err := strconv.ParseBool(v)
			if err != nil {
				return err
			}
			log.G(ctx).WithField("enablemonitoring", enable).Info("Adjust enablemonitoring")
			adjustment.SetLinuxRDTEnableMonitoring(enable)
		default:
			log.G(ctx).WithField("field_name", field).Info("Unknown rdt field")
		}
	}
	return nil
}

type request struct {
	Container   string            `json:"container"`
	Annotations map[string]string `json:"annotations"`
}

type answer struct {
	Rdt   json.RawMessage `json:"rdt,omitempty"`
	Error string          `json:"error,omitempty"`
}

func decode(p *plugin) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return err
		}
		var a answer
		pod := &api.PodSandbox{Name: "p", Annotations: req.Annotations}
		adjust, _, err := p.CreateContainer(context.Background(), pod, &api.Container{Name: req.Container})
		switch {
		case err != nil:
			a.Error = err.Error()
		case adjust.GetLinux().GetRdt() == nil:
			a.Rdt = json.RawMessage("null")
		default:
			if a.Rdt, err = protojson.Marshal(adjust.Linux.Rdt); err != nil {
				return err
			}
		}
		if err := out.Encode(a); err != nil {
			return err
		}
	}
	return in.Err()
}

func main() {
	l := logrus.StandardLogger()
	l.SetFormatter(&logrus.TextFormatter{PadLevelText: true})

	pluginIdx := flag.String("idx", "", "plugin index to register to NRI")
	verbose := flag.Bool("verbose", false, "enable verbose logging")
	oracle := flag.Bool("decode", false, "answer requests from stdin instead of running as a plugin")
	flag.Parse()

	if *oracle {
		l.SetOutput(io.Discard)
		if err := decode(&plugin{l: l}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}

	l.WithField("verbose", *verbose).Info("Starting plugin")
	if *verbose {
		l.SetLevel(logrus.DebugLevel)
	}
	opts := []stub.Option{}
	if *pluginIdx != "" {
		opts = append(opts, stub.WithPluginIdx(*pluginIdx))
	}
	s, err := stub.New(&plugin{l: l}, opts...)
	if err != nil {
		l.Fatalf("Failed to create plugin stub: %v", err)
	}
	if err := s.Run(context.Background()); err != nil {
		l.Errorf("Plugin exited with error %v", err)
		os.Exit(1)
	}
}
