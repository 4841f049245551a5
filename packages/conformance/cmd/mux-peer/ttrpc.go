package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/containerd/nri/pkg/net/multiplex"
	"github.com/containerd/ttrpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

const (
	echoService = "nri_ts.conformance.Echo"
	echoMethod  = "Echo"
)

// startTTRPC serves Echo on the plugin-service connection and calls Echo on
// the runtime-service connection, once per size, all at once.
func startTTRPC(mux multiplex.Mux, calls []int) {
	server, err := ttrpc.NewServer()
	if err != nil {
		fail("creating the ttrpc server: %v", err)
	}
	server.RegisterService(echoService, &ttrpc.ServiceDesc{
		Methods: map[string]ttrpc.Method{
			echoMethod: func(_ context.Context, unmarshal func(any) error) (any, error) {
				var req wrapperspb.BytesValue
				if err := unmarshal(&req); err != nil {
					return nil, err
				}
				return &req, nil
			},
		},
	})
	listener, err := mux.Listen(multiplex.PluginServiceConn)
	if err != nil {
		fail("listening on connection 1: %v", err)
	}
	go func() {
		err := server.Serve(context.Background(), listener)
		report(event{"event": "server-done", "error": fmt.Sprint(err)})
	}()

	client := ttrpc.NewClient(open(mux, multiplex.RuntimeServiceConn))
	go func() {
		var wg sync.WaitGroup
		for k, size := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				report(event{"event": "call", "size": size, "error": callEcho(client, k, size)})
			}()
		}
		wg.Wait()
		report(event{"event": "calls-done"})
	}()
}

func callEcho(client *ttrpc.Client, k, size int) string {
	want := pattern(multiplex.RuntimeServiceConn, k, size)
	var resp wrapperspb.BytesValue
	if err := client.Call(context.Background(), echoService, echoMethod, wrapperspb.Bytes(want), &resp); err != nil {
		return err.Error()
	}
	if !bytes.Equal(resp.Value, want) {
		return fmt.Sprintf("echo of %d bytes came back as %d different bytes", size, len(resp.Value))
	}
	return ""
}
