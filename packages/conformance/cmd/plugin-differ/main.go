// Command plugin-differ is the Go differ of github.com/containerd/nri
// (plugins/differ), restated for the conformance suite. The upstream plugin
// is a separate Go module that the module proxy does not serve, and a main
// package cannot be imported, so this program does what it does, on the same
// libraries: the upstream stub (pkg/stub) once per index, r3labs/diff v3.0.2
// for the field-path changes, sters/yaml-diff v0.4.0 on sigs.k8s.io/yaml's
// YAML for -yaml, logrus, with the same messages. It takes the upstream flags
// (-indices, -verbose-level, -yaml, -log-file, -socket-path). It is a module
// of its own, as upstream's is, so that the diff libraries' requirements do
// not move the versions the other twins pin.
package main

import (
	"container/list"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/r3labs/diff/v3"
	"github.com/sirupsen/logrus"
	"github.com/sters/yaml-diff/yamldiff"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

type config struct {
	Indices      string
	LogFile      string
	SocketPath   string
	VerboseLevel int
	Yaml         bool
}

type pluginIndex struct {
	prevIndex  int
	nextIndex  int
	prevValues *list.List
}

type changedValue struct {
	podSet       bool
	pod          api.PodSandbox
	containerSet bool
	container    api.Container
}

type plugin struct {
	name string
	idx  int
}

var (
	cfg     config
	log     *logrus.Logger
	indices map[int]pluginIndex
	mu      sync.Mutex // the upstream plugin shares this state unguarded; the twin keeps it race-free
)

func (p *plugin) saveValue(pod *api.PodSandbox, container *api.Container) {
	v := &changedValue{}
	if pod != nil {
		v.podSet, v.pod = true, *pod //nolint:govet // a copy, as upstream takes it
	}
	if container != nil {
		v.containerSet, v.container = true, *container //nolint:govet
	}
	indices[p.idx].prevValues.PushBack(v)
}

func (p *plugin) differ(apifunc string, pod *api.PodSandbox, container *api.Container) {
	mu.Lock()
	defer mu.Unlock()
	if indices[p.idx].prevIndex < 0 {
		if cfg.VerboseLevel > 0 {
			if container != nil {
				p.dump(apifunc, "pod", pod, "container", container)
			} else {
				p.dump(apifunc, "pod", pod)
			}
		}
		p.saveValue(pod, container)
		return
	}
	element := indices[indices[p.idx].prevIndex].prevValues.Front()
	if element == nil {
		log.Debugf("[%d] %s: skipping nil element, plugin startup not yet finished", p.idx, apifunc)
		return
	}
	initial := element.Value.(*changedValue)
	indices[indices[p.idx].prevIndex].prevValues.Remove(element)

	if pod != nil && initial.podSet {
		if cfg.Yaml {
			p.printYamlDiff(apifunc, "pod", initial.pod, *pod) //nolint:govet
		} else {
			changelog, err := diff.Diff(initial.pod, *pod) //nolint:govet
			if err != nil {
				log.Errorf("%v", err)
				return
			}
			p.printDiff(apifunc, &changelog, "pod", initial.pod, *pod) //nolint:govet
		}
	}
	if container != nil && initial.containerSet {
		if cfg.Yaml {
			p.printYamlDiff(apifunc, "container", initial.container, *container) //nolint:govet
		} else {
			changelog, err := diff.Diff(initial.container, *container) //nolint:govet
			if err != nil {
				log.Errorf("%v", err)
				return
			}
			p.printDiff(apifunc, &changelog, "container", initial.container, *container) //nolint:govet
		}
	}
	if indices[p.idx].nextIndex > 0 {
		p.saveValue(pod, container)
	}
}

func (p *plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, containers []*api.Container) ([]*api.ContainerUpdate, error) {
	if cfg.VerboseLevel > 2 {
		p.dump("Synchronize", "pods", pods, "containers", containers)
	}
	return nil, nil
}

func (p *plugin) Shutdown(_ context.Context) { p.dump("Shutdown") }

func (p *plugin) RunPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.differ("RunPodSandbox", pod, nil)
	return nil
}

func (p *plugin) StopPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.differ("StopPodSandbox", pod, nil)
	return nil
}

func (p *plugin) RemovePodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.differ("RemovePodSandbox", pod, nil)
	return nil
}

func (p *plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	p.differ("CreateContainer", pod, c)
	return &api.ContainerAdjustment{}, nil, nil
}

func (p *plugin) PostCreateContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) error {
	p.differ("PostCreateContainer", pod, c)
	return nil
}

func (p *plugin) StartContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) error {
	p.differ("StartContainer", pod, c)
	return nil
}

func (p *plugin) PostStartContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) error {
	p.differ("PostStartContainer", pod, c)
	return nil
}

func (p *plugin) UpdateContainer(_ context.Context, pod *api.PodSandbox, c *api.Container, _ *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	p.differ("UpdateContainer", pod, c)
	return nil, nil
}

func (p *plugin) PostUpdateContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) error {
	p.differ("PostUpdateContainer", pod, c)
	return nil
}

func (p *plugin) StopContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) ([]*api.ContainerUpdate, error) {
	p.differ("StopContainer", pod, c)
	return nil, nil
}

func (p *plugin) RemoveContainer(_ context.Context, pod *api.PodSandbox, c *api.Container) error {
	p.differ("RemoveContainer", pod, c)
	return nil
}

func (p *plugin) onClose() {
	log.Infof("Connection to the runtime lost, exiting...")
	os.Exit(1)
}

func (p *plugin) dump(args ...interface{}) {
	var (
		prefix string
		idx    int
	)
	if len(args)&0x1 == 1 {
		prefix = args[0].(string)
		idx++
	}
	for ; idx < len(args)-1; idx += 2 {
		tag, obj := args[idx], args[idx+1]
		msg, err := yaml.Marshal(obj)
		if err != nil {
			log.Infof("%s: %s: failed to dump object: %v", prefix, tag, err)
			continue
		}
		if prefix != "" {
			log.Infof("%s %s: %s:", p.name, prefix, tag)
			for _, line := range strings.Split(strings.TrimSpace(string(msg)), "\n") {
				log.Infof("%s %s:    %s", p.name, prefix, line)
			}
		} else {
			log.Infof("%s %s:", p.name, tag)
			for _, line := range strings.Split(strings.TrimSpace(string(msg)), "\n") {
				log.Infof("%s  %s", p.name, line)
			}
		}
	}
}

func (p *plugin) printDiff(apifunc string, changelog *diff.Changelog, obj string, origValue interface{}, changedValue interface{}) {
	if cfg.VerboseLevel > 1 {
		log.Infof("[%d] Original values for %s", p.idx, obj)
		p.dump(apifunc, obj, origValue)
	}
	if len(*changelog) == 0 {
		log.Infof("[%d] %s: %s: %s", p.idx, apifunc, obj, "<no changes>")
		return
	}
	for _, item := range *changelog {
		log.Infof("[%d] %s: %s: %s: %v: From: %v -> To: %v", p.idx, apifunc, obj, item.Type, item.Path, item.From, item.To)
	}
	if cfg.VerboseLevel > 1 {
		log.Infof("[%d] Values after changes for %s", p.idx, obj)
		p.dump(apifunc, obj, changedValue)
	}
}

func (p *plugin) printYamlDiff(apifunc string, obj string, origValue interface{}, changedValue interface{}) {
	msg, err := yaml.Marshal(origValue)
	if err != nil {
		return
	}
	yamlOrig := yamldiff.Load(string(msg))
	msg, err = yaml.Marshal(changedValue)
	if err != nil {
		return
	}
	yamlChanged := yamldiff.Load(string(msg))
	for _, d := range yamldiff.Do(yamlOrig, yamlChanged) {
		if d.Status == yamldiff.DiffStatusSame {
			log.Infof("[%d] %s: %s: %s", p.idx, apifunc, obj, "<no changes>")
			break
		}
		log.Infof("[%d] %s: %s: %v", p.idx, apifunc, obj, d.Diff)
	}
}

func startPlugin(wg *sync.WaitGroup, pluginIdx int, socketPath string) {
	defer wg.Done()
	idxStr := fmt.Sprintf("%02d", pluginIdx)
	opts := []stub.Option{stub.WithPluginIdx(idxStr)}
	if socketPath != "" {
		opts = append(opts, stub.WithSocketPath(socketPath))
	}
	p := &plugin{name: fmt.Sprintf("[%s]", idxStr), idx: pluginIdx}
	s, err := stub.New(p, append(opts, stub.WithOnClose(p.onClose))...)
	if err != nil {
		log.Fatalf("Failed to create plugin stub: %v", err)
	}
	if err = s.Run(context.Background()); err != nil {
		log.Errorf("Plugin exited with error %v", err)
		os.Exit(1)
	}
}

func main() {
	log = logrus.StandardLogger()
	log.SetFormatter(&logrus.TextFormatter{PadLevelText: true})

	flag.StringVar(&cfg.LogFile, "log-file", "", "logfile name, if logging to a file")
	flag.IntVar(&cfg.VerboseLevel, "verbose-level", 0, "Print extra information")
	flag.StringVar(&cfg.Indices, "indices", "0,99", "Comma separated list of indices where to install the differ plugin to monitor the changes.")
	flag.BoolVar(&cfg.Yaml, "yaml", false, "Print the diff in yaml")
	flag.StringVar(&cfg.SocketPath, "socket-path", "", "path of the NRI socket file")
	flag.Parse()

	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0644)
		if err != nil {
			log.Fatalf("failed to open log file %q: %v", cfg.LogFile, err)
		}
		log.SetOutput(f)
	}
	if strings.Count(cfg.Indices, ",") == 0 {
		log.Fatalf("There must be at least two index given.")
	}

	wg := new(sync.WaitGroup)
	indices = make(map[int]pluginIndex)
	prevIndex := -1
	for _, idxStr := range strings.Split(cfg.Indices, ",") {
		idx, _ := strconv.Atoi(idxStr)
		entry := indices[idx]
		entry.prevIndex = prevIndex
		entry.prevValues = list.New()
		indices[idx] = entry
		if prevIndex >= 0 {
			if prevEntry, ok := indices[prevIndex]; ok {
				prevEntry.nextIndex = idx
				indices[prevIndex] = prevEntry
			}
		}
		prevIndex = idx
		wg.Add(1)
		go startPlugin(wg, idx, cfg.SocketPath)
	}
	entry := indices[prevIndex]
	entry.nextIndex = -1
	indices[prevIndex] = entry
	wg.Wait()
}
