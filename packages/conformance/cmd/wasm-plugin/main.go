//go:build wasip1

// Command wasm-plugin is an NRI plugin compiled to WebAssembly on upstream's
// pkg/api (its go-plugin bindings), for the WASM conformance tests of
// @nri-ts/adaptation: the Go adaptation and ours host the same module from
// their plugin directory and must give the same results.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o wasm-plugin.wasm ./cmd/wasm-plugin
//
// A WASM plugin gets no arguments and no environment, so its configuration
// (the plugin's conf.d file, JSON) says what it does:
//
//	{"name": "adjuster", "role": "adjust"}             adjusts every container it creates
//	{"name": "failer", "role": "fail", "when": "web"}  refuses to create container "web"
//	{"name": "trapper", "role": "trap", "when": "web"} panics creating "web" (the module traps)
//	{"name": "hang", "role": "spin", "when": "web"}    never returns from creating "web"
//	{"name": "quitter", "role": "exit", "when": "web"} exits (WASI proc_exit 3) creating "web"
//	{"name": "bystander", "role": "pass"}             only logs what it sees
//
// Everything it does, it tells the host through the Log host function, each
// message starting with "wasm-plugin <name>: ".
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

// A c-shared WASM module runs its init functions and waits for calls.
func main() {}

func init() {
	api.RegisterPlugin(&plugin{})
}

type config struct {
	Name string `json:"name"`
	Role string `json:"role"`
	When string `json:"when"`
}

type plugin struct {
	cfg config
}

// spun keeps the spinning loop from being optimized away.
var spun int

func (p *plugin) log(ctx context.Context, level api.LogRequest_Level, format string, args ...any) {
	msg := "wasm-plugin " + p.cfg.Name + ": " + fmt.Sprintf(format, args...)
	_, _ = api.NewHostFunctions().Log(ctx, &api.LogRequest{Msg: msg, Level: level})
}

func (p *plugin) Configure(ctx context.Context, req *api.ConfigureRequest) (*api.ConfigureResponse, error) {
	if err := json.Unmarshal([]byte(req.Config), &p.cfg); err != nil {
		return nil, fmt.Errorf("invalid configuration %q: %w", req.Config, err)
	}
	p.log(ctx, api.LogRequest_LEVEL_INFO, "Configure by %s %s as %s", req.RuntimeName, req.RuntimeVersion, p.cfg.Role)
	events, err := api.ParseEventMask("RunPodSandbox,CreateContainer,StartContainer,UpdateContainer,StopContainer,RemoveContainer")
	if err != nil {
		return nil, err
	}
	return &api.ConfigureResponse{Events: int32(events)}, nil
}

func (p *plugin) Synchronize(ctx context.Context, req *api.SynchronizeRequest) (*api.SynchronizeResponse, error) {
	p.log(ctx, api.LogRequest_LEVEL_DEBUG, "Synchronize with %d pods and %d containers", len(req.Pods), len(req.Containers))
	return &api.SynchronizeResponse{}, nil
}

func (p *plugin) Shutdown(context.Context, *api.Empty) (*api.Empty, error) {
	return &api.Empty{}, nil
}

func (p *plugin) RunPodSandbox(ctx context.Context, req *api.RunPodSandboxRequest) (*api.RunPodSandboxResponse, error) {
	p.log(ctx, api.LogRequest_LEVEL_INFO, "RunPodSandbox %s", req.Pod.GetName())
	return &api.RunPodSandboxResponse{}, nil
}

func (p *plugin) UpdatePodSandbox(context.Context, *api.UpdatePodSandboxRequest) (*api.UpdatePodSandboxResponse, error) {
	return &api.UpdatePodSandboxResponse{}, nil
}

func (p *plugin) PostUpdatePodSandbox(context.Context, *api.PostUpdatePodSandboxRequest) (*api.PostUpdatePodSandboxResponse, error) {
	return &api.PostUpdatePodSandboxResponse{}, nil
}

func (p *plugin) StopPodSandbox(context.Context, *api.StopPodSandboxRequest) (*api.StopPodSandboxResponse, error) {
	return &api.StopPodSandboxResponse{}, nil
}

func (p *plugin) RemovePodSandbox(context.Context, *api.RemovePodSandboxRequest) (*api.RemovePodSandboxResponse, error) {
	return &api.RemovePodSandboxResponse{}, nil
}

func envNames(env []string) string {
	names := make([]string, 0, len(env))
	for _, kv := range env {
		names = append(names, strings.SplitN(kv, "=", 2)[0])
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

func (p *plugin) CreateContainer(ctx context.Context, req *api.CreateContainerRequest) (*api.CreateContainerResponse, error) {
	ctr := req.GetContainer()
	p.log(ctx, api.LogRequest_LEVEL_INFO, "CreateContainer %s seeing env %s", ctr.GetName(), envNames(ctr.GetEnv()))
	triggered := p.cfg.When != "" && ctr.GetName() == p.cfg.When
	switch {
	case p.cfg.Role == "adjust":
		adjust := &api.ContainerAdjustment{}
		adjust.AddAnnotation("wasm.nri-ts.dev/"+p.cfg.Name, "adjusted")
		adjust.AddEnv("WASM_"+strings.ToUpper(p.cfg.Name), envNames(ctr.GetEnv()))
		adjust.SetLinuxMemoryLimit(256 << 20)
		return &api.CreateContainerResponse{Adjust: adjust}, nil
	case triggered && p.cfg.Role == "fail":
		p.log(ctx, api.LogRequest_LEVEL_WARN, "refusing %s", ctr.GetName())
		return nil, fmt.Errorf("wasm-plugin %s refuses container %s", p.cfg.Name, ctr.GetName())
	case triggered && p.cfg.Role == "trap":
		p.log(ctx, api.LogRequest_LEVEL_ERROR, "crashing on %s", ctr.GetName())
		var nowhere map[string]string
		nowhere[ctr.GetName()] = "boom"
	case triggered && p.cfg.Role == "spin":
		for {
			spun++
		}
	case triggered && p.cfg.Role == "exit":
		os.Exit(3)
	}
	return &api.CreateContainerResponse{}, nil
}

func (p *plugin) PostCreateContainer(context.Context, *api.PostCreateContainerRequest) (*api.PostCreateContainerResponse, error) {
	return &api.PostCreateContainerResponse{}, nil
}

func (p *plugin) StartContainer(ctx context.Context, req *api.StartContainerRequest) (*api.StartContainerResponse, error) {
	p.log(ctx, api.LogRequest_LEVEL_INFO, "StartContainer %s", req.Container.GetName())
	return &api.StartContainerResponse{}, nil
}

func (p *plugin) PostStartContainer(context.Context, *api.PostStartContainerRequest) (*api.PostStartContainerResponse, error) {
	return &api.PostStartContainerResponse{}, nil
}

func (p *plugin) UpdateContainer(ctx context.Context, req *api.UpdateContainerRequest) (*api.UpdateContainerResponse, error) {
	ctr := req.GetContainer()
	p.log(ctx, api.LogRequest_LEVEL_INFO, "UpdateContainer %s", ctr.GetName())
	if p.cfg.Role != "adjust" {
		return &api.UpdateContainerResponse{}, nil
	}
	update := &api.ContainerUpdate{}
	update.SetContainerId(ctr.GetId())
	update.SetLinuxCPUShares(2048)
	return &api.UpdateContainerResponse{Update: []*api.ContainerUpdate{update}}, nil
}

func (p *plugin) PostUpdateContainer(context.Context, *api.PostUpdateContainerRequest) (*api.PostUpdateContainerResponse, error) {
	return &api.PostUpdateContainerResponse{}, nil
}

func (p *plugin) StopContainer(ctx context.Context, req *api.StopContainerRequest) (*api.StopContainerResponse, error) {
	ctr := req.GetContainer()
	p.log(ctx, api.LogRequest_LEVEL_INFO, "StopContainer %s exit code %d reason %s", ctr.GetName(), ctr.GetExitCode(), ctr.GetStatusReason())
	return &api.StopContainerResponse{}, nil
}

func (p *plugin) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	p.log(ctx, api.LogRequest_LEVEL_INFO, "RemoveContainer %s", req.Container.GetName())
	return &api.RemoveContainerResponse{}, nil
}

func (p *plugin) StateChange(context.Context, *api.StateChangeEvent) (*api.Empty, error) {
	return &api.Empty{}, nil
}

func (p *plugin) ValidateContainerAdjustment(context.Context, *api.ValidateContainerAdjustmentRequest) (*api.ValidateContainerAdjustmentResponse, error) {
	return &api.ValidateContainerAdjustmentResponse{}, nil
}
