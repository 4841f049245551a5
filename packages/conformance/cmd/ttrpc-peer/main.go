// Command ttrpc-peer is the Go side (github.com/containerd/ttrpc v1.2.7) of
// the ttrpc conformance tests and benchmarks of @nri-ts/ttrpc. It serves the
// test service of service.go on a unix socket, or acts as a client of it.
//
//	ttrpc-peer serve  -socket PATH   serve until stdin closes; prints {"ready":true} once listening
//	ttrpc-peer client -socket PATH   run JSON commands from stdin (one per line, concurrently), print JSON results
//	ttrpc-peer bench  -socket PATH -inflight N -duration D -size S
//	                                 call Echo for D with N calls in flight; print latency and throughput as JSON
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sync"

	"github.com/containerd/log"
	"github.com/containerd/ttrpc"
	"github.com/sirupsen/logrus"

	"github.com/nri-ts/nri-ts/packages/conformance/internal/testservice"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: ttrpc-peer serve|client|bench -socket PATH [flags]"))
	}
	mode := os.Args[1]
	flags := flag.NewFlagSet(mode, flag.ExitOnError)
	socket := flags.String("socket", "", "unix socket path")
	inflight := flags.Int("inflight", 1, "bench: calls in flight")
	duration := flags.Duration("duration", 0, "bench: how long to measure")
	size := flags.Int("size", 64, "bench: bytes in each Echo value")
	if err := flags.Parse(os.Args[2:]); err != nil || *socket == "" {
		fail(fmt.Errorf("%s: -socket is required", mode))
	}
	// ttrpc logs protocol oddities (dropped frames, closed connections) at
	// error level; the tests provoke them on purpose.
	log.L.Logger.SetLevel(logrus.FatalLevel)

	var err error
	switch mode {
	case "serve":
		err = serve(*socket)
	case "client":
		err = runClient(*socket)
	case "bench":
		err = bench(*socket, *inflight, *duration, *size)
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ttrpc-peer:", err)
	os.Exit(1)
}

// serve serves the test service on socket until stdin reaches its end.
func serve(socket string) error {
	server, err := ttrpc.NewServer()
	if err != nil {
		return err
	}
	server.RegisterService(testservice.Name, testservice.New(nil))
	os.Remove(socket)
	listener, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	go server.Serve(context.Background(), listener)
	if err := writeJSON(os.Stdout, map[string]bool{"ready": true}); err != nil {
		return err
	}
	io.Copy(io.Discard, os.Stdin)
	return server.Close()
}

var outputLock sync.Mutex

// writeJSON prints one JSON line; safe from many goroutines.
func writeJSON(w io.Writer, value interface{}) error {
	line, err := json.Marshal(value)
	if err != nil {
		return err
	}
	outputLock.Lock()
	defer outputLock.Unlock()
	_, err = w.Write(append(line, '\n'))
	return err
}
