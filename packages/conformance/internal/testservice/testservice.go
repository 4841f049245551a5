// Package testservice is the ttrpc test service the Go peers (cmd/ttrpc-peer,
// cmd/mux-peer) serve. The TypeScript side implements the same contract
// (src/test-service.ts), so every test can run against either server. Its
// messages are ttrpc's own KeyValue and StringList, which @nri-ts/ttrpc
// generates too.
package testservice

import (
	"context"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Name is the service's name on the wire.
const Name = "nrits.conformance.Test"

// BarrierSize is how many Echo calls with key "barrier" wait for each other.
const BarrierSize = 64

// Event is what Sleep reports as it starts and ends.
type Event = map[string]any

// New describes the service:
//
//	Echo(KeyValue) KeyValue                  the request; key "barrier" first waits until 64 such calls are in flight
//	Generate(KeyValue) KeyValue              value = "x" * key
//	Fail(KeyValue) KeyValue                  status code = key, message = value; code 0 succeeds
//	Deadline(KeyValue) KeyValue              key "none", or key "set" and value = nanoseconds left
//	Metadata(KeyValue) StringList            "key=value" per received pair, sorted by key
//	Sleep(KeyValue) KeyValue                 waits key ms, or fails with the context's error; reports
//	                                         {"event":"sleeping"} when it starts and
//	                                         {"event":"slept","error":E} when it ends
//	Collect(stream KeyValue) StringList      the keys received
//	Spread(KeyValue) stream KeyValue         key times {key: i, value}; value "fail" ends with Aborted
//	Chat(stream KeyValue) stream KeyValue    echoes every message
//
// report receives Sleep's events; it may be nil.
func New(report func(Event)) *ttrpc.ServiceDesc {
	if report == nil {
		report = func(Event) {}
	}
	var gate barrier
	return &ttrpc.ServiceDesc{
		Methods: map[string]ttrpc.Method{
			"Echo": unary(func(ctx context.Context, req *ttrpc.KeyValue) (any, error) {
				if req.Key == "barrier" {
					if err := gate.wait(ctx); err != nil {
						return nil, err
					}
				}
				return req, nil
			}),
			"Generate": unary(func(_ context.Context, req *ttrpc.KeyValue) (any, error) {
				n, err := strconv.Atoi(req.Key)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "bad size %q", req.Key)
				}
				return &ttrpc.KeyValue{Value: strings.Repeat("x", n)}, nil
			}),
			"Fail": unary(func(_ context.Context, req *ttrpc.KeyValue) (any, error) {
				code, err := strconv.Atoi(req.Key)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "bad code %q", req.Key)
				}
				if code == 0 {
					return &ttrpc.KeyValue{}, nil
				}
				return nil, status.Error(codes.Code(code), req.Value)
			}),
			"Deadline": unary(func(ctx context.Context, _ *ttrpc.KeyValue) (any, error) {
				deadline, ok := ctx.Deadline()
				if !ok {
					return &ttrpc.KeyValue{Key: "none"}, nil
				}
				return &ttrpc.KeyValue{Key: "set", Value: strconv.FormatInt(time.Until(deadline).Nanoseconds(), 10)}, nil
			}),
			"Metadata": unary(func(ctx context.Context, _ *ttrpc.KeyValue) (any, error) {
				md, _ := ttrpc.GetMetadata(ctx)
				keys := make([]string, 0, len(md))
				for key := range md {
					keys = append(keys, key)
				}
				sort.Strings(keys)
				list := &ttrpc.StringList{}
				for _, key := range keys {
					for _, value := range md[key] {
						list.List = append(list.List, key+"="+value)
					}
				}
				return list, nil
			}),
			"Sleep": unary(func(ctx context.Context, req *ttrpc.KeyValue) (any, error) {
				ms, _ := strconv.Atoi(req.Key)
				report(Event{"event": "sleeping"})
				select {
				case <-time.After(time.Duration(ms) * time.Millisecond):
					report(Event{"event": "slept", "error": ""})
					return &ttrpc.KeyValue{Key: "slept"}, nil
				case <-ctx.Done():
					report(Event{"event": "slept", "error": ctx.Err().Error()})
					return nil, ctx.Err()
				}
			}),
		},
		Streams: map[string]ttrpc.Stream{
			"Collect": {
				StreamingClient: true,
				Handler: func(_ context.Context, ss ttrpc.StreamServer) (any, error) {
					list := &ttrpc.StringList{}
					for {
						var req ttrpc.KeyValue
						if err := ss.RecvMsg(&req); err != nil {
							if errors.Is(err, io.EOF) {
								return list, nil
							}
							return nil, err
						}
						list.List = append(list.List, req.Key)
					}
				},
			},
			"Spread": {
				StreamingServer: true,
				Handler: func(_ context.Context, ss ttrpc.StreamServer) (any, error) {
					var req ttrpc.KeyValue
					if err := ss.RecvMsg(&req); err != nil {
						return nil, err
					}
					n, _ := strconv.Atoi(req.Key)
					for i := 0; i < n; i++ {
						if err := ss.SendMsg(&ttrpc.KeyValue{Key: strconv.Itoa(i), Value: req.Value}); err != nil {
							return nil, err
						}
					}
					if req.Value == "fail" {
						return nil, status.Error(codes.Aborted, "spread failed")
					}
					return nil, nil
				},
			},
			"Chat": {
				StreamingClient: true,
				StreamingServer: true,
				Handler: func(_ context.Context, ss ttrpc.StreamServer) (any, error) {
					for {
						var req ttrpc.KeyValue
						if err := ss.RecvMsg(&req); err != nil {
							if errors.Is(err, io.EOF) {
								return nil, nil
							}
							return nil, err
						}
						if err := ss.SendMsg(&req); err != nil {
							return nil, err
						}
					}
				},
			},
		},
	}
}

// ResponseFor is a fresh response message for a unary method.
func ResponseFor(method string) any {
	if method == "Metadata" {
		return &ttrpc.StringList{}
	}
	return &ttrpc.KeyValue{}
}

// unary adapts a handler of KeyValue requests to ttrpc.Method.
func unary(handle func(context.Context, *ttrpc.KeyValue) (any, error)) ttrpc.Method {
	return func(ctx context.Context, unmarshal func(any) error) (any, error) {
		var req ttrpc.KeyValue
		if err := unmarshal(&req); err != nil {
			return nil, err
		}
		return handle(ctx, &req)
	}
}

// barrier holds calls until BarrierSize of them wait at once, then lets them all go.
type barrier struct {
	lock    sync.Mutex
	waiting int
	open    chan struct{}
}

func (b *barrier) wait(ctx context.Context) error {
	b.lock.Lock()
	if b.open == nil {
		b.open = make(chan struct{})
	}
	open := b.open
	if b.waiting++; b.waiting == BarrierSize {
		close(open)
		b.open, b.waiting = nil, 0
	}
	b.lock.Unlock()
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
