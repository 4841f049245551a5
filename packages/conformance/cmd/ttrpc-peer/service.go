package main

import (
	"context"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// serviceName is the test service both peers (Go here, TypeScript in the
// conformance tests) implement the same way. Its messages are ttrpc's own
// KeyValue and StringList, which @nri-ts/ttrpc generates too.
const serviceName = "nrits.conformance.Test"

// testService describes the methods:
//
//	Echo(KeyValue) KeyValue            returns the request
//	Generate(KeyValue) KeyValue        value = "x" * key
//	Fail(KeyValue) KeyValue            status code = key, message = value; code 0 succeeds
//	Deadline(KeyValue) KeyValue        key "none", or key "set" and value = nanoseconds left
//	Metadata(KeyValue) StringList      "key=value" per received pair, sorted by key
//	Sleep(KeyValue) KeyValue           waits key ms, or fails with the context's error
//	Collect(stream KeyValue) StringList          the keys received
//	Spread(KeyValue) stream KeyValue             key times {key: i, value}; value "fail" ends with Aborted
//	Chat(stream KeyValue) stream KeyValue        echoes every message
func testService() *ttrpc.ServiceDesc {
	return &ttrpc.ServiceDesc{
		Methods: map[string]ttrpc.Method{
			"Echo": unary(func(ctx context.Context, req *ttrpc.KeyValue) (interface{}, error) {
				return req, nil
			}),
			"Generate": unary(func(ctx context.Context, req *ttrpc.KeyValue) (interface{}, error) {
				n, err := strconv.Atoi(req.Key)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "bad size %q", req.Key)
				}
				return &ttrpc.KeyValue{Value: strings.Repeat("x", n)}, nil
			}),
			"Fail": unary(func(ctx context.Context, req *ttrpc.KeyValue) (interface{}, error) {
				code, err := strconv.Atoi(req.Key)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "bad code %q", req.Key)
				}
				if code == 0 {
					return &ttrpc.KeyValue{}, nil
				}
				return nil, status.Error(codes.Code(code), req.Value)
			}),
			"Deadline": unary(func(ctx context.Context, req *ttrpc.KeyValue) (interface{}, error) {
				deadline, ok := ctx.Deadline()
				if !ok {
					return &ttrpc.KeyValue{Key: "none"}, nil
				}
				return &ttrpc.KeyValue{Key: "set", Value: strconv.FormatInt(time.Until(deadline).Nanoseconds(), 10)}, nil
			}),
			"Metadata": unary(func(ctx context.Context, req *ttrpc.KeyValue) (interface{}, error) {
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
			"Sleep": unary(func(ctx context.Context, req *ttrpc.KeyValue) (interface{}, error) {
				ms, _ := strconv.Atoi(req.Key)
				select {
				case <-time.After(time.Duration(ms) * time.Millisecond):
					return &ttrpc.KeyValue{Key: "slept"}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}),
		},
		Streams: map[string]ttrpc.Stream{
			"Collect": {
				StreamingClient: true,
				Handler: func(ctx context.Context, ss ttrpc.StreamServer) (interface{}, error) {
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
				Handler: func(ctx context.Context, ss ttrpc.StreamServer) (interface{}, error) {
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
				Handler: func(ctx context.Context, ss ttrpc.StreamServer) (interface{}, error) {
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

// unary adapts a typed handler to ttrpc.Method.
func unary(handle func(context.Context, *ttrpc.KeyValue) (interface{}, error)) ttrpc.Method {
	return func(ctx context.Context, unmarshal func(interface{}) error) (interface{}, error) {
		var req ttrpc.KeyValue
		if err := unmarshal(&req); err != nil {
			return nil, err
		}
		return handle(ctx, &req)
	}
}

// responseFor is the response message type of a unary method.
func responseFor(method string) interface{} {
	if method == "Metadata" {
		return &ttrpc.StringList{}
	}
	return &ttrpc.KeyValue{}
}
