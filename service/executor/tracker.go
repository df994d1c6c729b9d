package executor

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// tracker follows one job's processes where cgroups are unavailable: the
// job's first process leads a new session (setsid), and every process
// seen in that session or process group, or whose parent is a member, or
// whose environment carries the job's tag (BF_JOB_TAG), is a member,
// remembered with its start time (so a reused process ID is not taken for
// it). The executor scans /proc every 100 ms while jobs run, so a process
// that leaves the session (setsid) is still known by its parent once it
// has been seen. What it cannot catch: a process that detaches, clears
// its environment and loses its parent within one scan interval. Use
// cgroups (docs/service.md) where that matters.
type tracker struct {
	mu      sync.Mutex
	root    int
	tag     []byte
	members map[int]uint64 // pid → start time (clock ticks since boot)
}

func newTracker(root int, tag string) *tracker {
	return &tracker{root: root, tag: []byte("BF_JOB_TAG=" + tag + "\x00"), members: map[int]uint64{}}
}

type procInfo struct {
	ppid, pgid, sid int
	start           uint64
	zombie          bool
}

// readProcs reads every process's parent, group, session and start time.
func readProcs() map[int]procInfo {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make(map[int]procInfo, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out[pid] = p
		}
	}
	return out
}

func readStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+2:])
	// state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime
	if len(f) < 20 {
		return procInfo{}, false
	}
	var p procInfo
	p.zombie = f[0][0] == 'Z' || f[0][0] == 'X'
	p.ppid, _ = strconv.Atoi(string(f[1]))
	p.pgid, _ = strconv.Atoi(string(f[2]))
	p.sid, _ = strconv.Atoi(string(f[3]))
	p.start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	return p, true
}

// scan adds the processes of all that belong to the job; withEnv also
// reads the environment of the others (slower: at kill time).
func (t *tracker) scan(all map[int]procInfo, withEnv bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for pid, st := range t.members { // forget the dead
		if p, ok := all[pid]; !ok || p.start != st {
			delete(t.members, pid)
		}
	}
	for changed := true; changed; {
		changed = false
		for pid, p := range all {
			if p.zombie {
				continue
			}
			if _, ok := t.members[pid]; ok {
				continue
			}
			_, parent := t.members[p.ppid]
			if pid == t.root || p.sid == t.root || p.pgid == t.root || parent {
				t.members[pid] = p.start
				changed = true
			}
		}
	}
	if !withEnv {
		return
	}
	for pid, p := range all {
		if _, ok := t.members[pid]; ok || p.zombie || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && (bytes.Contains(env, append([]byte{0}, t.tag...)) || bytes.HasPrefix(env, t.tag)) {
			t.members[pid] = p.start
		}
	}
}

// live reports whether a member other than the root is alive.
func (t *tracker) live(all map[int]procInfo) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for pid, st := range t.members {
		if p, ok := all[pid]; ok && p.start == st && !p.zombie {
			return true
		}
	}
	return false
}

// killAll kills every member, rescanning until none is left (members fork
// while they are being killed), for up to 10 s.
func (t *tracker) killAll() {
	syscall.Kill(-t.root, syscall.SIGKILL)
	for range 200 {
		all := readProcs()
		t.scan(all, true)
		t.mu.Lock()
		n := 0
		for pid, st := range t.members {
			if p, ok := all[pid]; ok && p.start == st && !p.zombie {
				syscall.Kill(pid, syscall.SIGKILL)
				n++
			}
		}
		t.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
