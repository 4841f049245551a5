package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/containerd/nri/pkg/api"
)

// Synchronize remembers the containers (for the updater) and logs them.
func (p *plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	ids := make([]string, 0, len(ctrs))
	for _, c := range ctrs {
		ids = append(ids, c.GetId())
	}
	sort.Strings(ids)
	p.mu.Lock()
	p.known = append(p.known, ids...)
	p.mu.Unlock()
	p.event("Synchronize", map[string]any{"pods": len(pods), "containers": ids})
	if !p.modes["updater"] || len(ids) == 0 {
		return nil, nil
	}
	u := &api.ContainerUpdate{}
	u.SetContainerId(ids[0])
	u.SetLinuxCPUShares(100)
	return []*api.ContainerUpdate{u}, nil
}

func (p *plugin) Shutdown(context.Context) {
	p.event("Shutdown", nil)
}

func (p *plugin) RunPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.event("RunPodSandbox", podFields(pod))
	return nil
}

func (p *plugin) UpdatePodSandbox(_ context.Context, pod *api.PodSandbox, _, _ *api.LinuxResources) error {
	p.event("UpdatePodSandbox", podFields(pod))
	return nil
}

func (p *plugin) PostUpdatePodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.event("PostUpdatePodSandbox", podFields(pod))
	return nil
}

func (p *plugin) StopPodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.event("StopPodSandbox", podFields(pod))
	return nil
}

func (p *plugin) RemovePodSandbox(_ context.Context, pod *api.PodSandbox) error {
	p.event("RemovePodSandbox", podFields(pod))
	return nil
}

func (p *plugin) CreateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	p.event("CreateContainer", containerFields(pod, ctr))
	adjust := &api.ContainerAdjustment{}
	if p.modes["device-injector"] {
		if err := injectDevices(pod, ctr, adjust); err != nil {
			return nil, nil, err
		}
	}
	if p.modes["ulimit-adjuster"] {
		if err := adjustUlimits(pod, ctr, adjust); err != nil {
			return nil, nil, err
		}
	}
	if p.modes["annotator"] {
		adjust.AddAnnotation("annotator."+p.name, "done")
		adjust.AddEnv("ANNOTATED_BY_"+p.name, p.idx)
		if p.take {
			adjust.RemoveAnnotation("shared")
		}
		if p.shared {
			adjust.AddAnnotation("shared", p.name)
		}
		if ctr.GetName() == "forbidden" {
			adjust.AddAnnotation("forbidden", "yes")
		}
	}
	var updates []*api.ContainerUpdate
	if p.modes["updater"] {
		updates = p.updateOthers(ctr.GetId(), 200)
		p.mu.Lock()
		p.known = append(p.known, ctr.GetId())
		p.mu.Unlock()
	}
	return adjust, updates, nil
}

// updateOthers asks for new CPU shares of every known container but one.
func (p *plugin) updateOthers(except string, shares uint64) []*api.ContainerUpdate {
	p.mu.Lock()
	defer p.mu.Unlock()
	var updates []*api.ContainerUpdate
	for _, id := range p.known {
		if id == except {
			continue
		}
		u := &api.ContainerUpdate{}
		u.SetContainerId(id)
		u.SetLinuxCPUShares(shares)
		updates = append(updates, u)
	}
	return updates
}

func (p *plugin) PostCreateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event("PostCreateContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) StartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event("StartContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) PostStartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event("PostStartContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) UpdateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container, res *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	p.event("UpdateContainer", containerFields(pod, ctr))
	if !p.modes["updater"] {
		return nil, nil
	}
	u := &api.ContainerUpdate{}
	u.SetContainerId(ctr.GetId())
	u.SetLinuxMemoryLimit(1 << 30)
	if res.GetCpu().GetShares() != nil {
		u.SetLinuxCPUShares(res.GetCpu().GetShares().GetValue() * 2)
	}
	return []*api.ContainerUpdate{u}, nil
}

func (p *plugin) PostUpdateContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event("PostUpdateContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) StopContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) ([]*api.ContainerUpdate, error) {
	p.event("StopContainer", containerFields(pod, ctr))
	if !p.modes["updater"] {
		return nil, nil
	}
	return p.updateOthers(ctr.GetId(), 300), nil
}

func (p *plugin) RemoveContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event("RemoveContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) ValidateContainerAdjustment(_ context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	plugins := make([]string, 0, len(req.GetPlugins()))
	for _, pi := range req.GetPlugins() {
		plugins = append(plugins, pi.GetIndex()+"-"+pi.GetName())
	}
	p.event("ValidateContainerAdjustment", map[string]any{"container": req.GetContainer().GetId(), "plugins": plugins})
	if !p.modes["validator"] {
		return nil
	}
	if _, ok := req.GetAdjust().GetAnnotations()["forbidden"]; ok {
		return fmt.Errorf("annotation %q is not allowed", "forbidden")
	}
	return nil
}
