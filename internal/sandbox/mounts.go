package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// mount is one line of /proc/self/mounts.
type mount struct {
	source, point, fstype string
}

// readMounts parses /proc/self/mounts, undoing its octal escapes.
func readMounts() ([]mount, error) {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	var out []mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		out = append(out, mount{source: unescapeMount(fields[0]), point: unescapeMount(fields[1]), fstype: fields[2]})
	}
	return out, sc.Err()
}

// unescapeMount decodes the \ooo escapes /proc/self/mounts uses for space,
// tab, newline and backslash.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// MountsUnder lists the mount points at or below dir, deepest first.
func MountsUnder(dir string) ([]string, error) {
	mounts, err := readMounts()
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	var out []string
	for _, m := range mounts {
		if m.point == dir || strings.HasPrefix(m.point, dir+string(filepath.Separator)) {
			out = append(out, m.point)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out), nil
}

// unmountUnder unmounts everything at or below dir, deepest first, and
// fails unless nothing is left mounted there. A busy mount is detached.
func unmountUnder(dir string) error {
	for range 3 { // mounts propagated from a shared parent may reappear once
		points, err := MountsUnder(dir)
		if err != nil || len(points) == 0 {
			return err
		}
		for _, p := range points {
			if err := syscall.Unmount(p, 0); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
				if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
					return fmt.Errorf("unmount %s: %w", p, err)
				}
			}
		}
	}
	left, err := MountsUnder(dir)
	if err == nil && len(left) > 0 {
		err = fmt.Errorf("still mounted under %s: %s", dir, strings.Join(left, ", "))
	}
	return err
}
