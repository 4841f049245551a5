// Command stub-host is a container runtime in miniature for the @nri-ts/stub
// conformance tests: it runs the upstream NRI adaptation
// (github.com/containerd/nri/pkg/adaptation), which hosts plugins exactly as
// containerd and CRI-O do, and drives it with commands read as JSON lines on
// stdin, answering and reporting as JSON lines on stdout.
//
//	stub-host [-socket PATH] [-plugin-path DIR] [-plugin-config-path DIR]
//	          [-request-timeout D] [-registration-timeout D]
//	          [-runtime-name NAME] [-runtime-version V]
//
// Without -socket, external connections are disabled; without -plugin-path
// no plugin is launched. The adaptation's own log goes to stderr.
//
// Commands, one JSON object per line; each is answered with a line echoing
// its "id" and "op", plus "response" (protojson) or "error" (text):
//
//	{"op":"start"}                                   Start(): launch, register and sync pre-installed plugins, listen
//	{"op":"wait-sync","count":N}                     wait until N plugins have connected (after start),
//	                                                 synchronized and been added
//	{"op":"state","pods":[...],"containers":[...]}   what plugins get in Synchronize from now on
//	{"op":"fail-updates","ids":[...]}                UpdateContainers reports updates of these containers as failed
//	{"op":"<Event>","request":{...}[,"deadlineMs":N]} relay a request to the plugins (with N: under a runtime
//	                                                 context that expires after N ms): RunPodSandbox,
//	                                                 UpdatePodSandbox, PostUpdatePodSandbox, StopPodSandbox,
//	                                                 RemovePodSandbox, CreateContainer, PostCreateContainer,
//	                                                 StartContainer, PostStartContainer, UpdateContainer,
//	                                                 PostUpdateContainer, StopContainer, RemoveContainer
//	{"op":"request-timeout","timeoutMs":N}           the plugin request timeout from now on (as -request-timeout;
//	                                                 plugins configured before were told the old one)
//	{"op":"plugins"}                                 {"count":N}: how many plugins were registered after the
//	                                                 last request (the adaptation's UpdatePluginCount)
//	{"op":"bench","count":N,"request":{...}}         N CreateContainer calls one after another; the response
//	                                                 is {"ns":[...]}, the duration of each
//	{"op":"stop"}                                    Stop() (kills launched plugins) and exit
//
// Unsolicited lines: {"event":"synced","updates":[...],"error":E} after each
// Synchronize, {"event":"update","updates":[...]} for each UpdateContainers,
// {"event":"plugin-closed","plugin":NAME} when the adaptation sees a plugin's
// connection close (from its log line, see closes.go).
//
// Run as "stub-host plugin ..." it is instead a Go plugin built on
// github.com/containerd/nri/pkg/stub, the reference to compare ours with;
// see plugin.go.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// line is one JSON line written to stdout.
type line map[string]any

var stdout = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

func emit(l line) {
	stdout.Lock()
	defer stdout.Unlock()
	if err := stdout.enc.Encode(l); err != nil {
		fmt.Fprintf(os.Stderr, "stub-host: cannot write: %v\n", err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "plugin" {
		runPlugin(os.Args[2:])
		return
	}

	host, err := newHost(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "stub-host: %v\n", err)
		os.Exit(2)
	}

	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for scanner.Scan() {
		var cmd command
		if err := json.Unmarshal(scanner.Bytes(), &cmd); err != nil {
			emit(line{"error": fmt.Sprintf("bad command: %v", err)})
			continue
		}
		reply := line{"id": cmd.ID, "op": cmd.Op}
		response, err := host.do(&cmd)
		if err != nil {
			reply["error"] = err.Error()
		} else if response != nil {
			reply["response"] = response
		}
		emit(reply)
		if cmd.Op == "stop" {
			return
		}
	}
	host.adaptation.Stop()
}
