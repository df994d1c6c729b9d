package executor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroup v2 tracking for the local executor: each job runs in its own
// cgroup (a child of the service's, or of a delegated directory), created
// before the job's first process and entered by it at fork
// (CLONE_INTO_CGROUP), so that every descendant, however it detaches
// (setsid, double fork, a cleared environment), stays in it. A kill is
// cgroup.kill; a job has ended when its cgroup is empty
// (cgroup.events: populated 0). No controller is enabled: the cgroup
// tracks and kills, it does not limit.

// cgroupParent finds (or creates) the directory under which the jobs'
// cgroups go: spec "" or "auto" is the service's own cgroup v2 plus
// "backfill-<instance>"; an absolute path is used as given (a delegated
// subtree). It returns the directory, or an error saying why cgroups
// cannot be used.
func cgroupParent(spec, instance string) (string, error) {
	var dir string
	if filepath.IsAbs(spec) {
		dir = spec
	} else {
		mnt, err := cgroup2Mount()
		if err != nil {
			return "", err
		}
		self, err := selfCgroup()
		if err != nil {
			return "", err
		}
		name := "backfill"
		if instance != "" {
			name += "-" + instance
		}
		dir = filepath.Join(mnt, self, name)
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("cgroup v2 at %s is not writable: %w", filepath.Dir(dir), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
		return "", fmt.Errorf("%s is not a cgroup v2 directory: %w", dir, err)
	}
	// a probe: the service must be able to create and remove job cgroups
	probe := filepath.Join(dir, "probe-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return "", fmt.Errorf("cannot create cgroups under %s: %w", dir, err)
	}
	if err := os.Remove(probe); err != nil {
		return "", fmt.Errorf("cannot remove cgroups under %s: %w", dir, err)
	}
	return dir, nil
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted
// (/sys/fs/cgroup on unified systems, /sys/fs/cgroup/unified on hybrid
// ones).
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("no cgroup v2: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source options
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		if fs := strings.Fields(post); len(fs) > 0 && fs[0] == "cgroup2" {
			if f := strings.Fields(pre); len(f) >= 5 {
				return f[4], nil
			}
		}
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// selfCgroup is the service's cgroup v2 path ("0::/path").
func selfCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("the service is in no cgroup v2")
}

// cgroupPopulated reports whether cgroup dir has live processes.
func cgroupPopulated(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return false
	}
	return bytes.Contains(b, []byte("populated 1"))
}

// cgroupKill kills every process of cgroup dir and waits (up to 10 s)
// until it is empty.
func cgroupKill(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		if errors.Is(err, os.ErrNotExist) && !dirExists(dir) {
			return nil
		}
		// kernels before 5.14 have no cgroup.kill: kill each process
		// until none is left (new ones forked meanwhile are caught by
		// the next round)
		for range 100 {
			pids := cgroupPids(dir)
			if len(pids) == 0 {
				break
			}
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for i := 0; cgroupPopulated(dir); i++ {
		if i == 1000 {
			return fmt.Errorf("cgroup %s still has processes 10 s after SIGKILL", dir)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

func cgroupPids(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func dirExists(d string) bool {
	fi, err := os.Stat(d)
	return err == nil && fi.IsDir()
}
