package promtext

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// goMetric is one family of the Go runtime collector: its name, help,
// type and how to read it from a snapshot.
type goMetric struct {
	name, help, typ string
	value           func(s *goSnapshot) float64
}

// goSnapshot is what one scrape reads from the runtime.
type goSnapshot struct {
	ms      runtime.MemStats
	gc      debug.GCStats
	gogc    float64
	memLim  float64
	threads int
}

// goMetrics are the Go runtime's metrics under the names Prometheus's Go
// client uses by default (go_goroutines, go_memstats_*, go_gc_*, …), so
// that existing dashboards work unchanged. go_gc_duration_seconds (a
// summary) and go_info are written separately.
var goMetrics = []goMetric{
	{"go_goroutines", "Number of goroutines that currently exist.", "gauge", func(*goSnapshot) float64 { return float64(runtime.NumGoroutine()) }},
	{"go_threads", "Number of OS threads created.", "gauge", func(s *goSnapshot) float64 { return float64(s.threads) }},
	{"go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting: the number of threads that can execute Go code at once.", "gauge", func(*goSnapshot) float64 { return float64(runtime.GOMAXPROCS(0)) }},
	{"go_gc_gogc_percent", "Heap size target percentage configured by GOGC or debug.SetGCPercent (-1: off).", "gauge", func(s *goSnapshot) float64 { return s.gogc }},
	{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by GOMEMLIMIT or debug.SetMemoryLimit.", "gauge", func(s *goSnapshot) float64 { return s.memLim }},
	{"go_memstats_alloc_bytes", "Bytes of heap objects allocated and still in use.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.Alloc) }},
	{"go_memstats_alloc_bytes_total", "Total bytes allocated for heap objects, even if freed.", "counter", func(s *goSnapshot) float64 { return float64(s.ms.TotalAlloc) }},
	{"go_memstats_sys_bytes", "Bytes of memory obtained from the OS.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.Sys) }},
	{"go_memstats_mallocs_total", "Total number of heap objects allocated.", "counter", func(s *goSnapshot) float64 { return float64(s.ms.Mallocs) }},
	{"go_memstats_frees_total", "Total number of heap objects freed.", "counter", func(s *goSnapshot) float64 { return float64(s.ms.Frees) }},
	{"go_memstats_heap_alloc_bytes", "Bytes of heap objects allocated and still in use.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.HeapAlloc) }},
	{"go_memstats_heap_sys_bytes", "Bytes of heap memory obtained from the OS.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.HeapSys) }},
	{"go_memstats_heap_idle_bytes", "Bytes of heap spans not in use.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.HeapIdle) }},
	{"go_memstats_heap_inuse_bytes", "Bytes of heap spans in use.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.HeapInuse) }},
	{"go_memstats_heap_released_bytes", "Bytes of idle heap spans returned to the OS.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.HeapReleased) }},
	{"go_memstats_heap_objects", "Number of allocated heap objects.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.HeapObjects) }},
	{"go_memstats_stack_inuse_bytes", "Bytes of stack spans in use.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.StackInuse) }},
	{"go_memstats_stack_sys_bytes", "Bytes of stack memory obtained from the OS.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.StackSys) }},
	{"go_memstats_mspan_inuse_bytes", "Bytes of allocated mspan structures.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.MSpanInuse) }},
	{"go_memstats_mspan_sys_bytes", "Bytes of memory obtained from the OS for mspan structures.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.MSpanSys) }},
	{"go_memstats_mcache_inuse_bytes", "Bytes of allocated mcache structures.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.MCacheInuse) }},
	{"go_memstats_mcache_sys_bytes", "Bytes of memory obtained from the OS for mcache structures.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.MCacheSys) }},
	{"go_memstats_buck_hash_sys_bytes", "Bytes of memory in profiling bucket hash tables.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.BuckHashSys) }},
	{"go_memstats_gc_sys_bytes", "Bytes of memory in garbage collection metadata.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.GCSys) }},
	{"go_memstats_other_sys_bytes", "Bytes of memory in miscellaneous off-heap runtime allocations.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.OtherSys) }},
	{"go_memstats_next_gc_bytes", "Heap size target of the next garbage collection cycle.", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.NextGC) }},
	{"go_memstats_last_gc_time_seconds", "Time the last garbage collection finished, in seconds since 1970 (0: none yet).", "gauge", func(s *goSnapshot) float64 { return float64(s.ms.LastGC) / 1e9 }},
}

type goCollector struct{}

// GoCollector returns a collector of the Go runtime's metrics: goroutines,
// threads, memory statistics, GC pauses (go_gc_duration_seconds, a summary
// of stop-the-world pause durations with quantiles 0, 0.25, 0.5, 0.75, 1)
// and go_info{version}.
func GoCollector() Collector { return goCollector{} }

func (goCollector) names() []string {
	n := []string{"go_gc_duration_seconds", "go_info"}
	for _, m := range goMetrics {
		n = append(n, m.name)
	}
	return n
}

func (goCollector) families() [][]byte {
	var s goSnapshot
	runtime.ReadMemStats(&s.ms)
	s.gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&s.gc)
	rm := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(rm)
	if rm[0].Value.Kind() == metrics.KindUint64 {
		s.gogc = float64(rm[0].Value.Uint64())
	}
	if rm[1].Value.Kind() == metrics.KindUint64 {
		s.memLim = float64(rm[1].Value.Uint64())
	}
	if p := pprof.Lookup("threadcreate"); p != nil {
		s.threads = p.Count()
	}

	// the summary of GC pauses
	const gcName = "go_gc_duration_seconds"
	b := header(nil, gcName, "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", "summary")
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		v := 0.0
		if s.gc.NumGC > 0 {
			v = s.gc.PauseQuantiles[i].Seconds()
		}
		b = append(b, gcName+`{quantile="`+q+`"} `+FormatFloat(v)+"\n"...)
	}
	b = sample(b, gcName+"_sum", "", "", "", s.gc.PauseTotal.Seconds())
	b = sample(b, gcName+"_count", "", "", "", float64(s.gc.NumGC))
	info := header(nil, "go_info", "Information about the Go environment.", "gauge")
	info = sample(info, "go_info", "version", runtime.Version(), "", 1)
	out := [][]byte{b, info}
	for _, m := range goMetrics {
		out = append(out, sample(header(nil, m.name, m.help, m.typ), m.name, "", "", "", m.value(&s)))
	}
	return out
}
