package main

import (
	"context"
	"syscall"
	"time"
)

type timing struct {
	Iterations int `json:"iterations"`
	// NsPerOp is wall-clock time per run.
	NsPerOp float64 `json:"nsPerOp"`
	// CPUNsPerOp is the process's CPU time (user and system, all threads,
	// the garbage collector's included) per run.
	CPUNsPerOp float64 `json:"cpuNsPerOp"`
	// Error is the last run's error text, so the caller can check that the
	// runs failed as intended (a conflict scenario) or did not.
	Error string `json:"error,omitempty"`
}

func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// timeScenario times n runs of the scenario's request in one adaptation,
// after n/10 warm-up runs. Each run decodes the request and each plugin its
// response from bytes, as a runtime and a plugin would; nothing is recorded.
func timeScenario(sc *scenario, emptyDir string, n int) any {
	a, err := sc.startAdaptation(emptyDir, nil)
	if err != nil {
		return map[string]string{"fatal": err.Error()}
	}
	defer a.Stop()

	ctx := context.Background()
	var last error
	for range n / 10 {
		_, _, _, last = sc.call(ctx, a)
	}
	start, startCPU := time.Now(), cpuTime()
	for range n {
		_, _, _, last = sc.call(ctx, a)
	}
	elapsed, cpu := time.Since(start), cpuTime()-startCPU

	t := timing{
		Iterations: n,
		NsPerOp:    float64(elapsed.Nanoseconds()) / float64(n),
		CPUNsPerOp: float64(cpu.Nanoseconds()) / float64(n),
	}
	if last != nil {
		t.Error = last.Error()
	}
	return t
}
