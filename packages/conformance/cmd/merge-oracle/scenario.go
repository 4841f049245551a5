package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	nri "github.com/containerd/nri/pkg/adaptation"
	"github.com/containerd/nri/pkg/adaptation/builtin"
	"github.com/containerd/nri/pkg/api"
	validator "github.com/containerd/nri/plugins/default-validator"
	yaml "go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/proto"
)

// A scenario line. Messages travel as base64 protobuf.
//
//	{"kind": "create" | "update" | "stop",
//	 "request": b64 CreateContainerRequest | UpdateContainerRequest | StopContainerRequest,
//	 "plugins": [{"index": "10", "name": "p1",
//	              "response": b64 response of the kind (absent or null: not subscribed),
//	              "reject": "reason" (absent: not a validator)}, ...],
//	 "defaultValidator": {"enable": true, ...} (the builtin default validator's
//	                     configuration under its YAML keys; absent: none),
//	 "capture": true (add the validator 99-capture, which records the
//	                  validation request and accepts),
//	 "repeat": N (run the request N times in the same adaptation; default 1)}
type scenarioLine struct {
	Kind             string          `json:"kind"`
	Request          string          `json:"request"`
	Plugins          []pluginLine    `json:"plugins"`
	DefaultValidator json.RawMessage `json:"defaultValidator"`
	Capture          bool            `json:"capture"`
	Repeat           int             `json:"repeat"`
}

type pluginLine struct {
	Index    string  `json:"index"`
	Name     string  `json:"name"`
	Response *string `json:"response"`
	Reject   *string `json:"reject"`
}

// An outcome of one run. Messages are marshalled deterministically (map
// entries sorted by key), so that runs that decided alike compare equal.
type outcome struct {
	// Error is the text of the error the adaptation returned.
	Error string `json:"error,omitempty"`
	// Response is the merged reply (absent on error).
	Response *string `json:"response,omitempty"`
	// NullUpdates are the positions of nil entries in an UpdateContainer
	// reply's updates; they are marshalled as empty messages.
	NullUpdates []int `json:"nullUpdates,omitempty"`
	// Request is the runtime's request after the run, as the plugins left it.
	Request string `json:"request"`
	// Seen is the request as each called plugin got it, in call order.
	Seen []seen `json:"seen"`
	// Validation is the request 99-capture got (with "capture" only).
	Validation *string `json:"validation,omitempty"`
}

type seen struct {
	Plugin  string `json:"plugin"`
	Request string `json:"request"`
}

type scenario struct {
	kind      string
	request   []byte
	plugins   []plugin
	validator *validator.DefaultValidatorConfig
	capture   bool
	repeat    int
}

type plugin struct {
	index, name string
	response    []byte // nil: not subscribed to the scenario's request
	reject      *string
}

func decodeBase64(what, text string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

func parseScenario(line []byte) (*scenario, error) {
	var l scenarioLine
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, fmt.Errorf("invalid scenario: %w", err)
	}
	switch l.Kind {
	case "create", "update", "stop":
	default:
		return nil, fmt.Errorf("invalid scenario kind %q (create, update or stop)", l.Kind)
	}
	sc := &scenario{kind: l.Kind, capture: l.Capture, repeat: max(l.Repeat, 1)}
	var err error
	if sc.request, err = decodeBase64("request", l.Request); err != nil {
		return nil, err
	}
	if err := proto.Unmarshal(sc.request, sc.newRequest()); err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	for _, p := range l.Plugins {
		pl := plugin{index: p.Index, name: p.Name, reject: p.Reject}
		if p.Response != nil {
			what := "response of " + p.Index + "-" + p.Name
			if pl.response, err = decodeBase64(what, *p.Response); err != nil {
				return nil, err
			}
			if err := proto.Unmarshal(pl.response, sc.newResponse()); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
		}
		sc.plugins = append(sc.plugins, pl)
	}
	if len(l.DefaultValidator) > 0 {
		// JSON is YAML: read the configuration the way a runtime reads its own.
		sc.validator = &validator.DefaultValidatorConfig{}
		if err := yaml.Unmarshal(l.DefaultValidator, sc.validator); err != nil {
			return nil, fmt.Errorf("defaultValidator: %w", err)
		}
	}
	return sc, nil
}

func (sc *scenario) newRequest() proto.Message {
	switch sc.kind {
	case "update":
		return &api.UpdateContainerRequest{}
	case "stop":
		return &api.StopContainerRequest{}
	}
	return &api.CreateContainerRequest{}
}

func (sc *scenario) newResponse() proto.Message {
	switch sc.kind {
	case "update":
		return &api.UpdateContainerResponse{}
	case "stop":
		return &api.StopContainerResponse{}
	}
	return &api.CreateContainerResponse{}
}

// recorder collects what the plugins of one run got; nil records nothing.
type recorder struct {
	seen       []seen
	validation proto.Message
}

func (r *recorder) saw(plugin string, req proto.Message) {
	if r != nil {
		r.seen = append(r.seen, seen{plugin, encode(req)})
	}
}

func (r *recorder) validated(req *api.ValidateContainerAdjustmentRequest) {
	if r != nil {
		r.validation = proto.Clone(req)
	}
}

// answer is a plugin's handler for requests of type Req: it records the
// request and answers a fresh copy of the plugin's response (the adaptation
// deletes removal markers from a response's maps while merging it).
func answer[Req, Rsp proto.Message](p plugin, rec *recorder, fresh func() Rsp) func(context.Context, Req) (Rsp, error) {
	return func(_ context.Context, req Req) (Rsp, error) {
		rec.saw(p.index+"-"+p.name, req)
		rsp := fresh()
		return rsp, proto.Unmarshal(p.response, rsp)
	}
}

func (sc *scenario) builtinPlugin(p plugin, rec *recorder) *builtin.BuiltinPlugin {
	h := builtin.BuiltinHandlers{}
	if p.response != nil {
		switch sc.kind {
		case "create":
			h.CreateContainer = answer[*api.CreateContainerRequest](p, rec, func() *api.CreateContainerResponse { return &api.CreateContainerResponse{} })
		case "update":
			h.UpdateContainer = answer[*api.UpdateContainerRequest](p, rec, func() *api.UpdateContainerResponse { return &api.UpdateContainerResponse{} })
		case "stop":
			h.StopContainer = answer[*api.StopContainerRequest](p, rec, func() *api.StopContainerResponse { return &api.StopContainerResponse{} })
		}
	}
	if p.reject != nil {
		reason := *p.reject
		h.ValidateContainerAdjustment = func(context.Context, *api.ValidateContainerAdjustmentRequest) error {
			return fmt.Errorf("%s", reason)
		}
	}
	return &builtin.BuiltinPlugin{Base: p.name, Index: p.index, Handlers: h}
}

// startAdaptation starts a Go adaptation that hosts the scenario's plugins
// (and the default validator and 99-capture, if asked for) and nothing else.
func (sc *scenario) startAdaptation(emptyDir string, rec *recorder) (*nri.Adaptation, error) {
	plugins := make([]*builtin.BuiltinPlugin, 0, len(sc.plugins)+1)
	for _, p := range sc.plugins {
		plugins = append(plugins, sc.builtinPlugin(p, rec))
	}
	if sc.capture {
		plugins = append(plugins, &builtin.BuiltinPlugin{Base: "capture", Index: "99", Handlers: builtin.BuiltinHandlers{
			ValidateContainerAdjustment: func(_ context.Context, req *api.ValidateContainerAdjustmentRequest) error {
				rec.validated(req)
				return nil
			},
		}})
	}
	opts := []nri.Option{
		nri.WithPluginPath(emptyDir),
		nri.WithPluginConfigPath(emptyDir),
		nri.WithDisabledExternalConnections(),
		nri.WithBuiltinPlugins(plugins...),
	}
	if sc.validator != nil {
		opts = append(opts, nri.WithDefaultValidator(sc.validator))
	}
	noContainers := func(ctx context.Context, cb nri.SyncCB) error {
		_, err := cb(ctx, nil, nil)
		return err
	}
	noUpdates := func(context.Context, []*api.ContainerUpdate) ([]*api.ContainerUpdate, error) { return nil, nil }
	a, err := nri.New("merge-oracle", "v0.0.0", noContainers, noUpdates, opts...)
	if err != nil {
		return nil, err
	}
	if err := a.Start(); err != nil {
		return nil, err
	}
	return a, nil
}

// call sends a fresh copy of the scenario's request to the adaptation and
// returns the request (as the plugins left it) and the reply.
func (sc *scenario) call(ctx context.Context, a *nri.Adaptation) (req, rsp proto.Message, nulls []int, err error) {
	req = sc.newRequest()
	if err := proto.Unmarshal(sc.request, req); err != nil {
		return req, nil, nil, err
	}
	switch r := req.(type) {
	case *api.CreateContainerRequest:
		var x *api.CreateContainerResponse
		if x, err = a.CreateContainer(ctx, r); x != nil {
			rsp = x
		}
	case *api.UpdateContainerRequest:
		var x *api.UpdateContainerResponse
		if x, err = a.UpdateContainer(ctx, r); x != nil {
			for i, u := range x.Update {
				if u == nil {
					nulls = append(nulls, i)
				}
			}
			rsp = x
		}
	case *api.StopContainerRequest:
		var x *api.StopContainerResponse
		if x, err = a.StopContainer(ctx, r); x != nil {
			rsp = x
		}
	}
	return req, rsp, nulls, err
}

func encode(m proto.Message) string {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return "unmarshallable: " + err.Error()
	}
	return base64.StdEncoding.EncodeToString(b)
}

// runScenario runs the scenario's request `repeat` times and answers its
// distinct outcomes in the order they first happened, and how many runs
// ended in each. Go iterates maps in random order, so one scenario may have
// several.
func runScenario(sc *scenario, emptyDir string) any {
	rec := &recorder{}
	a, err := sc.startAdaptation(emptyDir, rec)
	if err != nil {
		return map[string]string{"fatal": err.Error()}
	}
	defer a.Stop()

	var (
		outcomes []outcome
		runs     []int
		known    = map[string]int{}
	)
	for range sc.repeat {
		*rec = recorder{seen: []seen{}}
		req, rsp, nulls, err := sc.call(context.Background(), a)
		o := outcome{Request: encode(req), Seen: rec.seen, NullUpdates: nulls}
		if err != nil {
			o.Error = err.Error()
		}
		if rsp != nil {
			b := encode(rsp)
			o.Response = &b
		}
		if rec.validation != nil {
			b := encode(rec.validation)
			o.Validation = &b
		}
		key, _ := json.Marshal(o)
		if i, ok := known[string(key)]; ok {
			runs[i]++
		} else {
			known[string(key)] = len(outcomes)
			outcomes = append(outcomes, o)
			runs = append(runs, 1)
		}
	}
	return map[string]any{"outcomes": outcomes, "runs": runs}
}
