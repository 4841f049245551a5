// Command fault-plugin is the plugin of the failure-policy differential
// (src/policy-differential.test.ts). It speaks NRI on the mux and ttrpc
// frames directly, not through a stub, so that it can fail a request on
// purpose in every way a runtime must handle; the same program runs against
// the Go adaptation and against ours.
//
//	fault-plugin -socket PATH -idx NN -name NAME -events LIST
//	             [-policy unset|none|fail|keep|fail,keep] [-fault EVENT:N:KIND,...]
//	             [-record FILE]
//
// -events is the subscription (e.g. RunPodSandbox,CreateContainer).
// -policy is the FailurePolicy of its Configure reply: unset sends none,
// none an empty one. -fault fails the N-th request of EVENT (1-based):
//
//	timeout      never answers
//	crash        closes its connection instead of answering
//	garbage      answers with a Response frame whose envelope does not decode
//	wrong-frame  answers with a Data frame (a unary call only takes a Response)
//	error        answers with the status Unknown "failed on purpose"
//	leave        answers, then closes its connection LEAVE_AFTER later (it is
//	             gone while idle)
//
// -record appends a JSON line per request received ({"event","pod"}) and
// {"event":"closed"} when the connection ends; then the program exits 0.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/net/multiplex"
	"github.com/containerd/ttrpc"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"
)

const (
	frameHeaderLength = 10
	typeRequest       = 1
	typeResponse      = 2
	typeData          = 3
	maxFrame          = frameHeaderLength + 4<<20
)

type faultKey struct {
	event string
	nth   int
}

type plugin struct {
	events api.EventMask
	policy *api.FailurePolicy
	faults map[faultKey]string
	seen   map[string]int

	trunk  net.Conn
	conn   net.Conn
	record *os.File
	mu     sync.Mutex
}

func main() {
	socket := flag.String("socket", "", "the runtime's socket")
	idx := flag.String("idx", "", "plugin index")
	name := flag.String("name", "", "plugin name")
	events := flag.String("events", "", "events to subscribe to")
	policy := flag.String("policy", "unset", "unset, none, fail, keep or fail,keep")
	faults := flag.String("fault", "", "EVENT:N:KIND,...")
	record := flag.String("record", "", "append received requests to this file")
	flag.Parse()

	p := &plugin{faults: map[faultKey]string{}, seen: map[string]int{}}
	var err error
	if p.events, err = api.ParseEventMask(*events); err != nil {
		fail(err)
	}
	if p.policy, err = parsePolicy(*policy); err != nil {
		fail(err)
	}
	for _, spec := range strings.Split(*faults, ",") {
		if spec == "" {
			continue
		}
		parts := strings.Split(spec, ":")
		nth, err := strconv.Atoi(parts[len(parts)-2])
		if len(parts) != 3 || err != nil {
			fail(fmt.Errorf("bad -fault %q: want EVENT:N:KIND", spec))
		}
		p.faults[faultKey{parts[0], nth}] = parts[2]
	}
	if *record != "" {
		if p.record, err = os.OpenFile(*record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
			fail(err)
		}
	}
	if p.trunk, err = net.Dial("unix", *socket); err != nil {
		fail(err)
	}
	mux := multiplex.Multiplex(p.trunk)
	if p.conn, err = mux.Open(multiplex.PluginServiceConn); err != nil {
		fail(err)
	}
	runtimeConn, err := mux.Open(multiplex.RuntimeServiceConn)
	if err != nil {
		fail(err)
	}
	go func() {
		client := api.NewRuntimeClient(ttrpc.NewClient(runtimeConn))
		if _, err := client.RegisterPlugin(context.Background(), &api.RegisterPluginRequest{PluginName: *name, PluginIdx: *idx}); err != nil {
			fmt.Fprintf(os.Stderr, "fault-plugin: register: %v\n", err)
		}
	}()
	p.serve()
	p.write(map[string]string{"event": "closed"})
}

func parsePolicy(spec string) (*api.FailurePolicy, error) {
	switch spec {
	case "unset":
		return nil, nil
	case "none":
		return &api.FailurePolicy{}, nil
	case "fail":
		return &api.FailurePolicy{FailRequest: true}, nil
	case "keep":
		return &api.FailurePolicy{KeepConnected: true}, nil
	case "fail,keep":
		return &api.FailurePolicy{FailRequest: true, KeepConnected: true}, nil
	}
	return nil, fmt.Errorf("bad -policy %q", spec)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "fault-plugin: %v\n", err)
	os.Exit(2)
}

// serve reads ttrpc frames on connection 1 until it ends.
func (p *plugin) serve() {
	reader := bufio.NewReaderSize(p.conn, maxFrame)
	header := make([]byte, frameHeaderLength)
	for {
		if _, err := io.ReadFull(reader, header); err != nil {
			return
		}
		data := make([]byte, binary.BigEndian.Uint32(header[0:4]))
		if _, err := io.ReadFull(reader, data); err != nil {
			return
		}
		if header[8] == typeRequest {
			p.handle(binary.BigEndian.Uint32(header[4:8]), data)
		}
	}
}

// leaveAfter is how long a leaving plugin waits after its answer before it
// closes its connection. Closing at once races with Go's ttrpc client: its
// call selects between the answer and the closed connection, both ready, at
// random, and fails an answered request with "ttrpc: closed" about half the
// time; "leave" is about a plugin gone while idle.
const leaveAfter = 200 * time.Millisecond

func (p *plugin) handle(stream uint32, data []byte) {
	req := &ttrpc.Request{}
	if err := proto.Unmarshal(data, req); err != nil {
		fail(fmt.Errorf("undecodable request: %w", err))
	}
	switch req.Method {
	case "Configure":
		p.answer(stream, nil, &api.ConfigureResponse{Events: int32(p.events), FailurePolicy: p.policy})
		return
	case "Synchronize":
		sync := &api.SynchronizeRequest{}
		_ = proto.Unmarshal(req.Payload, sync)
		p.answer(stream, nil, &api.SynchronizeResponse{More: sync.More})
		return
	}
	p.seen[req.Method]++
	p.write(map[string]string{"event": req.Method, "pod": podOf(req)})
	switch p.faults[faultKey{req.Method, p.seen[req.Method]}] {
	case "timeout":
	case "crash":
		p.trunk.Close()
	case "garbage":
		// field 1 claims 5 bytes, 1 follows
		p.frame(stream, typeResponse, []byte{0x0a, 0x05, 0x01})
	case "wrong-frame":
		p.frame(stream, typeData, []byte("x"))
	case "error":
		p.answer(stream, &status.Status{Code: 2, Message: "failed on purpose"}, nil)
	case "leave":
		p.answer(stream, nil, nil)
		time.AfterFunc(leaveAfter, func() { p.trunk.Close() })
	default:
		p.answer(stream, nil, nil)
	}
}

// podOf is the pod id of a lifecycle or validation request: the pod is
// field 1 of every one of them.
func podOf(req *ttrpc.Request) string {
	msg := &api.RunPodSandboxRequest{}
	_ = proto.Unmarshal(req.Payload, msg)
	return msg.GetPod().GetId()
}

func (p *plugin) answer(stream uint32, st *status.Status, msg proto.Message) {
	var payload []byte
	if msg != nil {
		var err error
		if payload, err = proto.Marshal(msg); err != nil {
			fail(err)
		}
	}
	data, err := proto.Marshal(&ttrpc.Response{Status: st, Payload: payload})
	if err != nil {
		fail(err)
	}
	p.frame(stream, typeResponse, data)
}

func (p *plugin) frame(stream uint32, kind byte, data []byte) {
	frame := make([]byte, frameHeaderLength+len(data))
	binary.BigEndian.PutUint32(frame[0:4], uint32(len(data)))
	binary.BigEndian.PutUint32(frame[4:8], stream)
	frame[8] = kind
	copy(frame[frameHeaderLength:], data)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.conn.Write(frame)
}

func (p *plugin) write(entry map[string]string) {
	if p.record == nil {
		return
	}
	line, _ := json.Marshal(entry)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.record.Write(append(line, '\n'))
}
