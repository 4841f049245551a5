package main

import (
	"context"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/ttrpc"

	"github.com/nri-ts/nri-ts/packages/conformance/internal/testservice"
)

// benchResult is what bench prints.
type benchResult struct {
	Calls          int     `json:"calls"`
	Seconds        float64 `json:"seconds"`
	CallsPerSecond float64 `json:"callsPerSecond"`
	P50Us          float64 `json:"p50Us"`
	P99Us          float64 `json:"p99Us"`
	// WarmupCalls ran before the measured ones; CPUSeconds is this process's
	// user and system time during the measured calls.
	WarmupCalls int     `json:"warmupCalls"`
	CPUSeconds  float64 `json:"cpuSeconds"`
}

// bench calls Echo on one connection with inflight calls at a time for
// duration (after a warm-up of a tenth of it) and prints the figures.
func bench(socket string, inflight int, duration time.Duration, size int) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	client := ttrpc.NewClient(conn)
	defer client.Close()
	req := &ttrpc.KeyValue{Key: "bench", Value: strings.Repeat("x", size)}

	run := func(d time.Duration) ([]time.Duration, error) {
		var (
			lock      sync.Mutex
			latencies []time.Duration
			firstErr  error
			workers   sync.WaitGroup
		)
		end := time.Now().Add(d)
		for i := 0; i < inflight; i++ {
			workers.Add(1)
			go func() {
				defer workers.Done()
				var mine []time.Duration
				for time.Now().Before(end) {
					start := time.Now()
					var resp ttrpc.KeyValue
					if err := client.Call(context.Background(), testservice.Name, "Echo", req, &resp); err != nil {
						lock.Lock()
						firstErr = err
						lock.Unlock()
						return
					}
					mine = append(mine, time.Since(start))
				}
				lock.Lock()
				latencies = append(latencies, mine...)
				lock.Unlock()
			}()
		}
		workers.Wait()
		return latencies, firstErr
	}

	warmup, err := run(duration / 10)
	if err != nil {
		return err
	}
	cpuBefore := cpuTime()
	start := time.Now()
	latencies, err := run(duration)
	if err != nil {
		return err
	}
	elapsed := time.Since(start).Seconds()
	cpuSeconds := cpuTime() - cpuBefore
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	quantile := func(q float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return float64(latencies[int(q*float64(len(latencies)-1))].Nanoseconds()) / 1e3
	}
	return writeJSON(os.Stdout, benchResult{
		Calls:          len(latencies),
		Seconds:        elapsed,
		CallsPerSecond: float64(len(latencies)) / elapsed,
		P50Us:          quantile(0.5),
		P99Us:          quantile(0.99),
		WarmupCalls:    len(warmup),
		CPUSeconds:     cpuSeconds,
	})
}

// cpuTime is the user and system time of this process so far, in seconds.
func cpuTime() float64 {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
}
