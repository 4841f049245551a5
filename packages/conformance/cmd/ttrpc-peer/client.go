package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/containerd/ttrpc"
	"google.golang.org/grpc/status"

	"github.com/nri-ts/nri-ts/packages/conformance/internal/testservice"
)

// command is one line of the client driver's input.
type command struct {
	ID int `json:"id"`
	// Op is unary, collect (client stream), spread (server stream) or chat (both stream).
	Op     string `json:"op"`
	Method string `json:"method"`
	Key    string `json:"key"`
	Value  string `json:"value"`
	// Fill, when positive, replaces Value with that many "x".
	Fill      int         `json:"fill"`
	TimeoutMs int         `json:"timeoutMs"`
	Metadata  [][2]string `json:"metadata"`
	Messages  []keyValue  `json:"messages"`
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// result is one line of the client driver's output.
type result struct {
	ID int `json:"id"`
	// Code and Message: the call's gRPC status (context errors map to their codes).
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Error is the full Go error text, if any.
	Error string `json:"error,omitempty"`
	Key   string `json:"key"`
	// Value is left out above 256 bytes; ValueLength is always set.
	Value       string     `json:"value"`
	ValueLength int        `json:"valueLength"`
	List        []string   `json:"list,omitempty"`
	Messages    []keyValue `json:"messages"`
}

// runClient connects to socket and runs commands from stdin until it ends.
func runClient(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	client := ttrpc.NewClient(conn)
	defer client.Close()

	var running sync.WaitGroup
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	for lines.Scan() {
		var cmd command
		if err := json.Unmarshal(lines.Bytes(), &cmd); err != nil {
			return err
		}
		running.Add(1)
		go func() {
			defer running.Done()
			writeJSON(os.Stdout, execute(client, cmd))
		}()
	}
	running.Wait()
	return lines.Err()
}

func execute(client *ttrpc.Client, cmd command) result {
	ctx := context.Background()
	if cmd.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(cmd.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	if len(cmd.Metadata) > 0 {
		// filled directly, keeping the keys exactly as given
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
	req := &ttrpc.KeyValue{Key: cmd.Key, Value: value}
	res := result{ID: cmd.ID}

	switch cmd.Op {
	case "unary":
		resp := testservice.ResponseFor(cmd.Method)
		err := client.Call(ctx, testservice.Name, cmd.Method, req, resp)
		res.setError(err)
		if err == nil {
			switch resp := resp.(type) {
			case *ttrpc.KeyValue:
				res.setKeyValue(resp)
			case *ttrpc.StringList:
				res.List = resp.List
			}
		}
	case "collect":
		stream, err := client.NewStream(ctx, &ttrpc.StreamDesc{StreamingClient: true}, testservice.Name, "Collect", nil)
		if err == nil {
			for _, m := range cmd.Messages {
				if err = stream.SendMsg(&ttrpc.KeyValue{Key: m.Key, Value: m.Value}); err != nil {
					break
				}
			}
		}
		if err == nil {
			err = stream.CloseSend()
		}
		if err == nil {
			var list ttrpc.StringList
			if err = stream.RecvMsg(&list); err == nil {
				res.List = list.List
			}
		}
		res.setError(err)
	case "spread":
		stream, err := client.NewStream(ctx, &ttrpc.StreamDesc{StreamingServer: true}, testservice.Name, "Spread", req)
		res.Messages = []keyValue{}
		for err == nil {
			var m ttrpc.KeyValue
			if err = stream.RecvMsg(&m); err == nil {
				res.Messages = append(res.Messages, keyValue{m.Key, m.Value})
			}
		}
		if !errors.Is(err, io.EOF) {
			res.setError(err)
		}
	case "chat":
		stream, err := client.NewStream(ctx, &ttrpc.StreamDesc{StreamingClient: true, StreamingServer: true}, testservice.Name, "Chat", nil)
		res.Messages = []keyValue{}
		for _, m := range cmd.Messages {
			if err != nil {
				break
			}
			if err = stream.SendMsg(&ttrpc.KeyValue{Key: m.Key, Value: m.Value}); err == nil {
				var echo ttrpc.KeyValue
				if err = stream.RecvMsg(&echo); err == nil {
					res.Messages = append(res.Messages, keyValue{echo.Key, echo.Value})
				}
			}
		}
		if err == nil {
			err = stream.CloseSend()
		}
		if err == nil {
			var extra ttrpc.KeyValue
			if err = stream.RecvMsg(&extra); err == nil {
				res.Error = "a message after the last echo"
			}
		}
		if !errors.Is(err, io.EOF) {
			res.setError(err)
		}
	default:
		res.Code, res.Error = 2, "unknown op "+cmd.Op
	}
	return res
}

func (r *result) setKeyValue(kv *ttrpc.KeyValue) {
	r.Key = kv.Key
	r.ValueLength = len(kv.Value)
	if len(kv.Value) <= 256 {
		r.Value = kv.Value
	}
}

func (r *result) setError(err error) {
	if err == nil {
		return
	}
	r.Error = err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		r.Code, r.Message = 4, err.Error()
	case errors.Is(err, context.Canceled):
		r.Code, r.Message = 1, err.Error()
	default:
		st, _ := status.FromError(err)
		r.Code, r.Message = int(st.Code()), st.Message()
	}
}
