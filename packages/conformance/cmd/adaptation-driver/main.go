// Command adaptation-driver runs the upstream Go adaptation
// (github.com/containerd/nri/pkg/adaptation) as a runtime would, for the
// @nri-ts/adaptation conformance tests and benchmarks: it plays a scenario
// of lifecycle requests against the plugins that connect to its socket and
// reports what the Go adaptation answered, so that the tests can compare
// with what ours answers for the same scenario and plugins.
//
//	-socket PATH      where external plugins connect
//	-plugins N        wait for N plugins to connect and synchronize first
//	-scenario FILE    the scenario (JSON, see scenario.go)
//	-timeout-ms N     the plugin request timeout
//	-bench N          instead of the steps, time N rounds of the scenario's
//	                  first CreateContainer (a fresh copy of the request each)
//	-sync-containers N  give each plugin N containers to synchronize with,
//	                  and report how long that took and the peak RSS so far
//	-plugin-dir DIR   pre-installed plugins (WASM modules, programs), as /opt/nri/plugins
//	-config-dir DIR   their configuration, as /etc/nri/conf.d
//	-log-prefix TEXT  report the adaptation's log lines that start with TEXT
//
// Output, JSON lines on stdout: {"event":"started",...} with how long
// Start took (pre-installed plugins loaded, configured and synchronized) and
// the RSS before and after, {"event":"ready"} once listening,
// {"event":"synced","updates":[...]} per synchronized plugin,
// {"event":"result",...} per step, {"event":"bench",...}, {"event":"log",...} per reported log line,
// {"event":"plugins","names":[...]} (the invocation order once every plugin
// is in) and {"event":"done"}.
// Messages travel as base64 protobuf, errors as Go's error text.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/nri/pkg/adaptation"
	nrilog "github.com/containerd/nri/pkg/log"
	validator "github.com/containerd/nri/plugins/default-validator/builtin"
	"google.golang.org/protobuf/proto"
)

var (
	outMu sync.Mutex
	out   = json.NewEncoder(os.Stdout)
)

func report(event map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = out.Encode(event)
}

func fail(format string, args ...any) {
	report(map[string]any{"event": "fatal", "error": fmt.Sprintf(format, args...)})
	os.Exit(1)
}

func encode(m proto.Message) string {
	if m == nil {
		return ""
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		fail("marshal %T: %v", m, err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func main() {
	var (
		socket         = flag.String("socket", "", "socket for external plugins")
		plugins        = flag.Int("plugins", 0, "plugins to wait for")
		scenarioFile   = flag.String("scenario", "", "scenario file")
		timeoutMs      = flag.Int("timeout-ms", 2000, "plugin request timeout")
		bench          = flag.Int("bench", 0, "time this many CreateContainer rounds")
		syncContainers = flag.Int("sync-containers", 0, "synchronize plugins with this many containers")
		pluginDir      = flag.String("plugin-dir", "/nonexistent/nri-ts/plugins", "pre-installed plugins")
		configDir      = flag.String("config-dir", "/nonexistent/nri-ts/conf.d", "their configuration")
		logPrefix      = flag.String("log-prefix", "", "report log lines with this prefix")
	)
	flag.Parse()
	logger := &recordingLogger{prefix: *logPrefix, next: nrilog.Get()}
	nrilog.Set(logger)

	sc, err := loadScenario(*scenarioFile)
	if err != nil {
		fail("%v", err)
	}
	adaptation.SetPluginRequestTimeout(time.Duration(*timeoutMs) * time.Millisecond)

	synced := make(chan struct{}, 1024)
	pods, ctrs := sc.pods, sc.containers
	// The RSS with the code loaded, then with the containers generated: where
	// the RSS before a synchronization comes from, measured as the bench
	// measures ours.
	rssLoaded := currentRSSKB()
	if *syncContainers > 0 {
		pods, ctrs = generateState(*syncContainers)
	}
	rssState := currentRSSKB()
	syncFn := func(ctx context.Context, cb adaptation.SyncCB) error {
		rssBefore := currentRSSKB()
		start := time.Now()
		updates, err := cb(ctx, pods, ctrs)
		seconds := time.Since(start).Seconds()
		encoded := make([]string, 0, len(updates))
		for _, u := range updates {
			encoded = append(encoded, encode(u))
		}
		report(map[string]any{
			"event":       "synced",
			"updates":     encoded,
			"seconds":     seconds,
			"rssLoadedKB": rssLoaded,
			"rssStateKB":  rssState,
			"rssBeforeKB": rssBefore,
			"maxRSSKB":    maxRSSKB(),
			"error":       errText(err),
		})
		synced <- struct{}{}
		return err
	}
	updateFn := func(_ context.Context, updates []*adaptation.ContainerUpdate) ([]*adaptation.ContainerUpdate, error) {
		encoded := make([]string, 0, len(updates))
		for _, u := range updates {
			encoded = append(encoded, encode(u))
		}
		report(map[string]any{"event": "unsolicited", "updates": encoded})
		return nil, nil
	}

	opts := []adaptation.Option{
		adaptation.WithSocketPath(*socket),
		adaptation.WithPluginPath(*pluginDir),
		adaptation.WithPluginConfigPath(*configDir),
	}
	if sc.defaultValidator != nil {
		opts = append(opts, adaptation.WithDefaultValidator(sc.defaultValidator))
	}
	rssBeforeStart := currentRSSKB()
	r, err := adaptation.New("conformance", "v0.0.1", syncFn, updateFn, opts...)
	if err != nil {
		fail("%v", err)
	}
	start := time.Now()
	if err := r.Start(); err != nil {
		fail("%v", err)
	}
	defer r.Stop()
	report(map[string]any{
		"event":       "started",
		"seconds":     time.Since(start).Seconds(),
		"rssBeforeKB": rssBeforeStart,
		"rssKB":       currentRSSKB(),
	})
	report(map[string]any{"event": "ready"})

	// Start synchronized the (no) pre-installed plugins; then each external one.
	<-synced
	for range *plugins {
		<-synced
	}
	// The last plugin is in once its synchronization lock is released.
	r.BlockPluginSync().Unblock()
	report(map[string]any{"event": "plugins", "names": logger.invocationOrder()})

	if *bench > 0 {
		runBench(r, sc, *bench)
	} else {
		for _, step := range sc.steps {
			report(runStep(r, step))
		}
	}
	report(map[string]any{"event": "done"})
}

// maxRSSKB is the largest resident set this process has had, in KiB.
func maxRSSKB() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return usage.Maxrss
}

// cpuSeconds is the CPU time this process has used so far, user and system, all threads.
func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

// currentRSSKB is this process's resident set now, in KiB (from /proc/self/statm).
func currentRSSKB() int64 {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident int64
	if _, err := fmt.Sscan(string(statm), &size, &resident); err != nil {
		return 0
	}
	return resident * int64(os.Getpagesize()) / 1024
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func runBench(r *adaptation.Adaptation, sc *scenario, rounds int) {
	var request *step
	for i := range sc.steps {
		if sc.steps[i].Op == "CreateContainer" {
			request = &sc.steps[i]
			break
		}
	}
	if request == nil {
		fail("no CreateContainer step to time")
	}
	template := &adaptation.CreateContainerRequest{}
	request.decode(template)
	ctx := context.Background()
	failures := 0
	latencies := make([]float64, rounds) // µs, each request's own
	cpuBefore := cpuSeconds()
	start := time.Now()
	for i := range rounds {
		began := time.Now()
		if _, err := r.CreateContainer(ctx, proto.Clone(template).(*adaptation.CreateContainerRequest)); err != nil {
			failures++
		}
		latencies[i] = float64(time.Since(began).Nanoseconds()) / 1e3
	}
	report(map[string]any{
		"event":       "bench",
		"op":          "CreateContainer",
		"rounds":      rounds,
		"failures":    failures,
		"seconds":     time.Since(start).Seconds(),
		"cpuSeconds":  cpuSeconds() - cpuBefore,
		"latenciesUs": latencies,
	})
}

// defaultValidatorFromJSON reads the default validator's settings by their YAML names.
func defaultValidatorFromJSON(raw json.RawMessage) (*validator.DefaultValidatorConfig, error) {
	var c struct {
		Enable                                bool     `json:"enable"`
		RejectOCIHookAdjustment               bool     `json:"rejectOCIHookAdjustment"`
		RejectRuntimeDefaultSeccompAdjustment bool     `json:"rejectRuntimeDefaultSeccompAdjustment"`
		RejectUnconfinedSeccompAdjustment     bool     `json:"rejectUnconfinedSeccompAdjustment"`
		RejectCustomSeccompAdjustment         bool     `json:"rejectCustomSeccompAdjustment"`
		RejectNamespaceAdjustment             bool     `json:"rejectNamespaceAdjustment"`
		RejectSysctlAdjustment                bool     `json:"rejectSysctlAdjustment"`
		RequiredPlugins                       []string `json:"requiredPlugins"`
		TolerateMissingPluginsAnnotation      string   `json:"tolerateMissingPluginsAnnotation"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("invalid default validator config: %w", err)
	}
	return &validator.DefaultValidatorConfig{
		Enable:                                c.Enable,
		RejectOCIHookAdjustment:               c.RejectOCIHookAdjustment,
		RejectRuntimeDefaultSeccompAdjustment: c.RejectRuntimeDefaultSeccompAdjustment,
		RejectUnconfinedSeccompAdjustment:     c.RejectUnconfinedSeccompAdjustment,
		RejectCustomSeccompAdjustment:         c.RejectCustomSeccompAdjustment,
		RejectNamespaceAdjustment:             c.RejectNamespaceAdjustment,
		RejectSysctlAdjustment:                c.RejectSysctlAdjustment,
		RequiredPlugins:                       c.RequiredPlugins,
		TolerateMissingAnnotation:             c.TolerateMissingPluginsAnnotation,
	}, nil
}
