package importer

import (
	"bytes"
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"
)

// cpuSeconds is the process's user + system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// report adds lines/s (wall clock) and lines/cpu-s (process CPU time, the
// figure that contention on a shared machine does not lower).
func report(b *testing.B, lines int, cpu0 float64) {
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(lines)*float64(b.N)/cpu, "lines/cpu-s")
	}
}

// synthSacct returns a synthetic sacct dump of n lines in the documented
// format: jobs of 1-64 CPUs with a batch and an extern step, every fifth
// with an srun step, array tasks, a few cancelled, timed-out and failed.
func synthSacct(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 200)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	ts := func(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02T15:04:05") }
	users := []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}
	lines := 0
	for id := 1000; lines < n; id++ {
		k := id * 7919
		cpus := 1 + k%64
		sub := t0 + int64(id)*30
		start := sub + int64(k%600)
		run := int64(60 + k%7200)
		end := start + run
		state := "COMPLETED"
		switch k % 50 {
		case 1:
			state = "FAILED"
		case 2:
			state = "TIMEOUT"
		case 3:
			state = "CANCELLED by 1001"
		}
		jid := fmt.Sprint(id)
		if k%10 == 4 {
			jid = fmt.Sprintf("%d_%d", id/10, id%10)
		}
		u := users[k%len(users)]
		fmt.Fprintf(&b, "%s|%d|%s|%s|%s|%s|%s|%s|%s|%s|%s|proj%d|batch|normal|%d|%d|billing=%d,cpu=%d,mem=%dM,node=%d|billing=%d,cpu=%d,mem=%dM,node=%d\n",
			jid, id, state, ts(sub), ts(sub), ts(start), ts(end), dur(run), dur(run+600), u, u, k%5,
			1+cpus/32, cpus, cpus, cpus, cpus*4000, 1+cpus/32, cpus, cpus, cpus*4000, 1+cpus/32)
		fmt.Fprintf(&b, "%s.batch|%d.batch|%s|%s|%s|%s|%s|%s||||proj%d|||1|%d||cpu=%d,mem=%dM,node=1\n",
			jid, id, state, ts(start), ts(start), ts(start), ts(end), dur(run), k%5, cpus, cpus, cpus*4000)
		fmt.Fprintf(&b, "%s.extern|%d.extern|COMPLETED|%s|%s|%s|%s|%s||||proj%d|||1|%d||cpu=%d,mem=%dM,node=1\n",
			jid, id, ts(start), ts(start), ts(start), ts(end), dur(run), k%5, cpus, cpus, cpus*4000)
		lines += 3
		if k%5 == 0 {
			fmt.Fprintf(&b, "%s.0|%d.0|COMPLETED|%s|%s|%s|%s|%s||||proj%d|||1|%d||cpu=%d,mem=%dM,node=1\n",
				jid, id, ts(start), ts(start), ts(start), ts(end), dur(run), k%5, cpus, cpus, cpus*4000)
			lines++
		}
	}
	return b.Bytes()
}

func dur(s int64) string {
	if s >= 86400 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", s/86400, s%86400/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
}

// BenchmarkReadSacct imports a synthetic 1,000,000-line dump (reading and
// folding only: ReadSacct) and reports lines/s; BenchmarkImportSacct adds
// Prepare and writing SWF, sidecar and names (to io.Discard).
func BenchmarkReadSacct(b *testing.B) {
	data := synthSacct(1_000_000)
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		if _, err := ReadSacct(bytes.NewReader(data), "synth", Options{}); err != nil {
			b.Fatal(err)
		}
	}
	report(b, lines, cpu0)
}

func BenchmarkImportSacct(b *testing.B) {
	data := synthSacct(1_000_000)
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		im, err := ReadSacct(bytes.NewReader(data), "synth", Options{})
		if err != nil {
			b.Fatal(err)
		}
		o := im.Prepare()
		if err := WriteSWF(io.Discard, o, "bench"); err != nil {
			b.Fatal(err)
		}
		if err := WriteSidecar(io.Discard, o); err != nil {
			b.Fatal(err)
		}
		if err := WriteNames(io.Discard, o); err != nil {
			b.Fatal(err)
		}
	}
	report(b, lines, cpu0)
}

// TestSynthSacct: the benchmark's dump imports cleanly (a small one).
func TestSynthSacct(t *testing.T) {
	im, err := ReadSacct(bytes.NewReader(synthSacct(10_000)), "synth", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if im.Dropped.Total() != 0 || len(im.Jobs) < 2000 || im.Merged.Get(MergeStep)+len(im.Jobs) != im.Records {
		t.Errorf("jobs %d records %d dropped %v merged %v", len(im.Jobs), im.Records, im.Dropped, im.Merged)
	}
}
