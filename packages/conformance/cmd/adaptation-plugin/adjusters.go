package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

const (
	deviceKey = "devices.noderesource.dev"
	mountKey  = "mounts.noderesource.dev"
	ulimitKey = "ulimits.noderesource.dev"
)

// annotation looks a per-container annotation up on the pod: the key for the
// container, then the key for the whole pod.
func annotation(pod *api.PodSandbox, key, container string) (string, bool) {
	for _, k := range []string{key + "/container." + container, key + "/pod", key} {
		if v, ok := pod.GetAnnotations()[k]; ok {
			return v, true
		}
	}
	return "", false
}

type device struct {
	Path     string `json:"path"`
	Type     string `json:"type"`
	Major    int64  `json:"major"`
	Minor    int64  `json:"minor"`
	FileMode uint32 `json:"file_mode"`
	UID      uint32 `json:"uid"`
	GID      uint32 `json:"gid"`
}

type mount struct {
	Source      string   `json:"source"`
	Destination string   `json:"destination"`
	Type        string   `json:"type"`
	Options     []string `json:"options"`
}

func injectDevices(pod *api.PodSandbox, ctr *api.Container, a *api.ContainerAdjustment) error {
	if value, ok := annotation(pod, deviceKey, ctr.GetName()); ok {
		var devices []device
		if err := json.Unmarshal([]byte(value), &devices); err != nil {
			return fmt.Errorf("invalid device annotation %q: %w", value, err)
		}
		for _, d := range devices {
			ad := &api.LinuxDevice{Path: d.Path, Type: d.Type, Major: d.Major, Minor: d.Minor}
			if d.FileMode != 0 {
				ad.FileMode = api.FileMode(d.FileMode)
			}
			if d.UID != 0 {
				ad.Uid = api.UInt32(d.UID)
			}
			if d.GID != 0 {
				ad.Gid = api.UInt32(d.GID)
			}
			a.AddDevice(ad)
		}
	}
	if value, ok := annotation(pod, mountKey, ctr.GetName()); ok {
		var mounts []mount
		if err := json.Unmarshal([]byte(value), &mounts); err != nil {
			return fmt.Errorf("invalid mount annotation %q: %w", value, err)
		}
		for _, m := range mounts {
			a.AddMount(&api.Mount{Source: m.Source, Destination: m.Destination, Type: m.Type, Options: m.Options})
		}
	}
	return nil
}

type ulimit struct {
	Type string `json:"type"`
	Hard uint64 `json:"hard"`
	Soft uint64 `json:"soft"`
}

func adjustUlimits(pod *api.PodSandbox, ctr *api.Container, a *api.ContainerAdjustment) error {
	value, ok := annotation(pod, ulimitKey, ctr.GetName())
	if !ok {
		return nil
	}
	var ulimits []ulimit
	if err := json.Unmarshal([]byte(value), &ulimits); err != nil {
		return fmt.Errorf("invalid ulimit annotation %q: %w", value, err)
	}
	for _, u := range ulimits {
		typ := strings.ToUpper(u.Type)
		if !strings.HasPrefix(typ, "RLIMIT_") {
			typ = "RLIMIT_" + typ
		}
		a.AddRlimit(typ, u.Hard, u.Soft)
	}
	return nil
}
