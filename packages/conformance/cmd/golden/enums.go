package main

import (
	"sort"

	api "github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/proto"
)

// enumVectors encodes every value of every enum of the API, each in the
// smallest message that carries it. Names read enum-<Enum>-<VALUE>, so the
// TypeScript side can check that value names and numbers agree.
func enumVectors() []named {
	var out []named
	add := func(enum string, names map[int32]string, wrap func(int32) proto.Message) {
		numbers := make([]int32, 0, len(names))
		for n := range names {
			numbers = append(numbers, n)
		}
		sort.Slice(numbers, func(i, j int) bool { return numbers[i] < numbers[j] })
		for _, n := range numbers {
			out = append(out, named{"enum-" + enum + "-" + names[n], wrap(n)})
		}
	}
	add("Event", api.Event_name, func(n int32) proto.Message {
		return &api.StateChangeEvent{Event: api.Event(n)}
	})
	add("ContainerState", api.ContainerState_name, func(n int32) proto.Message {
		return &api.Container{State: api.ContainerState(n)}
	})
	add("IOPrioClass", api.IOPrioClass_name, func(n int32) proto.Message {
		return &api.LinuxIOPriority{Class: api.IOPrioClass(n)}
	})
	add("LinuxSchedulerPolicy", api.LinuxSchedulerPolicy_name, func(n int32) proto.Message {
		return &api.LinuxScheduler{Policy: api.LinuxSchedulerPolicy(n)}
	})
	add("LinuxSchedulerFlag", api.LinuxSchedulerFlag_name, func(n int32) proto.Message {
		return &api.LinuxScheduler{Flags: []api.LinuxSchedulerFlag{api.LinuxSchedulerFlag(n)}}
	})
	add("MpolMode", api.MpolMode_name, func(n int32) proto.Message {
		return &api.LinuxMemoryPolicy{Mode: api.MpolMode(n)}
	})
	add("MpolFlag", api.MpolFlag_name, func(n int32) proto.Message {
		return &api.LinuxMemoryPolicy{Flags: []api.MpolFlag{api.MpolFlag(n)}}
	})
	add("SecurityProfile_ProfileType", api.SecurityProfile_ProfileType_name, func(n int32) proto.Message {
		return &api.SecurityProfile{ProfileType: api.SecurityProfile_ProfileType(n)}
	})
	add("LogRequest_Level", api.LogRequest_Level_name, func(n int32) proto.Message {
		return &api.LogRequest{Level: api.LogRequest_Level(n)}
	})
	add("Field", api.Field_name, func(n int32) proto.Message {
		return &api.FieldOwners{Simple: map[int32]string{n: "10-golden"}}
	})
	return out
}
