// Command sim-plugin is a small NRI plugin built on the upstream Go stub
// (github.com/containerd/nri/pkg/stub), for the nri-sim conformance test: the
// same plugin runs under nri-sim and under the Go adaptation, and the test
// compares what the two runtimes merge from it.
//
// It is meant to be launched by a runtime (fd 3, NRI_PLUGIN_NAME and
// NRI_PLUGIN_IDX); its configuration, one word, picks its role:
//
//	alpha  adds annotations, env, a mount, an rlimit, a memory limit and CPU
//	       shares to each new container; while creating "app" it updates the
//	       container named "side"; it sets the CPU quota and period of a
//	       container being updated, and updates "side" when one stops
//	beta   takes over alpha's owner annotation and GREETING variable
//	       (removal, then its own value), removes alpha's mount, and sets a
//	       memory reservation, a hugepage limit, a unified key and a sysctl;
//	       it lowers the memory limit of a container being updated
//	gamma  sets CPU shares too, which conflicts with alpha
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

const (
	mib        = 1 << 20
	ownerKey   = "sim.nri-ts/owner"
	greeting   = "GREETING"
	alphaMount = "/var/alpha"
)

type plugin struct {
	role string
	mu   sync.Mutex
	ids  map[string]string // container name -> id, as seen in CreateContainer
}

func (p *plugin) Configure(_ context.Context, config, _, _ string) (api.EventMask, error) {
	p.role = strings.TrimSpace(config)
	switch p.role {
	case "alpha", "beta", "gamma":
		return 0, nil
	}
	return 0, fmt.Errorf("unknown role %q", p.role)
}

func (p *plugin) CreateContainer(_ context.Context, _ *api.PodSandbox, c *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	p.mu.Lock()
	p.ids[c.GetName()] = c.GetId()
	side, haveSide := p.ids["side"]
	p.mu.Unlock()

	adjust := &api.ContainerAdjustment{}
	var updates []*api.ContainerUpdate
	switch p.role {
	case "alpha":
		adjust.AddAnnotation(ownerKey, "alpha")
		adjust.AddAnnotation("sim.nri-ts/alpha", c.GetName())
		adjust.AddEnv(greeting, "from-alpha")
		adjust.AddEnv("ALPHA", "1")
		adjust.AddMount(&api.Mount{Destination: alphaMount, Source: "/srv/alpha", Type: "bind", Options: []string{"rbind", "ro"}})
		adjust.AddRlimit("RLIMIT_NOFILE", 4096, 1024)
		adjust.SetLinuxMemoryLimit(512 * mib)
		adjust.SetLinuxCPUShares(256)
		if c.GetName() == "app" && haveSide {
			u := &api.ContainerUpdate{}
			u.SetContainerId(side)
			u.SetLinuxCPUShares(128)
			u.AddLinuxHugepageLimit("2MB", 0)
			updates = append(updates, u)
		}
	case "beta":
		adjust.RemoveAnnotation(ownerKey)
		adjust.AddAnnotation(ownerKey, "beta")
		adjust.RemoveEnv(greeting)
		adjust.AddEnv(greeting, "from-beta")
		adjust.RemoveMount(alphaMount)
		adjust.SetLinuxMemoryReservation(128 * mib)
		adjust.AddLinuxHugepageLimit("2MB", 64*mib)
		adjust.AddLinuxUnified("memory.high", "400000000")
		adjust.SetLinuxSysctl("net.core.somaxconn", "1024")
	case "gamma":
		adjust.SetLinuxCPUShares(512)
	}
	return adjust, updates, nil
}

func (p *plugin) UpdateContainer(_ context.Context, _ *api.PodSandbox, c *api.Container, _ *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	u := &api.ContainerUpdate{}
	u.SetContainerId(c.GetId())
	switch p.role {
	case "alpha":
		u.SetLinuxCPUQuota(50000)
		u.SetLinuxCPUPeriod(100000)
	case "beta":
		u.SetLinuxMemoryLimit(384 * mib)
	default:
		return nil, nil
	}
	return []*api.ContainerUpdate{u}, nil
}

func (p *plugin) StopContainer(_ context.Context, _ *api.PodSandbox, c *api.Container) ([]*api.ContainerUpdate, error) {
	p.mu.Lock()
	side, haveSide := p.ids["side"]
	p.mu.Unlock()
	if p.role != "alpha" || !haveSide || c.GetName() == "side" {
		return nil, nil
	}
	u := &api.ContainerUpdate{IgnoreFailure: true}
	u.SetContainerId(side)
	u.SetLinuxMemoryLimit(1024 * mib)
	return []*api.ContainerUpdate{u}, nil
}

func main() {
	p := &plugin{ids: map[string]string{}}
	s, err := stub.New(p, stub.WithOnClose(func() { os.Exit(1) }))
	if err != nil {
		fmt.Fprintf(os.Stderr, "sim-plugin: %v\n", err)
		os.Exit(1)
	}
	if err := s.Run(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "sim-plugin: %v\n", err)
		os.Exit(1)
	}
}
