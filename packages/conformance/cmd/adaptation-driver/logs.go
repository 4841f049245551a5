package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	nrilog "github.com/containerd/nri/pkg/log"
)

// recordingLogger reports the adaptation's log lines that start with a
// prefix (what the tests' WASM plugins send through the Log host function,
// which the Go adaptation logs at the level they ask for) as
// {"event":"log"}, remembers the invocation order the adaptation logs each
// time it sorts its plugins, and passes every line on to the logger it
// replaces.
type recordingLogger struct {
	prefix string
	next   nrilog.Logger
	mu     sync.Mutex
	order  []string
}

func (l *recordingLogger) emit(level, format string, args []interface{}) {
	switch format {
	case "plugin invocation order":
		l.mu.Lock()
		l.order = nil
		l.mu.Unlock()
	case "  #%d: %q (%s)":
		l.mu.Lock()
		l.order = append(l.order, fmt.Sprint(args[1]))
		l.mu.Unlock()
	}
	if msg := fmt.Sprintf(format, args...); l.prefix != "" && strings.HasPrefix(msg, l.prefix) {
		report(map[string]any{"event": "log", "level": level, "message": msg})
	}
}

// invocationOrder is the order the adaptation logged last.
func (l *recordingLogger) invocationOrder() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string{}, l.order...)
}

func (l *recordingLogger) Debugf(ctx context.Context, format string, args ...interface{}) {
	l.emit("debug", format, args)
	l.next.Debugf(ctx, format, args...)
}

func (l *recordingLogger) Infof(ctx context.Context, format string, args ...interface{}) {
	l.emit("info", format, args)
	l.next.Infof(ctx, format, args...)
}

func (l *recordingLogger) Warnf(ctx context.Context, format string, args ...interface{}) {
	l.emit("warn", format, args)
	l.next.Warnf(ctx, format, args...)
}

func (l *recordingLogger) Errorf(ctx context.Context, format string, args ...interface{}) {
	l.emit("error", format, args)
	l.next.Errorf(ctx, format, args...)
}
