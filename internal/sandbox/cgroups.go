package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupKillTimeout bounds waiting for the pods' processes to die.
const cgroupKillTimeout = 15 * time.Second

// cgroupMounts lists the mount points of every cgroup hierarchy (v1
// controllers, named hierarchies and the v2 unified one).
func cgroupMounts() ([]string, error) {
	mounts, err := readMounts()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range mounts {
		if m.fstype == "cgroup" || m.fstype == "cgroup2" {
			out = append(out, m.point)
		}
	}
	return out, nil
}

// createCgroups creates the cgroup root in every hierarchy, as the kubelet
// requires of its cgroupRoot. A new cpuset cgroup starts with no CPUs and
// no memory nodes; it gets its parent's.
func createCgroups(root string) error {
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		dir := filepath.Join(m, root)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create cgroup %s: %w", dir, err)
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			if err := copyCgroupValue(filepath.Join(m, f), filepath.Join(dir, f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyCgroupValue copies a v1 cpuset value from the parent when the parent
// has that file and the child's is empty.
func copyCgroupValue(from, to string) error {
	v, err := os.ReadFile(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", from, err)
	}
	if cur, err := os.ReadFile(to); err == nil && strings.TrimSpace(string(cur)) != "" {
		return nil
	}
	if err := os.WriteFile(to, v, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", to, err)
	}
	return nil
}

// cgroupDirs lists the directories of root in every hierarchy, deepest
// first.
func cgroupDirs(root string) ([]string, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, m := range mounts {
		err := filepath.WalkDir(filepath.Join(m, root), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir // gone meanwhile, or never created
			}
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("list cgroups of %s: %w", root, err)
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return dirs, nil
}

// cgroupProcs lists the processes in root's cgroups, in any hierarchy: the
// pods' processes of a real node whose cgroup root that is.
func cgroupProcs(root string) ([]int, error) {
	dirs, err := cgroupDirs(root)
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	var pids []int
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue // removed meanwhile
		}
		for _, f := range strings.Fields(string(raw)) {
			if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	return pids, nil
}

// killCgroups sends SIGKILL to every process in root's cgroups until none
// is left.
func killCgroups(ctx context.Context, root string) error {
	deadline := time.Now().Add(cgroupKillTimeout)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		pids, err := cgroupProcs(root)
		if err != nil {
			return err
		}
		var live []int
		for _, pid := range pids {
			if alive(pid) {
				live = append(live, pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if len(live) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pods' processes %v still alive in cgroup %s after SIGKILL", live, root)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// removeCgroups removes root's cgroups in every hierarchy, deepest first.
func removeCgroups(root string) error {
	dirs, err := cgroupDirs(root)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range dirs {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}
