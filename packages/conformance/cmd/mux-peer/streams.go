package main

import (
	"net"

	"github.com/containerd/nri/pkg/net/multiplex"
)

// maxFrame is the largest payload a Go mux writes in one frame: a ttrpc header
// and ttrpc's 4 MiB limit. A read buffer this large never fails with ENOMEM.
const maxFrame = 10 + 4<<20

// pattern is the content of message k on connection id, shared with the tests.
func pattern(id multiplex.ConnID, k, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte((7*int(id) + 13*k + i) % 251)
	}
	return b
}

// readLoop reads one frame per Read, reports it and maybe writes it back,
// until the connection fails.
func readLoop(conn net.Conn, id multiplex.ConnID, echo, quiet bool) {
	buf := make([]byte, maxFrame)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			report(event{"event": "closed", "conn": id, "error": err.Error()})
			return
		}
		if !quiet {
			report(event{"event": "frame", "conn": id, "len": n})
		}
		if echo {
			if _, err := conn.Write(buf[:n]); err != nil {
				report(event{"event": "closed", "conn": id, "error": err.Error()})
				return
			}
		}
	}
}

func sendMessages(conn net.Conn, id multiplex.ConnID, messages []int) {
	for k, size := range messages {
		if _, err := conn.Write(pattern(id, k, size)); err != nil {
			report(event{"event": "send-failed", "conn": id, "error": err.Error()})
			return
		}
	}
	report(event{"event": "sent", "conn": id})
}
