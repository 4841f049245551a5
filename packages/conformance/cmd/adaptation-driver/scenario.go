package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/containerd/nri/pkg/adaptation"
	validator "github.com/containerd/nri/plugins/default-validator/builtin"
	"google.golang.org/protobuf/proto"
)

// A scenario, as the tests write it:
//
//	{"pods": [b64 PodSandbox...], "containers": [b64 Container...],
//	 "defaultValidator": {"enable": true, ...},
//	 "steps": [{"op": "CreateContainer", "request": b64 CreateContainerRequest}, ...]}
//
// An op is the name of an Adaptation method; the request is its request message.
type scenarioFile struct {
	Pods             []string        `json:"pods"`
	Containers       []string        `json:"containers"`
	DefaultValidator json.RawMessage `json:"defaultValidator"`
	Steps            []step          `json:"steps"`
}

type step struct {
	Op      string `json:"op"`
	Request string `json:"request"`
}

type scenario struct {
	pods             []*adaptation.PodSandbox
	containers       []*adaptation.Container
	defaultValidator *validator.DefaultValidatorConfig
	steps            []step
}

func (s *step) decode(m proto.Message) {
	b, err := base64.StdEncoding.DecodeString(s.Request)
	if err != nil {
		fail("step %s: %v", s.Op, err)
	}
	if err := proto.Unmarshal(b, m); err != nil {
		fail("step %s: %v", s.Op, err)
	}
}

func loadScenario(path string) (*scenario, error) {
	sc := &scenario{}
	if path == "" {
		return sc, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f scenarioFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("invalid scenario %s: %w", path, err)
	}
	for _, p := range f.Pods {
		pod := &adaptation.PodSandbox{}
		(&step{Op: "pod", Request: p}).decode(pod)
		sc.pods = append(sc.pods, pod)
	}
	for _, c := range f.Containers {
		ctr := &adaptation.Container{}
		(&step{Op: "container", Request: c}).decode(ctr)
		sc.containers = append(sc.containers, ctr)
	}
	if len(f.DefaultValidator) > 0 {
		if sc.defaultValidator, err = defaultValidatorFromJSON(f.DefaultValidator); err != nil {
			return nil, err
		}
	}
	sc.steps = f.Steps
	return sc, nil
}

// generateState makes n containers in n/10 pods (at least one) for synchronization.
func generateState(n int) ([]*adaptation.PodSandbox, []*adaptation.Container) {
	podCount := max(1, n/10)
	pods := make([]*adaptation.PodSandbox, 0, podCount)
	for i := range podCount {
		id := "pod" + strconv.Itoa(i)
		pods = append(pods, &adaptation.PodSandbox{Id: id, Name: id, Uid: "uid-" + id, Namespace: "default"})
	}
	ctrs := make([]*adaptation.Container, 0, n)
	for i := range n {
		id := "ctr" + strconv.Itoa(i)
		pod := pods[i%podCount].Id
		ctrs = append(ctrs, &adaptation.Container{
			Id:           id,
			PodSandboxId: pod,
			Name:         id,
			State:        adaptation.ContainerState_CONTAINER_RUNNING,
			Labels:       map[string]string{"app": "bench", "index": strconv.Itoa(i)},
			Annotations:  map[string]string{"bench.example.com/container": id},
			Args:         []string{"/bin/sleep", "infinity"},
			Env:          []string{"PATH=/usr/bin:/bin", "INDEX=" + strconv.Itoa(i)},
			CreatedAt:    1_700_000_000_000_000_000 + int64(i),
			StartedAt:    1_700_000_001_000_000_000 + int64(i),
		})
	}
	return pods, ctrs
}

// runStep sends one request and reports the answer.
func runStep(r *adaptation.Adaptation, s step) map[string]any {
	ctx := context.Background()
	result := map[string]any{"event": "result", "op": s.Op}
	var err error
	switch s.Op {
	case "RunPodSandbox":
		req := &adaptation.RunPodSandboxRequest{}
		s.decode(req)
		err = r.RunPodSandbox(ctx, req)
	case "UpdatePodSandbox":
		req := &adaptation.UpdatePodSandboxRequest{}
		s.decode(req)
		var rpl *adaptation.UpdatePodSandboxResponse
		rpl, err = r.UpdatePodSandbox(ctx, req)
		if rpl != nil {
			result["response"] = encode(rpl)
		}
	case "PostUpdatePodSandbox":
		req := &adaptation.PostUpdatePodSandboxRequest{}
		s.decode(req)
		err = r.PostUpdatePodSandbox(ctx, req)
	case "StopPodSandbox":
		req := &adaptation.StopPodSandboxRequest{}
		s.decode(req)
		err = r.StopPodSandbox(ctx, req)
	case "RemovePodSandbox":
		req := &adaptation.RemovePodSandboxRequest{}
		s.decode(req)
		err = r.RemovePodSandbox(ctx, req)
	case "CreateContainer":
		req := &adaptation.CreateContainerRequest{}
		s.decode(req)
		var rpl *adaptation.CreateContainerResponse
		rpl, err = r.CreateContainer(ctx, req)
		if rpl != nil {
			result["response"] = encode(rpl)
		}
		result["request"] = encode(req)
	case "PostCreateContainer":
		req := &adaptation.PostCreateContainerRequest{}
		s.decode(req)
		err = r.PostCreateContainer(ctx, req)
	case "StartContainer":
		req := &adaptation.StartContainerRequest{}
		s.decode(req)
		err = r.StartContainer(ctx, req)
	case "PostStartContainer":
		req := &adaptation.PostStartContainerRequest{}
		s.decode(req)
		err = r.PostStartContainer(ctx, req)
	case "UpdateContainer":
		req := &adaptation.UpdateContainerRequest{}
		s.decode(req)
		var rpl *adaptation.UpdateContainerResponse
		rpl, err = r.UpdateContainer(ctx, req)
		if rpl != nil {
			// the entry of the requested container may be nil, which does not marshal
			updates := make([]any, 0, len(rpl.Update))
			for _, u := range rpl.Update {
				if u == nil {
					updates = append(updates, nil)
				} else {
					updates = append(updates, encode(u))
				}
			}
			result["updates"] = updates
		}
	case "PostUpdateContainer":
		req := &adaptation.PostUpdateContainerRequest{}
		s.decode(req)
		err = r.PostUpdateContainer(ctx, req)
	case "StopContainer":
		req := &adaptation.StopContainerRequest{}
		s.decode(req)
		var rpl *adaptation.StopContainerResponse
		rpl, err = r.StopContainer(ctx, req)
		if rpl != nil {
			result["response"] = encode(rpl)
		}
	case "RemoveContainer":
		req := &adaptation.RemoveContainerRequest{}
		s.decode(req)
		err = r.RemoveContainer(ctx, req)
	default:
		fail("unknown op %q", s.Op)
	}
	result["error"] = errText(err)
	return result
}
