package main

import (
	"context"
	"fmt"
	"sort"

	"github.com/containerd/nri/pkg/api"
)

// Synchronize remembers the containers (for the updater) and logs them.
func (p *plugin) Synchronize(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	ids := make([]string, 0, len(ctrs))
	for _, c := range ctrs {
		ids = append(ids, c.GetId())
	}
	sort.Strings(ids)
	p.mu.Lock()
	p.known = append(p.known, ids...)
	p.mu.Unlock()
	p.event(ctx, "Synchronize", map[string]any{"pods": len(pods), "containers": ids})
	if !p.modes["updater"] || len(ids) == 0 {
		return nil, nil
	}
	u := &api.ContainerUpdate{}
	u.SetContainerId(ids[0])
	u.SetLinuxCPUShares(100)
	return []*api.ContainerUpdate{u}, nil
}

func (p *plugin) Shutdown(ctx context.Context) {
	p.event(ctx, "Shutdown", nil)
}

func (p *plugin) RunPodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	p.event(ctx, "RunPodSandbox", podFields(pod))
	return nil
}

func (p *plugin) UpdatePodSandbox(ctx context.Context, pod *api.PodSandbox, _, _ *api.LinuxResources) error {
	p.event(ctx, "UpdatePodSandbox", podFields(pod))
	return nil
}

func (p *plugin) PostUpdatePodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	p.event(ctx, "PostUpdatePodSandbox", podFields(pod))
	return nil
}

func (p *plugin) StopPodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	p.event(ctx, "StopPodSandbox", podFields(pod))
	return nil
}

func (p *plugin) RemovePodSandbox(ctx context.Context, pod *api.PodSandbox) error {
	p.event(ctx, "RemovePodSandbox", podFields(pod))
	return nil
}

func (p *plugin) CreateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	p.event(ctx, "CreateContainer", containerFields(pod, ctr))
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

func (p *plugin) PostCreateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event(ctx, "PostCreateContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) StartContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event(ctx, "StartContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) PostStartContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event(ctx, "PostStartContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) UpdateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container, res *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	p.event(ctx, "UpdateContainer", containerFields(pod, ctr))
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

func (p *plugin) PostUpdateContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event(ctx, "PostUpdateContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) StopContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) ([]*api.ContainerUpdate, error) {
	p.event(ctx, "StopContainer", containerFields(pod, ctr))
	if !p.modes["updater"] {
		return nil, nil
	}
	return p.updateOthers(ctr.GetId(), 300), nil
}

func (p *plugin) RemoveContainer(ctx context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.event(ctx, "RemoveContainer", containerFields(pod, ctr))
	return nil
}

func (p *plugin) ValidateContainerAdjustment(ctx context.Context, req *api.ValidateContainerAdjustmentRequest) error {
	plugins := make([]string, 0, len(req.GetPlugins()))
	for _, pi := range req.GetPlugins() {
		plugins = append(plugins, pi.GetIndex()+"-"+pi.GetName())
	}
	p.event(ctx, "ValidateContainerAdjustment", map[string]any{"container": req.GetContainer().GetId(), "plugins": plugins})
	if !p.modes["validator"] {
		return nil
	}
	if _, ok := req.GetAdjust().GetAnnotations()["forbidden"]; ok {
		return fmt.Errorf("annotation %q is not allowed", "forbidden")
	}
	return nil
}
