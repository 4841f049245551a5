package main

import (
	"math"

	api "github.com/containerd/nri/pkg/api"
)

// Unix-epoch nanosecond timestamps in 2026; all exceed 2^53.
const (
	createdAt  int64 = 1767323045123456789 // 2026-01-02T03:04:05.123456789Z
	startedAt  int64 = 1767323046000000001 // 2026-01-02T03:04:06.000000001Z
	finishedAt int64 = 1773500966535897932 // 2026-03-14T15:09:26.535897932Z
)

// Values a float64 cannot hold exactly: 2^53 + 1 and its negation.
const (
	beyond53   int64 = 9007199254740993
	belowNeg53 int64 = -9007199254740993
)

const (
	maxUint64   = uint64(math.MaxUint64)
	maxUint32   = uint32(math.MaxUint32)
	nriVersion  = "v0.12.5"
	oomMessage  = "内存不足 — container exceeded its 512 MiB limit 🚫"
	oomKilledID = "4f6c0d3e9a7b"
)

func messageVectors() []named {
	return []named{
		{"container-full", fullContainer()},
		{"container-status-only", statusOnlyContainer()},
		{"container-extremes", extremeContainer()},
		{"container-unknown-state", &api.Container{Id: "ctr-future", State: api.ContainerState(42)}},
		{"pod-sandbox-full", fullPod()},
		{"linux-resources-full", fullResources()},
		{"linux-memory-zero-wrappers", zeroWrapperMemory()},
		{"container-adjustment-removals", adjustmentWithRemovals()},
		{"optional-string", &api.OptionalString{Value: "gold ✓"}},
		{"optional-string-empty", &api.OptionalString{}},
		{"optional-repeated-string", &api.OptionalRepeatedString{Value: []string{"L3:0=ff", "", "MB:0=50"}}},
		{"optional-int", &api.OptionalInt{Value: -1000}},
		{"optional-int32", &api.OptionalInt32{Value: math.MinInt32}},
		{"optional-uint32", &api.OptionalUInt32{Value: maxUint32}},
		{"optional-int64", &api.OptionalInt64{Value: belowNeg53}},
		{"optional-uint64", &api.OptionalUInt64{Value: maxUint64}},
		{"optional-bool", &api.OptionalBool{Value: true}},
		{"optional-file-mode", &api.OptionalFileMode{Value: 0o20000000666}},
		{"configure-request", configureRequest()},
		{"configure-response", &api.ConfigureResponse{Events: 1<<3 | 1<<5 | 1<<9 | 1<<13}},
		{"configure-response-empty-policy", &api.ConfigureResponse{Events: 1, FailurePolicy: &api.FailurePolicy{}}},
		{"configure-response-fail-request", &api.ConfigureResponse{Events: 1, FailurePolicy: &api.FailurePolicy{FailRequest: true}}},
		{"configure-response-keep-connected", &api.ConfigureResponse{Events: 1, FailurePolicy: &api.FailurePolicy{KeepConnected: true}}},
		{"configure-response-full-policy", &api.ConfigureResponse{Events: 1, FailurePolicy: &api.FailurePolicy{FailRequest: true, KeepConnected: true}}},
		{"failure-policy-full", &api.FailurePolicy{FailRequest: true, KeepConnected: true}},
		{"synchronize-request", synchronizeRequest()},
		{"synchronize-response", &api.SynchronizeResponse{Update: []*api.ContainerUpdate{memoryUpdate()}, More: true}},
		{"create-container-request", &api.CreateContainerRequest{Pod: fullPod(), Container: fullContainer()}},
		{"create-container-response", createContainerResponse()},
		{"update-container-request", &api.UpdateContainerRequest{Pod: fullPod(), Container: statusOnlyContainer(), LinuxResources: fullResources()}},
		{"update-container-response", &api.UpdateContainerResponse{Update: []*api.ContainerUpdate{memoryUpdate(), cpuUpdate()}, Evict: []*api.ContainerEviction{eviction()}}},
		{"stop-container-response", &api.StopContainerResponse{Update: []*api.ContainerUpdate{cpuUpdate()}}},
		{"validate-container-adjustment-request", validateRequest()},
		{"validate-container-adjustment-response", &api.ValidateContainerAdjustmentResponse{Reject: true, Reason: "10-golden: memory limit 512 MiB < requested 1 GiB ✗"}},
		{"state-change-event", &api.StateChangeEvent{Event: api.Event_CREATE_CONTAINER, Pod: fullPod(), Container: fullContainer()}},
		{"register-plugin-request", &api.RegisterPluginRequest{PluginName: "golden", PluginIdx: "10", NRIVersion: nriVersion}},
		{"update-containers-request", &api.UpdateContainersRequest{Update: []*api.ContainerUpdate{memoryUpdate(), cpuUpdate()}, Evict: []*api.ContainerEviction{eviction(), {ContainerId: "ctr-idle"}}}},
		{"update-containers-response", &api.UpdateContainersResponse{Failed: []*api.ContainerUpdate{cpuUpdate()}}},
		{"empty", &api.Empty{}},
		{"unicode-strings", unicodeEviction()},
	}
}

func fullContainer() *api.Container {
	return &api.Container{
		Id:           oomKilledID,
		PodSandboxId: "pod-7e21",
		Name:         "app",
		State:        api.ContainerState_CONTAINER_STOPPED,
		Labels: map[string]string{
			"io.kubernetes.container.name": "app",
			"tier":                         "backend",
		},
		Annotations: map[string]string{
			"io.kubernetes.container.restartCount": "3",
			"example.com/note":                     "日本語のメモ",
		},
		Args: []string{"/bin/app", "--port=8080", ""},
		Env:  []string{"PATH=/usr/bin:/bin", "GREETING=grüß dich"},
		Mounts: []*api.Mount{
			{Destination: "/data", Type: "bind", Source: "/var/lib/data", Options: []string{"rbind", "ro"}},
			{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
		},
		Hooks: fullHooks(),
		Linux: fullLinuxContainer(),
		Pid:   4242,
		Rlimits: []*api.POSIXRlimit{
			{Type: "RLIMIT_NOFILE", Hard: 1048576, Soft: 1024},
			{Type: "RLIMIT_CORE", Hard: maxUint64, Soft: maxUint64},
		},
		CreatedAt:     createdAt,
		StartedAt:     startedAt,
		FinishedAt:    finishedAt,
		ExitCode:      137,
		StatusReason:  "OOMKilled",
		StatusMessage: oomMessage,
		CDIDevices:    []*api.CDIDevice{{Name: "nvidia.com/gpu=0"}, {Name: "vendor.example/fpga=all"}},
		User:          &api.User{Uid: 65534, Gid: 65534, AdditionalGids: []uint32{4, 24, maxUint32 - 1}},
		Image: &api.Image{
			Name:         "registry.k8s.io/app:1.2.3",
			Digest:       "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			ConfigDigest: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
		},
	}
}

// statusOnlyContainer sets fields 14 to 19 and nothing else.
func statusOnlyContainer() *api.Container {
	return &api.Container{
		CreatedAt:     createdAt,
		StartedAt:     startedAt,
		FinishedAt:    finishedAt,
		ExitCode:      -1,
		StatusReason:  "Error",
		StatusMessage: `hook "10-audit" failed: exec: "audit": executable file not found in $PATH`,
	}
}

// extremeContainer puts the limits of each status field type on the wire.
func extremeContainer() *api.Container {
	return &api.Container{
		Id:         "ctr-extremes",
		Pid:        maxUint32,
		CreatedAt:  math.MaxInt64,
		StartedAt:  -1,
		FinishedAt: math.MinInt64,
		ExitCode:   math.MinInt32,
	}
}

func fullHooks() *api.Hooks {
	return &api.Hooks{
		Prestart:        []*api.Hook{{Path: "/usr/bin/prestart", Args: []string{"prestart", "--verbose"}, Env: []string{"A=1"}, Timeout: &api.OptionalInt{Value: 5}}},
		CreateRuntime:   []*api.Hook{{Path: "/usr/libexec/oci/hooks.d/gpu"}},
		CreateContainer: []*api.Hook{{Path: "/bin/create-ctr", Timeout: &api.OptionalInt{Value: 0}}},
		StartContainer:  []*api.Hook{{Path: "/bin/start-ctr", Args: []string{"start-ctr"}}},
		Poststart:       []*api.Hook{{Path: "/bin/poststart", Env: []string{"WHO=ünïcödé"}}},
		Poststop:        []*api.Hook{{Path: "/bin/poststop", Timeout: &api.OptionalInt{Value: -1}}},
	}
}

func fullLinuxContainer() *api.LinuxContainer {
	return &api.LinuxContainer{
		Namespaces: []*api.LinuxNamespace{
			{Type: "pid"},
			{Type: "network", Path: "/var/run/netns/cni-5e1f"},
			{Type: "mount"},
		},
		Devices: []*api.LinuxDevice{
			{
				Path: "/dev/fuse", Type: "c", Major: 10, Minor: 229,
				FileMode: &api.OptionalFileMode{Value: 0o666},
				Uid:      &api.OptionalUInt32{Value: 0},
				Gid:      &api.OptionalUInt32{Value: maxUint32},
			},
			{Path: "/dev/odd", Type: "b", Major: 4294967296, Minor: belowNeg53},
		},
		Resources:      fullResources(),
		OomScoreAdj:    &api.OptionalInt{Value: -998},
		CgroupsPath:    "kubepods-burstable-pod7e21.slice:cri-containerd:4f6c0d3e9a7b",
		IoPriority:     &api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_BE, Priority: 7},
		SeccompProfile: &api.SecurityProfile{ProfileType: api.SecurityProfile_LOCALHOST, LocalhostRef: "profiles/audit.json"},
		SeccompPolicy:  fullSeccomp(),
		Sysctl:         map[string]string{"net.ipv4.ip_forward": "1", "kernel.shm_rmid_forced": "1"},
		NetDevices: map[string]*api.LinuxNetDevice{
			"eth1": {Name: "net1"},
			"ib0":  {Name: "ib-ü"},
		},
		Scheduler: &api.LinuxScheduler{
			Policy:   api.LinuxSchedulerPolicy_SCHED_DEADLINE,
			Nice:     -20,
			Priority: 5,
			Flags: []api.LinuxSchedulerFlag{
				api.LinuxSchedulerFlag_SCHED_FLAG_RESET_ON_FORK,
				api.LinuxSchedulerFlag_SCHED_FLAG_DL_OVERRUN,
				api.LinuxSchedulerFlag_SCHED_FLAG_UTIL_CLAMP_MAX,
			},
			Runtime:  10000000,
			Deadline: 20000000,
			Period:   maxUint64,
		},
		Rdt: &api.LinuxRdt{
			ClosId:           &api.OptionalString{Value: "gold"},
			Schemata:         &api.OptionalRepeatedString{Value: []string{"L3:0=ff", "MB:0=50"}},
			EnableMonitoring: &api.OptionalBool{Value: true},
		},
	}
}

func fullSeccomp() *api.LinuxSeccomp {
	return &api.LinuxSeccomp{
		DefaultAction:    "SCMP_ACT_ERRNO",
		DefaultErrno:     &api.OptionalUInt32{Value: 38},
		Architectures:    []string{"SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"},
		Flags:            []string{"SECCOMP_FILTER_FLAG_LOG"},
		ListenerPath:     "/run/seccomp-agent.sock",
		ListenerMetadata: "golden",
		Syscalls: []*api.LinuxSyscall{
			{Names: []string{"read", "write"}, Action: "SCMP_ACT_ALLOW"},
			{
				Names:    []string{"personality"},
				Action:   "SCMP_ACT_ERRNO",
				ErrnoRet: &api.OptionalUInt32{Value: 1},
				Args: []*api.LinuxSeccompArg{
					{Index: 0, Value: 8, ValueTwo: maxUint64, Op: "SCMP_CMP_MASKED_EQ"},
					{Index: 5, Op: "SCMP_CMP_EQ"},
				},
			},
		},
	}
}

// fullResources sets every field of LinuxResources, including wrappers
// holding zero or an empty string (present, unlike an absent wrapper).
func fullResources() *api.LinuxResources {
	return &api.LinuxResources{
		Memory: &api.LinuxMemory{
			Limit:            &api.OptionalInt64{Value: beyond53},
			Reservation:      &api.OptionalInt64{Value: 268435456},
			Swap:             &api.OptionalInt64{Value: -1},
			Kernel:           &api.OptionalInt64{Value: 0},
			KernelTcp:        &api.OptionalInt64{Value: 67108864},
			Swappiness:       &api.OptionalUInt64{Value: 60},
			DisableOomKiller: &api.OptionalBool{Value: false},
			UseHierarchy:     &api.OptionalBool{Value: true},
		},
		Cpu: &api.LinuxCPU{
			Shares:          &api.OptionalUInt64{Value: 1024},
			Quota:           &api.OptionalInt64{Value: -1},
			Period:          &api.OptionalUInt64{Value: 100000},
			RealtimeRuntime: &api.OptionalInt64{Value: 950000},
			RealtimePeriod:  &api.OptionalUInt64{Value: 1000000},
			Cpus:            "0-3,8",
			Mems:            "0",
		},
		HugepageLimits: []*api.HugepageLimit{
			{PageSize: "2MB", Limit: 1073741824},
			{PageSize: "1GB", Limit: maxUint64},
		},
		BlockioClass: &api.OptionalString{Value: "throttled"},
		RdtClass:     &api.OptionalString{Value: ""},
		Unified:      map[string]string{"memory.high": "805306368", "cpu.weight": "79", "io.max": ""},
		Devices: []*api.LinuxDeviceCgroup{
			{Allow: false, Access: "rwm"},
			{Allow: true, Type: "c", Major: &api.OptionalInt64{Value: 10}, Minor: &api.OptionalInt64{Value: 200}, Access: "rwm"},
			{Allow: true, Type: "b", Major: &api.OptionalInt64{Value: 259}, Minor: &api.OptionalInt64{Value: -1}, Access: "r"},
		},
		Pids: &api.LinuxPids{Limit: -1},
	}
}

// zeroWrapperMemory has wrappers that are present but hold zero values.
func zeroWrapperMemory() *api.LinuxMemory {
	return &api.LinuxMemory{
		Limit:            &api.OptionalInt64{},
		Swappiness:       &api.OptionalUInt64{},
		DisableOomKiller: &api.OptionalBool{},
	}
}

func fullPod() *api.PodSandbox {
	return &api.PodSandbox{
		Id:        "pod-7e21",
		Name:      "web-0",
		Uid:       "c0ffee00-1234-4abc-8def-000000000001",
		Namespace: "production",
		Labels: map[string]string{
			"app":                                "web",
			"statefulset.kubernetes.io/pod-name": "web-0",
		},
		Annotations: map[string]string{
			"kubernetes.io/config.source": "api",
			"note.example.com/ünicode":    "✓ ready",
		},
		RuntimeHandler: "runc",
		Linux: &api.LinuxPodSandbox{
			PodOverhead: &api.LinuxResources{
				Cpu:    &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 2}},
				Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: 134217728}},
			},
			PodResources: fullResources(),
			CgroupParent: "kubepods-burstable-pod7e21.slice",
			CgroupsPath:  "kubepods-burstable-pod7e21.slice:cri-containerd:pod-7e21",
			Namespaces: []*api.LinuxNamespace{
				{Type: "network", Path: "/var/run/netns/cni-5e1f"},
				{Type: "ipc"},
			},
			Resources: &api.LinuxResources{
				Cpu:  &api.LinuxCPU{Quota: &api.OptionalInt64{Value: 200000}, Period: &api.OptionalUInt64{Value: 100000}},
				Pids: &api.LinuxPids{Limit: 4096},
			},
		},
		Pid: 4100,
		Ips: []string{"10.244.1.17", "fd00:10:244:1::11"},
	}
}

// adjustmentWithRemovals is built with the upstream helpers, so the removal
// markers are exactly what a Go plugin sends.
func adjustmentWithRemovals() *api.ContainerAdjustment {
	a := &api.ContainerAdjustment{}
	a.RemoveAnnotation("example.com/stale")
	a.AddAnnotation("example.com/owner", "10-golden")
	a.RemoveMount("/tmp/old")
	a.AddMount(&api.Mount{Destination: "/cache", Type: "tmpfs", Source: "tmpfs", Options: []string{"size=64m"}})
	a.RemoveEnv("DEBUG")
	a.AddEnv("LOG_LEVEL", "info")
	a.AddHooks(&api.Hooks{Poststart: []*api.Hook{{Path: "/bin/notify", Args: []string{"notify", "started"}}}})
	a.AddRlimit("RLIMIT_NPROC", 4096, 2048)
	a.RemoveDevice("/dev/old")
	a.AddDevice(&api.LinuxDevice{Path: "/dev/golden", Type: "c", Major: 240, Minor: 1, FileMode: &api.OptionalFileMode{Value: 0o600}})
	a.AddCDIDevice(&api.CDIDevice{Name: "vendor.example/gpu=0"})
	a.RemoveNamespace(&api.LinuxNamespace{Type: "network"})
	a.AddOrReplaceNamespace(&api.LinuxNamespace{Type: "cgroup"})
	a.RemoveLinuxNetDevice("eth9")
	a.AddLinuxNetDevice("eth1", &api.LinuxNetDevice{Name: "golden0"})
	a.SetLinuxMemoryPolicy(api.MpolMode_MPOL_INTERLEAVE, "0-1", api.MpolFlag_MPOL_F_STATIC_NODES, api.MpolFlag_MPOL_F_NUMA_BALANCING)
	a.SetLinuxMemoryLimit(536870912)
	a.SetLinuxCPUSetCPUs("2-3")
	a.AddLinuxUnified("memory.oom.group", "1")
	a.RemoveLinuxRDT()
	a.SetLinuxCgroupsPath("/golden/ctr")
	oomScoreAdj := 1000
	a.SetLinuxOomScoreAdj(&oomScoreAdj)
	a.SetLinuxIOPriority(&api.LinuxIOPriority{Class: api.IOPrioClass_IOPRIO_CLASS_RT})
	a.SetLinuxSeccompPolicy(&api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ALLOW"})
	a.SetLinuxSysctl("-net.core.somaxconn", "")
	a.SetLinuxSysctl("net.ipv4.tcp_keepalive_time", "600")
	a.SetLinuxScheduler(&api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy_SCHED_FIFO, Priority: 50})
	a.UpdateArgs([]string{"/bin/golden", "--flag"})
	return a
}

func configureRequest() *api.ConfigureRequest {
	return &api.ConfigureRequest{
		Config:              "mode: strict\nlabel: \"café ☕\"\n",
		RuntimeName:         "containerd",
		RuntimeVersion:      "v2.2.0",
		RegistrationTimeout: 5000,
		RequestTimeout:      2000,
		NRIVersion:          nriVersion,
	}
}

func synchronizeRequest() *api.SynchronizeRequest {
	running := &api.Container{
		Id:           "ctr-running",
		PodSandboxId: "pod-7e21",
		Name:         "sidecar",
		State:        api.ContainerState_CONTAINER_RUNNING,
		Pid:          4301,
		CreatedAt:    createdAt,
		StartedAt:    startedAt,
	}
	return &api.SynchronizeRequest{
		Pods:       []*api.PodSandbox{fullPod(), {Id: "pod-empty"}},
		Containers: []*api.Container{fullContainer(), running},
		More:       true,
	}
}

func memoryUpdate() *api.ContainerUpdate {
	return &api.ContainerUpdate{
		ContainerId: oomKilledID,
		Linux: &api.LinuxContainerUpdate{Resources: &api.LinuxResources{
			Memory: &api.LinuxMemory{Limit: &api.OptionalInt64{Value: beyond53}, Swap: &api.OptionalInt64{Value: -1}},
		}},
	}
}

func cpuUpdate() *api.ContainerUpdate {
	return &api.ContainerUpdate{
		ContainerId: "ctr-running",
		Linux: &api.LinuxContainerUpdate{Resources: &api.LinuxResources{
			Cpu: &api.LinuxCPU{Shares: &api.OptionalUInt64{Value: 512}, Cpus: "4-7"},
		}},
		IgnoreFailure: true,
	}
}

func eviction() *api.ContainerEviction {
	return &api.ContainerEviction{ContainerId: "ctr-noisy", Reason: "memory pressure: évincé"}
}

func createContainerResponse() *api.CreateContainerResponse {
	return &api.CreateContainerResponse{
		Adjust: adjustmentWithRemovals(),
		Update: []*api.ContainerUpdate{cpuUpdate()},
		Evict:  []*api.ContainerEviction{eviction()},
	}
}

func validateRequest() *api.ValidateContainerAdjustmentRequest {
	return &api.ValidateContainerAdjustmentRequest{
		Pod:       fullPod(),
		Container: fullContainer(),
		Adjust:    adjustmentWithRemovals(),
		Update:    []*api.ContainerUpdate{memoryUpdate()},
		Owners: &api.OwningPlugins{Owners: map[string]*api.FieldOwners{
			oomKilledID: {
				Simple: map[int32]string{
					int32(api.Field_MemLimit):     "10-golden",
					int32(api.Field_CPUSetCPUs):   "20-cpu",
					int32(api.Field_MemoryPolicy): "10-golden",
				},
				Compound: map[int32]*api.CompoundFieldOwners{
					int32(api.Field_Annotations): {Owners: map[string]string{"example.com/owner": "10-golden"}},
					int32(api.Field_Env):         {Owners: map[string]string{"LOG_LEVEL": "10-golden", "DEBUG": "30-ünï"}},
				},
			},
			"ctr-running": {Simple: map[int32]string{int32(api.Field_CPUShares): "20-cpu"}},
		}},
		Plugins: []*api.PluginInstance{{Name: "golden", Index: "10"}, {Name: "cpu", Index: "20"}, {Name: "ünï", Index: "30"}},
	}
}

// unicodeEviction carries strings from several scripts, combining marks,
// characters outside the BMP, right-to-left text and control characters.
func unicodeEviction() *api.ContainerEviction {
	return &api.ContainerEviction{
		ContainerId: "ctr-ü-日本-🚀",
		Reason:      "e\u0301 ß Ω Ж עברית العربية 中文 한국어 👩\u200d💻 𝄞 \u0000\t\n\u007f \uFFFD end",
	}
}
