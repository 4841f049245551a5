package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	nrinet "github.com/containerd/nri/pkg/net"
	"github.com/containerd/nri/pkg/net/multiplex"
	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/status"

	"github.com/nri-ts/nri-ts/packages/conformance/internal/testservice"
)

// nriPeer plays one side of NRI's layout of two ttrpc conversations over the
// mux: the plugin serves on connection 1 and calls on connection 2, the
// runtime calls on connection 1 and serves on connection 2. Its server has the
// test service of service.go; its client runs the calls that arrive on stdin.
type nriPeer struct {
	client *ttrpc.Client
	// running counts the client's calls, handlers the server's.
	running  sync.WaitGroup
	handlers sync.WaitGroup
}

// callCommand is one call for the client, a JSON line on stdin.
type callCommand struct {
	ID     int    `json:"id"`
	Method string `json:"method"`
	Key    string `json:"key"`
	Value  string `json:"value"`
	// Fill, when positive, replaces Value with that many "x".
	Fill      int         `json:"fill"`
	TimeoutMs int         `json:"timeoutMs"`
	Metadata  [][2]string `json:"metadata"`
}

// startNRI serves and calls as role ("plugin" or "runtime") does in NRI.
func startNRI(mux multiplex.Mux, role string) *nriPeer {
	serveOn, callOn := multiplex.PluginServiceConn, multiplex.RuntimeServiceConn
	switch role {
	case "plugin":
	case "runtime":
		serveOn, callOn = callOn, serveOn
	default:
		fail("-nri takes plugin or runtime, not %q", role)
	}

	p := &nriPeer{}
	server, err := ttrpc.NewServer(ttrpc.WithUnaryServerInterceptor(p.track))
	if err != nil {
		fail("creating the ttrpc server: %v", err)
	}
	server.RegisterService(testservice.Name, testservice.New(func(e testservice.Event) { report(event(e)) }))
	// both connections are open before "ready": Go's mux drops frames for ids not open
	listener := nrinet.NewConnListener(watch(open(mux, serveOn), serveOn))
	go func() {
		err := server.Serve(context.Background(), listener)
		report(event{"event": "server-done", "error": err.Error()})
	}()

	p.client = ttrpc.NewClient(watch(open(mux, callOn), callOn), ttrpc.WithOnClose(func() {
		report(event{"event": "client-closed", "conn": callOn})
	}))
	return p
}

// track counts the server's handlers running, so that wait can wait for them.
func (p *nriPeer) track(ctx context.Context, unmarshal ttrpc.Unmarshaler, _ *ttrpc.UnaryServerInfo, method ttrpc.Method) (any, error) {
	p.handlers.Add(1)
	defer p.handlers.Done()
	return method(ctx, unmarshal)
}

// call runs one JSON call command in the background and reports its result.
func (p *nriPeer) call(line string) {
	var cmd callCommand
	if err := json.Unmarshal([]byte(line), &cmd); err != nil {
		fail("not a call command: %q: %v", line, err)
	}
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		report(p.execute(cmd))
	}()
}

// wait returns, once the mux is closed, when every call has reported its
// result, the client its closing, and every handler has returned.
func (p *nriPeer) wait() {
	p.running.Wait()
	p.client.UserOnCloseWait(context.Background())
	p.handlers.Wait()
}

// execute makes one unary call and describes its outcome: {"event":"result",
// "id", "code", "message", "error", "key", "value" (up to 256 bytes),
// "valueLength", "list"}.
func (p *nriPeer) execute(cmd callCommand) event {
	ctx := context.Background()
	if cmd.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(cmd.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	if len(cmd.Metadata) > 0 {
		md := ttrpc.MD{}
		for _, pair := range cmd.Metadata {
			md[pair[0]] = append(md[pair[0]], pair[1])
		}
		ctx = ttrpc.WithMetadata(ctx, md)
	}
	value := cmd.Value
	if cmd.Fill > 0 {
		value = strings.Repeat("x", cmd.Fill)
	}

	result := event{"event": "result", "id": cmd.ID, "code": 0, "message": ""}
	var err error
	if cmd.Method == "Metadata" {
		var resp ttrpc.StringList
		if err = p.client.Call(ctx, testservice.Name, cmd.Method, &ttrpc.KeyValue{Key: cmd.Key, Value: value}, &resp); err == nil {
			result["list"] = resp.List
		}
	} else {
		var resp ttrpc.KeyValue
		if err = p.client.Call(ctx, testservice.Name, cmd.Method, &ttrpc.KeyValue{Key: cmd.Key, Value: value}, &resp); err == nil {
			result["key"], result["valueLength"] = resp.Key, len(resp.Value)
			if len(resp.Value) <= 256 {
				result["value"] = resp.Value
			}
		}
	}
	if err != nil {
		result["error"] = err.Error()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			result["code"], result["message"] = 4, err.Error()
		default:
			st, _ := status.FromError(err)
			result["code"], result["message"] = int(st.Code()), st.Message()
		}
	}
	return result
}

// watchedConn reports what happens to a mux connection under ttrpc: the
// first failed read ({"event":"read-error","conn":C,"error":E}, e.g. ENOMEM
// for a frame larger than ttrpc's 4096-byte read buffer) and its closing
// ({"event":"conn-closed","conn":C}).
type watchedConn struct {
	net.Conn
	id          multiplex.ConnID
	readFailed  sync.Once
	closeCalled sync.Once
}

func watch(conn net.Conn, id multiplex.ConnID) net.Conn {
	return &watchedConn{Conn: conn, id: id}
}

func (c *watchedConn) Read(buf []byte) (int, error) {
	n, err := c.Conn.Read(buf)
	if err != nil {
		c.readFailed.Do(func() { report(event{"event": "read-error", "conn": c.id, "error": err.Error()}) })
	}
	return n, err
}

func (c *watchedConn) Close() error {
	c.closeCalled.Do(func() { report(event{"event": "conn-closed", "conn": c.id}) })
	return c.Conn.Close()
}
