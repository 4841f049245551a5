package main

import (
	"bufio"
	"io"
	"net"
	"time"

	nrinet "github.com/containerd/nri/pkg/net"
	"github.com/containerd/nri/pkg/net/multiplex"
)

// runBench measures a Go mux talking to a Go mux over a socketpair, reading
// and writing through 4096-byte bufio buffers with a flush per message, as
// ttrpc does. With roundtrips > 0 it bounces one message of size bytes back
// and forth that many times; otherwise it streams total bytes one way.
func runBench(size, total, roundtrips int) {
	pair, err := nrinet.NewSocketPair()
	if err != nil {
		fail("%v", err)
	}
	local, err := pair.LocalConn()
	if err != nil {
		fail("%v", err)
	}
	peer, err := pair.PeerConn()
	if err != nil {
		fail("%v", err)
	}
	a, b := multiplex.Multiplex(local), multiplex.Multiplex(peer)
	defer a.Close()
	defer b.Close()
	out, in := open(a, multiplex.PluginServiceConn), open(b, multiplex.PluginServiceConn)
	message := pattern(multiplex.PluginServiceConn, 0, size)

	start := time.Now()
	if roundtrips > 0 {
		go bounce(in, size, roundtrips)
		w, r, buf := bufio.NewWriter(out), bufio.NewReader(out), make([]byte, size)
		for range roundtrips {
			writeMessage(w, message)
			readMessage(r, buf)
		}
		report(event{"event": "bench", "roundtrips": roundtrips, "seconds": time.Since(start).Seconds()})
		return
	}

	count := total / size
	go func() {
		w := bufio.NewWriter(out)
		for range count {
			writeMessage(w, message)
		}
	}()
	r, buf := bufio.NewReader(in), make([]byte, size)
	for range count {
		readMessage(r, buf)
	}
	report(event{"event": "bench", "bytes": count * size, "seconds": time.Since(start).Seconds()})
}

// bounce writes every message it reads back.
func bounce(conn net.Conn, size, count int) {
	w, r, buf := bufio.NewWriter(conn), bufio.NewReader(conn), make([]byte, size)
	for range count {
		readMessage(r, buf)
		writeMessage(w, buf)
	}
}

func writeMessage(w *bufio.Writer, message []byte) {
	if _, err := w.Write(message); err != nil {
		fail("bench write: %v", err)
	}
	if err := w.Flush(); err != nil {
		fail("bench flush: %v", err)
	}
}

func readMessage(r io.Reader, buf []byte) {
	if _, err := io.ReadFull(r, buf); err != nil {
		fail("bench read: %v", err)
	}
}
