package main

import (
	"context"
	"encoding/json"

	"github.com/containerd/nri/pkg/adaptation"
	"google.golang.org/protobuf/proto"
)

type relayFn func(context.Context, *adaptation.Adaptation, json.RawMessage) (any, error)

// notify relays a request whose only answer is an error.
func notify[T proto.Message](newReq func() T, call func(*adaptation.Adaptation, context.Context, T) error) relayFn {
	return func(ctx context.Context, a *adaptation.Adaptation, raw json.RawMessage) (any, error) {
		req := newReq()
		if err := unmarshal(raw, req); err != nil {
			return nil, err
		}
		return nil, call(a, ctx, req)
	}
}

// request relays a request with a response message.
func request[T, R proto.Message](newReq func() T, call func(*adaptation.Adaptation, context.Context, T) (R, error)) relayFn {
	return func(ctx context.Context, a *adaptation.Adaptation, raw json.RawMessage) (any, error) {
		req := newReq()
		if err := unmarshal(raw, req); err != nil {
			return nil, err
		}
		rpl, err := call(a, ctx, req)
		if err != nil {
			return nil, err
		}
		return toJSON(rpl), nil
	}
}

// relays are the lifecycle requests a runtime sends to its plugins, by event name.
var relays = map[string]relayFn{
	"RunPodSandbox": notify(func() *adaptation.RunPodSandboxRequest { return &adaptation.RunPodSandboxRequest{} },
		(*adaptation.Adaptation).RunPodSandbox),
	"UpdatePodSandbox": request(func() *adaptation.UpdatePodSandboxRequest { return &adaptation.UpdatePodSandboxRequest{} },
		(*adaptation.Adaptation).UpdatePodSandbox),
	"PostUpdatePodSandbox": notify(func() *adaptation.PostUpdatePodSandboxRequest { return &adaptation.PostUpdatePodSandboxRequest{} },
		(*adaptation.Adaptation).PostUpdatePodSandbox),
	"StopPodSandbox": notify(func() *adaptation.StopPodSandboxRequest { return &adaptation.StopPodSandboxRequest{} },
		(*adaptation.Adaptation).StopPodSandbox),
	"RemovePodSandbox": notify(func() *adaptation.RemovePodSandboxRequest { return &adaptation.RemovePodSandboxRequest{} },
		(*adaptation.Adaptation).RemovePodSandbox),
	"CreateContainer": request(func() *adaptation.CreateContainerRequest { return &adaptation.CreateContainerRequest{} },
		(*adaptation.Adaptation).CreateContainer),
	"PostCreateContainer": notify(func() *adaptation.PostCreateContainerRequest { return &adaptation.PostCreateContainerRequest{} },
		(*adaptation.Adaptation).PostCreateContainer),
	"StartContainer": notify(func() *adaptation.StartContainerRequest { return &adaptation.StartContainerRequest{} },
		(*adaptation.Adaptation).StartContainer),
	"PostStartContainer": notify(func() *adaptation.PostStartContainerRequest { return &adaptation.PostStartContainerRequest{} },
		(*adaptation.Adaptation).PostStartContainer),
	"UpdateContainer": request(func() *adaptation.UpdateContainerRequest { return &adaptation.UpdateContainerRequest{} },
		(*adaptation.Adaptation).UpdateContainer),
	"PostUpdateContainer": notify(func() *adaptation.PostUpdateContainerRequest { return &adaptation.PostUpdateContainerRequest{} },
		(*adaptation.Adaptation).PostUpdateContainer),
	"StopContainer": request(func() *adaptation.StopContainerRequest { return &adaptation.StopContainerRequest{} },
		(*adaptation.Adaptation).StopContainer),
	"RemoveContainer": notify(func() *adaptation.RemoveContainerRequest { return &adaptation.RemoveContainerRequest{} },
		(*adaptation.Adaptation).RemoveContainer),
}
