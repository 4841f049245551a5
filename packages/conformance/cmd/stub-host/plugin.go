package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
)

// goPlugin is the reference plugin: built on the Go stub, with every handler,
// doing what its flags say. The TypeScript fixture plugin
// (fixtures/stub/plugin.ts) takes the same flags and behaves the same, so
// that a test can run one scenario against both and compare what the
// runtime sees.
//
//	stub-host plugin [-socket PATH] [-idx NN] [-name NAME] [-events LIST]
//	                 [-create noop|annotate|fail|hang] [-reject REASON]
//	                 [-policy none|fail|keep|fail,keep]
//
// -events narrows the subscription (default: every handler). -create says
// what CreateContainer does: nothing, add the annotation
// "nri-ts/seen-by: <name>", fail with "create failed on purpose", or answer
// only 500 ms after the request's deadline. -reject makes
// ValidateContainerAdjustment reject with that reason. -policy sends a
// FailurePolicy (none: an empty one) with WithFailurePolicy. When the runtime goes
// away the plugin exits with status 1, as the upstream sample plugins do.
type goPlugin struct {
	name   string
	events api.EventMask
	create string
	reject string
}

func runPlugin(args []string) {
	flags := flag.NewFlagSet("stub-host plugin", flag.ExitOnError)
	socket := flags.String("socket", "", "the runtime's socket")
	idx := flags.String("idx", "", "plugin index")
	name := flags.String("name", "", "plugin name")
	events := flags.String("events", "", "events to subscribe to")
	create := flags.String("create", "noop", "noop, annotate, fail or hang")
	reject := flags.String("reject", "", "reject container adjustments with this reason")
	policy := flags.String("policy", "", "failure policy: none, fail, keep or fail,keep")
	_ = flags.Parse(args)

	p := &goPlugin{create: *create, reject: *reject}
	if *events != "" {
		mask, err := api.ParseEventMask(*events)
		if err != nil {
			fail(err)
		}
		p.events = mask
	}

	opts := []stub.Option{stub.WithOnClose(func() { os.Exit(1) })}
	if *socket != "" {
		opts = append(opts, stub.WithSocketPath(*socket))
	}
	if *idx != "" {
		opts = append(opts, stub.WithPluginIdx(*idx))
	}
	if *name != "" {
		opts = append(opts, stub.WithPluginName(*name))
	}
	if *policy != "" {
		opt, err := failurePolicyOption(*policy)
		if err != nil {
			fail(err)
		}
		opts = append(opts, opt)
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		fail(err)
	}
	p.name = os.Getenv(api.PluginNameEnvVar)
	if *name != "" {
		p.name = *name
	}
	if err := s.Run(context.Background()); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "stub-host plugin: %v\n", err)
	os.Exit(1)
}

func (p *goPlugin) Configure(_ context.Context, _, _, _ string) (api.EventMask, error) {
	return p.events, nil
}

func (p *goPlugin) Synchronize(context.Context, []*api.PodSandbox, []*api.Container) ([]*api.ContainerUpdate, error) {
	return nil, nil
}

func (p *goPlugin) CreateContainer(ctx context.Context, _ *api.PodSandbox, _ *api.Container) (*api.ContainerAdjustment, []*api.ContainerUpdate, error) {
	switch p.create {
	case "annotate":
		adjust := &api.ContainerAdjustment{}
		adjust.AddAnnotation("nri-ts/seen-by", p.name)
		return adjust, nil, nil
	case "fail":
		return nil, nil, errors.New("create failed on purpose")
	case "hang":
		<-ctx.Done()
		time.Sleep(500 * time.Millisecond)
	}
	return nil, nil, nil
}

func (p *goPlugin) ValidateContainerAdjustment(context.Context, *api.ValidateContainerAdjustmentRequest) error {
	if p.reject != "" {
		return errors.New(p.reject)
	}
	return nil
}

func (p *goPlugin) RunPodSandbox(context.Context, *api.PodSandbox) error        { return nil }
func (p *goPlugin) StopPodSandbox(context.Context, *api.PodSandbox) error       { return nil }
func (p *goPlugin) RemovePodSandbox(context.Context, *api.PodSandbox) error     { return nil }
func (p *goPlugin) PostUpdatePodSandbox(context.Context, *api.PodSandbox) error { return nil }
func (p *goPlugin) UpdatePodSandbox(context.Context, *api.PodSandbox, *api.LinuxResources, *api.LinuxResources) error {
	return nil
}
func (p *goPlugin) PostCreateContainer(context.Context, *api.PodSandbox, *api.Container) error {
	return nil
}
func (p *goPlugin) StartContainer(context.Context, *api.PodSandbox, *api.Container) error { return nil }
func (p *goPlugin) PostStartContainer(context.Context, *api.PodSandbox, *api.Container) error {
	return nil
}
func (p *goPlugin) UpdateContainer(context.Context, *api.PodSandbox, *api.Container, *api.LinuxResources) ([]*api.ContainerUpdate, error) {
	return nil, nil
}
func (p *goPlugin) PostUpdateContainer(context.Context, *api.PodSandbox, *api.Container) error {
	return nil
}
func (p *goPlugin) StopContainer(context.Context, *api.PodSandbox, *api.Container) ([]*api.ContainerUpdate, error) {
	return nil, nil
}
func (p *goPlugin) RemoveContainer(context.Context, *api.PodSandbox, *api.Container) error {
	return nil
}
