package main

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// testServiceName is the test service the TypeScript side implements too
// (src/test-service.ts), with the same contract as ttrpc-peer's.
const testServiceName = "nrits.conformance.Test"

// barrierSize is how many Echo calls with key "barrier" wait for each other.
const barrierSize = 64

// testService describes the unary methods of the test service:
//
//	Echo(KeyValue) KeyValue        the request; key "barrier" first waits until 64 such calls are in flight
//	Generate(KeyValue) KeyValue    value = "x" * key
//	Fail(KeyValue) KeyValue        status code = key, message = value; code 0 succeeds
//	Deadline(KeyValue) KeyValue    key "none", or key "set" and value = nanoseconds left
//	Metadata(KeyValue) StringList  "key=value" per received pair, sorted by key
//	Sleep(KeyValue) KeyValue       waits key ms, or fails with the context's error;
//	                               reports {"event":"sleeping"} when it starts and
//	                               {"event":"slept","error":E} when it ends
func testService() *ttrpc.ServiceDesc {
	var gate barrier
	return &ttrpc.ServiceDesc{
		Methods: map[string]ttrpc.Method{
			"Echo": keyValueMethod(func(ctx context.Context, req *ttrpc.KeyValue) (any, error) {
				if req.Key == "barrier" {
					if err := gate.wait(ctx); err != nil {
						return nil, err
					}
				}
				return req, nil
			}),
			"Generate": keyValueMethod(func(_ context.Context, req *ttrpc.KeyValue) (any, error) {
				n, err := strconv.Atoi(req.Key)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "bad size %q", req.Key)
				}
				return &ttrpc.KeyValue{Value: strings.Repeat("x", n)}, nil
			}),
			"Fail": keyValueMethod(func(_ context.Context, req *ttrpc.KeyValue) (any, error) {
				code, err := strconv.Atoi(req.Key)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "bad code %q", req.Key)
				}
				if code == 0 {
					return &ttrpc.KeyValue{}, nil
				}
				return nil, status.Error(codes.Code(code), req.Value)
			}),
			"Deadline": keyValueMethod(func(ctx context.Context, _ *ttrpc.KeyValue) (any, error) {
				deadline, ok := ctx.Deadline()
				if !ok {
					return &ttrpc.KeyValue{Key: "none"}, nil
				}
				return &ttrpc.KeyValue{Key: "set", Value: strconv.FormatInt(time.Until(deadline).Nanoseconds(), 10)}, nil
			}),
			"Metadata": keyValueMethod(func(ctx context.Context, _ *ttrpc.KeyValue) (any, error) {
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
			"Sleep": keyValueMethod(func(ctx context.Context, req *ttrpc.KeyValue) (any, error) {
				ms, _ := strconv.Atoi(req.Key)
				report(event{"event": "sleeping"})
				select {
				case <-time.After(time.Duration(ms) * time.Millisecond):
					report(event{"event": "slept", "error": ""})
					return &ttrpc.KeyValue{Key: "slept"}, nil
				case <-ctx.Done():
					report(event{"event": "slept", "error": ctx.Err().Error()})
					return nil, ctx.Err()
				}
			}),
		},
	}
}

// keyValueMethod adapts a handler of KeyValue requests to ttrpc.Method.
func keyValueMethod(handle func(context.Context, *ttrpc.KeyValue) (any, error)) ttrpc.Method {
	return func(ctx context.Context, unmarshal func(any) error) (any, error) {
		var req ttrpc.KeyValue
		if err := unmarshal(&req); err != nil {
			return nil, err
		}
		return handle(ctx, &req)
	}
}

// barrier holds calls until barrierSize of them wait at once, then lets them all go.
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
	if b.waiting++; b.waiting == barrierSize {
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
