package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/containerd/nri/pkg/api"
)

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// maskParse is api.ParseEventMask over the given arguments.
type maskParse struct {
	Input []string `json:"input"`
	Mask  int32    `json:"mask"`
	Error string   `json:"error"`
}

func eventMaskParses() []maskParse {
	inputs := [][]string{
		{"all"}, {"ALL"}, {"pod"}, {"POD"}, {"podsandbox"}, {"PodSandbox"}, {"container"}, {"Container"},
		{"Container,validatecontaineradjustment"},
		{" RunPodSandbox ,  stopcontainer"},
		{"\tstopcontainer\n"},
		{"CREATECONTAINER"},
		{"all,pod,container"},
		{"runpodsandbox", "stopcontainer,removecontainer"},
		{"runpodsandbox", "stopcontainer", ""},
		{},
		// Errors.
		{""}, {","}, {"all,"}, {"createContainer,,"}, {" "},
		{"bogus"}, {"all,foo"}, {"runpodsandbox,bogus"}, {"run pod sandbox"}, {"createcontainer;stopcontainer"},
		{"runpodsandbox", "nope"}, {"containers"}, {"pods"}, {"unknown"}, {"last"},
		{"runpodsandbox, Bogus"}, {"CreateContainer,Nope"}, {" bogus "},
		// Unicode: non-breaking and em space are spaces to Go and JavaScript alike.
		{"\u00a0createcontainer\u2003"},
		{"\u200bcreatecontainer"},
		{"\u0085createcontainer"},
		{"\ufeffcreatecontainer"},
		{"createcontaıner"},
		// The shorthands are compared before trimming in Go.
		{" pod"}, {"all "}, {"pod , container"}, {"\tcontainer"},
	}
	// Every event name, as written in its pretty form.
	for e := api.Event_UNKNOWN + 1; e < api.Event_LAST; e++ {
		inputs = append(inputs, []string{e.PrettyName()})
	}
	out := []maskParse{}
	for _, in := range inputs {
		mask, err := api.ParseEventMask(in...)
		out = append(out, maskParse{Input: in, Mask: int32(mask), Error: errText(err)})
	}
	return out
}

// maskText is EventMask.PrettyString of a mask.
type maskText struct {
	Mask int32  `json:"mask"`
	Text string `json:"text"`
}

func eventMaskTexts() []maskText {
	masks := []int32{0, 0x3fff, 0x2008, 0x7fff, -1, 0x10000, 0x12345678, 0x5555, -0x4000, math.MaxInt32}
	for bit := 0; bit < 32; bit++ {
		masks = append(masks, int32(uint32(1)<<bit))
	}
	out := []maskText{}
	for _, m := range masks {
		mask := api.EventMask(m)
		out = append(out, maskText{Mask: m, Text: mask.PrettyString()})
	}
	return out
}

// eventName is Event.PrettyName.
type eventName struct {
	Event int32  `json:"event"`
	Name  string `json:"name"`
}

func eventNames() []eventName {
	out := []eventName{}
	for e := int32(-1); e <= int32(api.Event_LAST)+2; e++ {
		out = append(out, eventName{Event: e, Name: api.Event(e).PrettyName()})
	}
	return out
}

// checked is the error of a check on one input ("" when it passes).
type checked struct {
	Input string `json:"input"`
	Error string `json:"error"`
}

func pluginIndexChecks() []checked {
	out := []checked{}
	for _, in := range []string{
		"00", "09", "42", "99", "", "0", "1", "x", "123", "001", "a1", "1a", "0x", " 1", "1 ", "-1", "+1",
		"é", "٠١", "１２", "\x00\x01", "\t1", `"1`,
	} {
		out = append(out, checked{Input: in, Error: errText(api.CheckPluginIndex(in))})
	}
	return out
}

func pluginNameChecks() []checked {
	out := []checked{}
	for _, in := range []string{
		"foo", "a-b_c.d+e", "10-foo", "Z", "0", "-", "...", "++", "A-Z_a-z.0-9+",
		"", " ", "foo bar", "x/y", "foo,bar", "a:b", "a@b", "a=b", "a~b", "a*b", "a\\b", `a"b`, "a'b", "a%b", "a`b",
		"ünï", "é", "名前", "🚀", "a\tb", "a\nb", "a\x00b", "a\x7fb", "a\u00a0b", "a\u200bb", "a\u2028b", "a\ufeffb",
	} {
		out = append(out, checked{Input: in, Error: errText(api.CheckPluginName(in))})
	}
	return out
}

// parsedName is api.ParsePluginName of a full plugin name.
type parsedName struct {
	Input string `json:"input"`
	Index string `json:"index"`
	Name  string `json:"name"`
	Error string `json:"error"`
}

func pluginNameParses() []parsedName {
	out := []parsedName{}
	for _, in := range []string{
		"10-foo", "10-foo-bar", "10-", "00-x", "99-a b", "05-abcd-0123+EFGH_4567.ijkl", "10--", "42-ünï",
		"10", "", "foo", "-foo", "-", "1-foo", "100-foo", "ab-foo", "1a-foo", "é-foo", "٠١-foo", " 1-foo", "10 -foo",
	} {
		idx, name, err := api.ParsePluginName(in)
		out = append(out, parsedName{Input: in, Index: idx, Name: name, Error: errText(err)})
	}
	return out
}

// runtimeVersion is api.InferVersionFromRuntime of a runtime and its version.
type runtimeVersion struct {
	Runtime string `json:"runtime"`
	Version string `json:"version"`
	NRI     string `json:"nri"`
	Error   string `json:"error"`
}

func runtimeVersions() []runtimeVersion {
	type probe struct{ runtime, version string }
	var probes []probe
	// A grid around the whole of Go's table (containerd v1.7.0 to v2.2.1,
	// CRI-O v1.26.0 to v1.35.0), one patch release past every series.
	for _, series := range []string{"v1.6", "v1.7", "v1.8", "v2.0", "v2.1", "v2.2", "v2.3"} {
		for patch := 0; patch <= 31; patch++ {
			probes = append(probes, probe{"containerd", series + "." + strconv.Itoa(patch)})
		}
	}
	for minor := 25; minor <= 36; minor++ {
		for patch := 0; patch <= 15; patch++ {
			probes = append(probes, probe{"cri-o", fmt.Sprintf("v1.%d.%d", minor, patch)})
		}
	}
	for _, v := range []string{
		// Short forms and missing or extra parts.
		"", "v", "v2", "v2.1", "v1", "v3", "2.2.0", "V2.2.0", "v2.2.0.0", "v02.2.0", "v2.02.0", " v2.2.0", "v2.2.0 ",
		"v99999999999999999999.0.0", "v2.2.99999999999999999999",
		// Prereleases and build metadata.
		"v2.2.1-rc.1", "v2.2.0-rc.1", "v2.2.0-beta", "v2.2.0+meta", "v2.2.1+meta", "v2.2.0-rc.1+meta", "v2.2.0-",
		"v2.2.0-01", "v2.2.0-rc.01", "v2.2.0-0", "v2.3.0-rc.0",
		// git describe suffixes, stripped only when commits and hash are unsigned 64-bit numbers (v0.12.5; int64 before).
		"v2.2.0-225-ge9dc15b7a.m", "v2.2.0-225-ge9dc15b7a", "v2.2.0-1-gabc.dirty.x", "v2.2.0-01-gabc",
		"v2.2.0-+1-gabc", "v2.2.0-1-g-abc", "v2.2.0-1-gABCDEF", "v2.2.0-1-g", "v2.2.0-1-gxyz",
		"v2.2.0-1-g7fffffffffffffff", "v2.2.0-1-g8000000000000000", "v2.2.0-1-gabcdef0123456789abcdef",
		"v2.2.0-9223372036854775807-gabc", "v2.2.0-9223372036854775808-gabc", "v2.2.0-1-gabc+meta",
		"v2.2.0-1-habc", "v2.2.0-1", "v2.2.0-x-gabc", "v1.7.30-5-g0123456", "v2.2.1-3-gdeadbeef.m", "v2.2.0-1-g-5",
		"v2.2.1-1-gabc", "v2.2.0-1-gffffffffffffffff", "v2.2.0-1-g1ffffffffffffffff", "v2.2.0-18446744073709551615-gabc",
		"v2.2.0-18446744073709551616-gabc", "v2.2.0-1-g0x5", "v2.2.0-1_0-gabc",
		// Quoted in the error text as Go's %q does.
		"2.2.0\x01é", "v\u2028",
		// Prerelease ordering, which decides between neighbouring releases.
		"v2.2.1-0", "v2.2.1-alpha", "v2.2.1-rc.1.2", "v2.2.1-a-b", "v1.7.7-a.b", "v1.7.14-1",
	} {
		probes = append(probes, probe{"containerd", v})
	}
	for _, v := range []string{"v1.33.4", "v1.34.2+dev", "1.34.0", "v1.35.0-rc.1", "v1.36.0", "v1.26.0-1-gabc", "v1.25.99"} {
		probes = append(probes, probe{"cri-o", v})
	}
	for _, rt := range []string{"", "docker", "Containerd", "CRI-O", "crio", "cri-o ", "toString", "__proto__", "constructor", "hasOwnProperty"} {
		probes = append(probes, probe{rt, "v2.2.0"})
	}
	out := []runtimeVersion{}
	for _, p := range probes {
		nri, err := api.InferVersionFromRuntime(p.runtime, p.version)
		out = append(out, runtimeVersion{Runtime: p.runtime, Version: p.version, NRI: nri, Error: errText(err)})
	}
	return out
}

// duration is time.Duration.String of a count of nanoseconds (as a decimal
// string, exact in JavaScript).
type duration struct {
	Ns   string `json:"ns"`
	Text string `json:"text"`
}

func durations() []duration {
	values := []int64{
		0, 1, 12, 999, 1000, 1001, 1500, 999999, 1000000, 1000001, 1500000, 250000000, 999999999,
		1e9, 1e9 + 1, 1500000000, 59999999999, 60e9, 65e9, 3599e9, 3600e9, 3600e9 + 1, 3723500000000,
		86400e9, 100 * 3600e9, -1, -999, -1000, -1500000000, -3723500000000, math.MaxInt64, math.MinInt64, math.MinInt64 + 1,
	}
	out := []duration{}
	for _, ns := range values {
		out = append(out, duration{Ns: strconv.FormatInt(ns, 10), Text: time.Duration(ns).String()})
	}
	return out
}
