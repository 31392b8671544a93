package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// process is one component of a sandbox, as recorded by kwokctl.
type process struct {
	Component string // kwokctl's component name, e.g. kube-apiserver
	PID       int
	// start is the process start time when it was read, if it then ran
	// from the sandbox's directory; "" otherwise. Together with PID it
	// names the process: a reused pid has another start time, and an
	// exiting process (whose command line is already gone) keeps its own.
	start string
}

// running reports whether the recorded process still runs.
func (p process) running() bool {
	return p.start != "" && alive(p.PID) && startTime(p.PID) == p.start
}

// readProcesses lists the sandbox's components: those kwokctl recorded in
// the pids directory of clusterDir and the sandbox's own (see OwnDir),
// sorted by component name. A missing directory means none.
func readProcesses(clusterDir string) ([]process, error) {
	procs, err := readPIDDir(filepath.Join(clusterDir, "pids"), clusterDir)
	if err != nil {
		return nil, fmt.Errorf("read sandbox pids: %w", err)
	}
	own, err := readPIDDir(filepath.Join(clusterDir, ownDirName), clusterDir)
	if err != nil {
		return nil, fmt.Errorf("read own components: %w", err)
	}
	procs = append(procs, own...)
	sort.Slice(procs, func(i, j int) bool { return procs[i].Component < procs[j].Component })
	return procs, nil
}

// readPIDDir reads every NAME.pid file of dir. A process counts as running
// only if its command line names clusterDir (see belongsTo). An empty file
// is one kwokctl is still writing while the sandbox starts: it is left out.
func readPIDDir(dir, clusterDir string) ([]process, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var procs []process
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".pid")
		if !ok {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read pid of %s: %w", name, err)
		}
		text := strings.TrimSpace(string(raw))
		if text == "" {
			continue // kwokctl made the file and is writing it: not started yet
		}
		pid, err := strconv.Atoi(text)
		if err != nil {
			return nil, fmt.Errorf("parse pid of %s: %w", name, err)
		}
		p := process{Component: name, PID: pid}
		if alive(pid) && belongsTo(pid, clusterDir) {
			p.start = startTime(pid)
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// startTime returns field 22 of /proc/<pid>/stat (start time in clock
// ticks since boot), or "" when the process is gone.
func startTime(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19] // fields[0] is field 3 (state)
}

// alive reports whether pid names a live process that is not a zombie.
func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// belongsTo reports whether the live process pid was started for the
// sandbox whose kwokctl cluster directory is clusterDir: its command line
// names that directory. This guards against pid reuse.
func belongsTo(pid int, clusterDir string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	return bytes.Contains(cmdline, []byte(clusterDir+string(filepath.Separator)))
}

// ProcessesOf scans /proc for live processes whose command line names
// clusterDir, whoever started them; Down uses it to prove nothing is left.
func ProcessesOf(clusterDir string) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("scan processes: %w", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if alive(pid) && belongsTo(pid, clusterDir) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
