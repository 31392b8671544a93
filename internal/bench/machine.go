package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// machine describes where a run measured.
type machine struct {
	CPU, Kernel, Go, Kubectl, Server string
	Cores                            int
	MemoryGB                         float64
}

func describeMachine(ctx context.Context, b *bench) machine {
	m := machine{CPU: cpuModel(), Kernel: firstLine("/proc/sys/kernel/osrelease"), Go: runtime.Version(), Cores: runtime.NumCPU(), MemoryGB: memoryGB()}
	if v, err := b.c.c.Discovery.ServerVersion(); err == nil {
		m.Server = v.GitVersion
	}
	out, err := exec.CommandContext(ctx, b.t.Kubectl, "version", "--client", "-o", "json").Output()
	var v struct {
		ClientVersion struct{ GitVersion string } `json:"clientVersion"`
	}
	if err == nil && json.Unmarshal(out, &v) == nil {
		m.Kubectl = v.ClientVersion.GitVersion
	}
	return m
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func memoryGB() float64 {
	data, _ := os.ReadFile("/proc/meminfo")
	var kb float64
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscanf(strings.TrimPrefix(line, "MemTotal:"), "%f", &kb)
		}
	}
	return kb / 1024 / 1024
}

func firstLine(path string) string {
	data, _ := os.ReadFile(path)
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// loadAverage is the 1, 5 and 15 minute load averages, as /proc/loadavg
// says them.
func loadAverage() string {
	f := strings.Fields(firstLine("/proc/loadavg"))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
