// Command plugin-network-device-injector is the Go network-device-injector
// of github.com/containerd/nri (plugins/network-device-injector, the same
// from v0.12.2 to v0.12.5), restated for the conformance suite. The upstream
// plugin is a separate Go module that the module proxy does not serve, and
// a main package cannot be imported, so this program does what it does, on
// the same libraries at the versions its go.mod pins: the upstream stub
// (pkg/stub), sigs.k8s.io/yaml v1.4.0 into the same type in package main (so
// that Go names it `main.netdevice` in its errors), and netlink
// (github.com/vishvananda/netlink v1.2.1-beta.2) with the namespace helpers
// of github.com/containernetworking/plugins v1.4.1 to move the links.
//
// As a plugin it takes the upstream flags (-idx, -socket, -verbose). With
// -decode it is a test oracle instead: it reads JSON lines {"annotations":
// {...}} on stdin and writes one JSON line per request, {"devices": [...]}
// (the parsed devices, as the plugin goes on with them, numbers as decimal
// strings) or {"error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

const (
	netdeviceKey    = "netdevice.noderesource.dev"
	oldNetdeviceKey = "netdevices.nri.containerd.io"
)

var (
	log     *logrus.Logger
	verbose bool
)

// netdevice is one entry of the annotation, with the upstream JSON tags.
type netdevice struct {
	Name    string `json:"name"`
	NewName string `json:"new_name"`
	Address string `json:"address"`
	Prefix  int    `json:"prefix"`
	MTU     int    `json:"mtu"`
}

// parseNetdevices reads the first annotation present among the four keys.
// As upstream, the defaults it works out (new_name, prefix) are set on a
// copy of each entry and so never reach the plugin, and only the address
// is checked.
func parseNetdevices(annotations map[string]string) ([]netdevice, error) {
	var (
		key   string
		value []byte
		devs  []netdevice
	)
	for _, key = range []string{netdeviceKey + "/pod", oldNetdeviceKey + "/pod", netdeviceKey, oldNetdeviceKey} {
		if v, ok := annotations[key]; ok {
			value = []byte(v)
			break
		}
	}
	if value == nil {
		return nil, nil
	}
	if err := yaml.Unmarshal(value, &devs); err != nil {
		return nil, fmt.Errorf("invalid device annotation %q: %w", key, err)
	}
	for _, d := range devs {
		if d.NewName == "" {
			d.NewName = d.Name
		}
		if d.Address != "" {
			ip := net.ParseIP(d.Address)
			if ip == nil {
				return nil, fmt.Errorf("error parsing address %s", d.Address)
			}
			if d.Prefix == 0 {
				if ip.To4() == nil {
					d.Prefix = 128
				} else {
					d.Prefix = 32
				}
			}
		}
	}
	return devs, nil
}

func networkNamespace(pod *api.PodSandbox) string {
	for _, namespace := range pod.Linux.GetNamespaces() {
		if namespace.Type == "network" {
			return namespace.Path
		}
	}
	return ""
}

// dump is the upstream helper with its check for a prefix (`len(args) == 1`),
// which makes the plugin's calls log their event name and the word "pod".
func dump(args ...interface{}) {
	var prefix string
	idx := 0
	if len(args) == 1 {
		prefix = args[0].(string)
		idx++
	}
	for ; idx < len(args)-1; idx += 2 {
		tag, obj := args[idx], args[idx+1]
		out, err := yaml.Marshal(obj)
		if err != nil {
			log.Infof("%s: %s: failed to dump object: %v", prefix, tag, err)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if prefix != "" {
			log.Infof("%s: %s:", prefix, tag)
			for _, line := range lines {
				log.Infof("%s:    %s", prefix, line)
			}
		} else {
			log.Infof("%s:", tag)
			for _, line := range lines {
				log.Infof("  %s", line)
			}
		}
	}
}

type plugin struct{}

func (p *plugin) RunPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	log.WithField("namespace", pod.GetNamespace()).WithField("name", pod.GetName).Debug("Started pod...")
	if verbose {
		dump("RunPodSandbox", "pod", pod)
	}
	devs, err := parseNetdevices(pod.Annotations)
	if err != nil {
		return err
	}
	if len(devs) == 0 {
		return nil
	}
	nsPath := networkNamespace(pod)
	if nsPath == "" {
		// As upstream: the method value pod.GetName (an address), not the name.
		log.WithField("namespace", pod.GetNamespace()).WithField("name", pod.GetName).Info("Pod using host namespace, skipping ...")
		return fmt.Errorf("trying to inject network device on host network Pod")
	}
	// As upstream: the first device that fails ends the loop, and the pod goes on.
	for _, d := range devs {
		if err := injectLink(nsPath, d.Name, d.NewName); err != nil {
			return nil
		}
	}
	return nil
}

func (p *plugin) StopPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	log.WithField("namespace", pod.GetNamespace()).WithField("name", pod.GetName).Debug("Stopped pod...")
	if verbose {
		dump("StopPodSandbox", "pod", pod)
	}
	devs, err := parseNetdevices(pod.Annotations)
	if err != nil {
		return err
	}
	if len(devs) == 0 {
		return nil
	}
	nsPath := networkNamespace(pod)
	if nsPath == "" {
		return nil
	}
	for _, d := range devs {
		if err := releaseLink(nsPath, d.NewName); err != nil {
			return nil
		}
	}
	return nil
}

func decode() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			Annotations map[string]string `json:"annotations"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		answer := map[string]interface{}{}
		devs, err := parseNetdevices(req.Annotations)
		if err != nil {
			answer["error"] = err.Error()
		} else {
			// Numbers as decimal strings: a Go int does not fit a JavaScript number.
			out := []map[string]string{}
			for _, d := range devs {
				out = append(out, map[string]string{
					"name": d.Name, "new_name": d.NewName, "address": d.Address,
					"prefix": strconv.Itoa(d.Prefix), "mtu": strconv.Itoa(d.MTU),
				})
			}
			answer["devices"] = out
		}
		if err := out.Encode(answer); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func main() {
	var idx, socketPath string
	var decodeOnly bool

	log = logrus.StandardLogger()
	log.SetFormatter(&logrus.TextFormatter{PadLevelText: true})

	flag.StringVar(&idx, "idx", "", "plugin index to register to NRI")
	flag.StringVar(&socketPath, "socket", "", "path to NRI socket")
	flag.BoolVar(&verbose, "verbose", false, "enable (more) verbose logging")
	flag.BoolVar(&decodeOnly, "decode", false, "read annotations on stdin, write the parsed devices (test oracle)")
	flag.Parse()

	if decodeOnly {
		decode()
		return
	}

	var opts []stub.Option
	if idx != "" {
		opts = append(opts, stub.WithPluginIdx(idx))
	}
	if socketPath != "" {
		opts = append(opts, stub.WithSocketPath(socketPath))
	}
	s, err := stub.New(&plugin{}, opts...)
	if err != nil {
		log.Fatalf("failed to create plugin stub: %v", err)
	}
	if err := s.Run(context.Background()); err != nil {
		log.Errorf("plugin exited with error %v", err)
		os.Exit(1)
	}
}
