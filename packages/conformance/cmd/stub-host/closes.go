package main

import (
	"context"
	"fmt"

	"github.com/containerd/nri/pkg/log"
)

// closeReporter is the adaptation's logger: it passes every line on to the
// logger it wraps (stderr) and reports a plugin's connection closing as
// {"event":"plugin-closed","plugin":NAME}. The adaptation logs that line
// first in the callback that then marks the plugin closed: a request relayed
// after the event skips the plugin unless it overtakes the next statements of
// that callback (a goroutine stalled between them for a whole round trip of
// the test's next command).
type closeReporter struct{ log.Logger }

func (r closeReporter) Infof(ctx context.Context, format string, args ...any) {
	r.Logger.Infof(ctx, format, args...)
	if format == "connection to plugin %q closed" && len(args) == 1 {
		emit(line{"event": "plugin-closed", "plugin": fmt.Sprint(args[0])})
	}
}
