// Command mux-peer is the Go side of the @nri-ts/mux conformance tests. It
// runs the upstream multiplexer (github.com/containerd/nri/pkg/net/multiplex)
// over one unix stream socket and does what its flags ask, reporting what
// happens as JSON lines on stdout.
//
// Trunk (one of):
//
//	-socket PATH   dial the unix socket at PATH
//	-fd N          use the inherited socket fd N (as NRI_PLUGIN_SOCKET does)
//
// Behaviour (combinable):
//
//	-echo 1,2         read these connections and write every frame back as it came
//	-record 3         read these connections and only report their frames
//	-stall 4          open these connections but never read them
//	-send 1:0,100;5:7 write messages of these sizes on these connections
//	                  (byte i of message k on connection c is (7c+13k+i) mod 251)
//	-blocked          create the mux with WithBlockedRead; "unblock" on stdin unblocks it
//	-ttrpc            serve nri_ts.conformance.Echo/Echo (a BytesValue echo) with a ttrpc
//	                  server on connection 1 and call the same method on connection 2
//	                  with a ttrpc client, once per size in -calls, all at once
//	-nri ROLE         play ROLE (plugin or runtime) of NRI's layout with ttrpc: the plugin
//	                  serves the test service of service.go on connection 1 and calls on
//	                  connection 2, the runtime the reverse; calls come from stdin
//	-quiet            do not report single frames
//
// Standalone: -bench runs a Go mux to Go mux test over a socketpair and
// reports its time: -total bytes streamed in messages of -size bytes, or with
// -roundtrips N, one message of -size bytes bounced back and forth N times.
//
// Stdin: "unblock" unblocks the mux; with -nri, a JSON object is a call to
// make ({"id","method","key","value","fill","timeoutMs","metadata"}, see
// nri.go); "close" or the end of input closes the mux, and the program ends
// once its readers and calls have seen that.
//
// Events: {"event":"ready"}, {"event":"frame","conn":C,"len":N},
// {"event":"sent","conn":C}, {"event":"call","size":N,"error":E},
// {"event":"calls-done"}, {"event":"closed","conn":C,"error":E},
// with -nri {"event":"result","id":N,"code":C,"message":M,...} per call,
// {"event":"read-error","conn":C,"error":E}, {"event":"conn-closed","conn":C},
// {"event":"client-closed","conn":C}, {"event":"sleeping"}, {"event":"slept","error":E},
// {"event":"bench","bytes":N,"seconds":S} or {"event":"bench","roundtrips":N,"seconds":S}.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/containerd/log"
	nrinet "github.com/containerd/nri/pkg/net"
	"github.com/containerd/nri/pkg/net/multiplex"
	"github.com/sirupsen/logrus"
)

type event map[string]any

var stdout = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

func report(e event) {
	stdout.Lock()
	defer stdout.Unlock()
	if err := stdout.enc.Encode(e); err != nil {
		fail("writing an event: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mux-peer: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	var (
		socket  = flag.String("socket", "", "dial this unix socket as the trunk")
		fd      = flag.Int("fd", -1, "use this inherited socket fd as the trunk")
		echo    = flag.String("echo", "", "connections whose frames are written back")
		record  = flag.String("record", "", "connections whose frames are only reported")
		stall   = flag.String("stall", "", "connections opened but never read")
		send    = flag.String("send", "", "messages to write: conn:size,size;conn:size")
		blocked = flag.Bool("blocked", false, "create the mux with WithBlockedRead")
		rpc     = flag.Bool("ttrpc", false, "serve Echo on connection 1, call Echo on connection 2")
		calls   = flag.String("calls", "", "payload sizes of the Echo calls made with -ttrpc")
		role    = flag.String("nri", "", "play this NRI role (plugin or runtime) with ttrpc on connections 1 and 2")
		quiet   = flag.Bool("quiet", false, "do not report single frames")
		bench   = flag.Bool("bench", false, "measure Go mux to Go mux throughput and exit")
		size    = flag.Int("size", 65536, "message size for -bench")
		total   = flag.Int("total", 256<<20, "bytes to stream for -bench")
		trips   = flag.Int("roundtrips", 0, "bounce one message this often for -bench instead of streaming")
	)
	flag.Parse()

	if *bench {
		runBench(*size, *total, *trips)
		return
	}

	trunk := dialTrunk(*socket, *fd)
	var options []multiplex.Option
	if *blocked {
		options = append(options, multiplex.WithBlockedRead())
	}
	mux := multiplex.Multiplex(trunk, options...)

	var readers sync.WaitGroup
	for _, id := range connIDs(*echo) {
		conn := open(mux, id)
		readers.Add(1)
		go func() { defer readers.Done(); readLoop(conn, id, true, *quiet) }()
	}
	for _, id := range connIDs(*record) {
		conn := open(mux, id)
		readers.Add(1)
		go func() { defer readers.Done(); readLoop(conn, id, false, *quiet) }()
	}
	for _, id := range connIDs(*stall) {
		open(mux, id)
	}
	if *rpc {
		startTTRPC(mux, sizes(*calls))
	}
	var peer *nriPeer
	if *role != "" {
		// ttrpc logs the failures some tests provoke on purpose
		log.L.Logger.SetLevel(logrus.FatalLevel)
		peer = startNRI(mux, *role)
	}
	report(event{"event": "ready"})
	for id, messages := range sendPlan(*send) {
		go sendMessages(open(mux, id), id, messages)
	}

	control(mux, peer)
	if peer != nil {
		peer.wait()
	}
	readers.Wait()
}

func dialTrunk(socket string, fd int) net.Conn {
	switch {
	case socket != "" && fd < 0:
		conn, err := net.Dial("unix", socket)
		if err != nil {
			fail("dialing %s: %v", socket, err)
		}
		return conn
	case fd >= 0 && socket == "":
		conn, err := nrinet.NewFdConn(fd)
		if err != nil {
			fail("%v", err)
		}
		return conn
	default:
		fail("give exactly one of -socket and -fd")
		return nil
	}
}

// control obeys stdin until "close" or its end, then closes the mux. Calls
// go to peer, which is nil without -nri.
func control(mux multiplex.Mux, peer *nriPeer) {
	defer mux.Close()
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		switch {
		case line == "close":
			return
		case line == "unblock":
			mux.Unblock()
		case strings.HasPrefix(line, "{") && peer != nil:
			peer.call(line)
		}
	}
}

func open(mux multiplex.Mux, id multiplex.ConnID) net.Conn {
	conn, err := mux.Open(id)
	if err != nil {
		fail("opening connection %d: %v", id, err)
	}
	return conn
}

func connIDs(list string) []multiplex.ConnID {
	var ids []multiplex.ConnID
	for _, n := range sizes(list) {
		ids = append(ids, multiplex.ConnID(n))
	}
	return ids
}

func sizes(list string) []int {
	var out []int
	for _, field := range strings.Split(list, ",") {
		if field = strings.TrimSpace(field); field == "" {
			continue
		}
		n, err := strconv.Atoi(field)
		if err != nil || n < 0 {
			fail("not a size or id: %q", field)
		}
		out = append(out, n)
	}
	return out
}

func sendPlan(spec string) map[multiplex.ConnID][]int {
	plan := map[multiplex.ConnID][]int{}
	for _, part := range strings.Split(spec, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		id, list, ok := strings.Cut(part, ":")
		n, err := strconv.ParseUint(id, 10, 32)
		if !ok || err != nil {
			fail("not conn:size,size: %q", part)
		}
		plan[multiplex.ConnID(n)] = sizes(list)
	}
	return plan
}
