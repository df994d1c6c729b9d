package importer

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// parseSlurmTime parses sacct's Submit/Eligible/Start/End: an ISO time
// "2024-05-01T10:00:00" (sacct's default format, in loc), Unix seconds
// (SLURM_TIME_FORMAT=%s), or "Unknown"/"None"/"" for -1.
func parseSlurmTime(b []byte, loc *time.Location) (int64, error) {
	switch string(b) {
	case "", "Unknown", "None", "N/A":
		return -1, nil
	}
	if allDigits(b) {
		v, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil || v > 1<<40 {
			return 0, fmt.Errorf("Unix time %q out of range", b)
		}
		return v, nil
	}
	if len(b) == 19 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && b[13] == ':' && b[16] == ':' {
		y, ok1 := num(b[0:4])
		mo, ok2 := num(b[5:7])
		d, ok3 := num(b[8:10])
		h, ok4 := num(b[11:13])
		mi, ok5 := num(b[14:16])
		s, ok6 := num(b[17:19])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo) && h < 24 && mi < 60 && s < 61 {
			if loc == time.UTC {
				return daysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + s, nil
			}
			return time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(s), 0, loc).Unix(), nil
		}
	}
	return 0, fmt.Errorf("expected YYYY-MM-DDTHH:MM:SS, Unix seconds, Unknown or None, found %q", b)
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// num parses a short unsigned decimal.
func num(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian calendar).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

var errDuration = errors.New("expected [D-]HH:MM:SS, MM:SS, D-HH[:MM] or minutes")

// parseDuration parses Slurm's time formats: "D-HH:MM:SS", "HH:MM:SS",
// "MM:SS", "D-HH", "D-HH:MM", "MM" (minutes), each field an unsigned
// integer (seconds may carry a fraction, which is dropped: "01:02.345").
// Below the largest unit printed, hours are < 24 and minutes and seconds
// < 60.
func parseDuration(b []byte) (int64, error) {
	var days int64 = -1
	for i, c := range b {
		if c == '-' {
			d, ok := num(b[:i])
			if !ok {
				return 0, fmt.Errorf("%w, found %q", errDuration, b)
			}
			days, b = d, b[i+1:]
			break
		}
	}
	var parts [3]int64
	n := 0
	start := 0
	for i := 0; i <= len(b); i++ {
		if i < len(b) && b[i] != ':' {
			continue
		}
		if n == 3 {
			return 0, fmt.Errorf("%w, found %q", errDuration, b)
		}
		f := b[start:i]
		if n >= 1 && i == len(b) { // fractional seconds
			for k, c := range f {
				if c == '.' {
					f = f[:k]
					break
				}
			}
		}
		v, ok := num(f)
		if !ok {
			return 0, fmt.Errorf("%w, found %q", errDuration, b)
		}
		parts[n] = v
		n++
		start = i + 1
	}
	// A unit below the largest printed must be in range (sacct never
	// prints 25 hours after a day count, or 61 minutes): out of range means
	// a damaged record, not a carry into the next unit.
	bad := false
	switch {
	case days >= 0:
		bad = parts[0] >= 24 || (n >= 2 && parts[1] >= 60) || (n == 3 && parts[2] >= 60)
	case n == 3:
		bad = parts[1] >= 60 || parts[2] >= 60
	case n == 2:
		bad = parts[1] >= 60
	}
	if bad {
		return 0, fmt.Errorf("%w, found %q (a unit out of range)", errDuration, b)
	}
	var sec int64
	switch {
	case days >= 0 && n == 1: // D-HH
		sec = parts[0] * 3600
	case days >= 0 && n == 2: // D-HH:MM
		sec = parts[0]*3600 + parts[1]*60
	case n == 3: // [D-]HH:MM:SS
		sec = parts[0]*3600 + parts[1]*60 + parts[2]
	case n == 2: // MM:SS
		sec = parts[0]*60 + parts[1]
	case n == 1: // minutes
		sec = parts[0] * 60
	}
	if days > 0 {
		sec += days * 86400
	}
	if sec < 0 || sec > 1<<40 {
		return 0, fmt.Errorf("duration %q out of range", b)
	}
	return sec, nil
}

// parseLimit parses Timelimit: UNLIMITED, Partition_Limit, INVALID and
// NONE give -1, else a duration.
func parseLimit(b []byte) (int64, error) {
	switch string(b) {
	case "UNLIMITED", "Partition_Limit", "INVALID", "NONE", "None", "infinite":
		return -1, nil
	}
	v, err := parseDuration(b)
	if err != nil {
		return 0, fmt.Errorf("expected UNLIMITED, Partition_Limit or a duration ([D-]HH:MM:SS, MM:SS, D-HH[:MM], minutes), found %q", b)
	}
	return v, nil
}

// parseCount parses a count such as NNodes or NCPUS; sacct may print
// large counts with a suffix K or M (x1024).
func parseCount(b []byte) (int64, error) {
	v, err := parseSuffixed(b, 1)
	if err != nil {
		return 0, fmt.Errorf("expected a count, found %q", b)
	}
	return v, nil
}

// parseSuffixed parses a number with an optional fraction and an optional
// binary suffix K, M, G, T, P (x1024 each), relative to unit: a number
// without suffix is in units of unit (KB per unit for memory in MB: 1024).
// Returns the value in the base unit below K, rounded to nearest.
func parseSuffixed(b []byte, unit float64) (int64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty")
	}
	mult := unit
	if shift := suffixShift(b[len(b)-1]); shift > 0 {
		mult = float64(int64(1) << shift)
		b = b[:len(b)-1]
	}
	if allDigits(b) {
		v, ok := num(b)
		if ok && float64(v)*mult < math.MaxInt64/2 {
			return int64(float64(v) * mult), nil
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || math.IsNaN(f) || f*mult > math.MaxInt64/2 {
		return 0, errors.New("not a number")
	}
	return int64(math.Round(f * mult)), nil
}

// suffixShift is the binary shift of a size suffix (K 10, M 20, G 30, T
// 40, P 50), 0 for anything else.
func suffixShift(c byte) uint {
	switch c {
	case 'K', 'k':
		return 10
	case 'M', 'm':
		return 20
	case 'G', 'g':
		return 30
	case 'T', 't':
		return 40
	case 'P', 'p':
		return 50
	}
	return 0
}

// tres holds the parts of a TRES string we use; -1 unknown.
type tres struct {
	cpu, node, memKB, gpu int64
}

// parseTRES parses "billing=4,cpu=4,mem=1G,node=1,gres/gpu=2". mem is in
// MB unless suffixed (K, M, G, T, P: binary); gres/gpu=N is the GPU
// count, else the sum of the typed gres/gpu:TYPE=N. Other TRES (billing,
// energy, fs/disk, licenses, ...) are ignored.
func parseTRES(b []byte) (tres, error) {
	t := tres{-1, -1, -1, -1}
	typedGPU := int64(-1)
	for len(b) > 0 {
		var item []byte
		item, b = cut(b, ',')
		if len(item) == 0 {
			continue
		}
		k, v := cut(item, '=')
		if len(v) == 0 {
			return t, fmt.Errorf("expected NAME=VALUE items separated by commas, found %q", item)
		}
		switch {
		case string(k) == "cpu":
			n, err := parseSuffixed(v, 1)
			if err != nil {
				return t, fmt.Errorf("cpu: expected a count, found %q", v)
			}
			t.cpu = n
		case string(k) == "node":
			n, err := parseSuffixed(v, 1)
			if err != nil {
				return t, fmt.Errorf("node: expected a count, found %q", v)
			}
			t.node = n
		case string(k) == "mem":
			n, err := parseSuffixed(v, 1<<20) // bytes; a bare number is MB
			if err != nil {
				return t, fmt.Errorf("mem: expected a size such as 4000M or 1.5G, found %q", v)
			}
			t.memKB = (n + 1023) / 1024
		case string(k) == "gres/gpu":
			n, err := parseSuffixed(v, 1)
			if err != nil {
				return t, fmt.Errorf("gres/gpu: expected a count, found %q", v)
			}
			t.gpu = n
		case len(k) > 9 && string(k[:9]) == "gres/gpu:":
			n, err := parseSuffixed(v, 1)
			if err != nil {
				return t, fmt.Errorf("%s: expected a count, found %q", k, v)
			}
			typedGPU = addKnown(typedGPU, n)
		}
	}
	if t.gpu < 0 {
		t.gpu = typedGPU
	}
	return t, nil
}

// cut splits b at the first sep.
func cut(b []byte, sep byte) (before, after []byte) {
	for i, c := range b {
		if c == sep {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// maxTasks bounds the tasks expanded from one array range, and from all
// the ranges of one import together.
const maxTasks = 1 << 20

// maxImportTasks bounds the tasks expanded from all the array ranges of
// one import (a variable so that tests can lower it).
var maxImportTasks = maxTasks

// expandArray expands Slurm's array task list "1-5,7,10-20:2%4" (the part
// inside the brackets of 123_[...]); the %N throttle is ignored.
func expandArray(b []byte) ([]int64, error) {
	if i := indexByte(b, '%'); i >= 0 {
		if _, ok := num(b[i+1:]); !ok {
			return nil, fmt.Errorf("expected %%N after the ranges")
		}
		b = b[:i]
	}
	var out []int64
	for len(b) > 0 {
		var item []byte
		item, b = cut(b, ',')
		rng, step := cut(item, ':')
		lo, hi := cut(rng, '-')
		a, ok := num(lo)
		if !ok {
			return nil, fmt.Errorf("expected N, N-M or N-M:S items, found %q", item)
		}
		z := a
		if hi != nil {
			if z, ok = num(hi); !ok || z < a {
				return nil, fmt.Errorf("expected N-M with N <= M, found %q", item)
			}
		}
		st := int64(1)
		if step != nil {
			if st, ok = num(step); !ok || st < 1 {
				return nil, fmt.Errorf("expected a step >= 1, found %q", item)
			}
		}
		if int64(len(out))+(z-a)/st+1 > maxTasks {
			return nil, fmt.Errorf("more than %d tasks", maxTasks)
		}
		for t := a; t <= z; t += st {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no task")
	}
	// sacct prints each task once; a task listed twice would become two jobs
	sorted := slices.Clone(out)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nil, fmt.Errorf("task %d listed twice", sorted[i])
		}
	}
	return out, nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// parsePBSDuration parses a PBS/Torque duration: [[HH:]MM:]SS[.ms], or an
// integer number of seconds (PBS Pro's "Duration" type; unlike Slurm, where
// a bare number is minutes). Minutes and seconds below the largest unit
// printed are < 60; there is no day count.
func parsePBSDuration(b []byte) (int64, error) {
	if bytes.IndexByte(b, '-') >= 0 {
		return 0, errDuration
	}
	if bytes.IndexByte(b, ':') < 0 {
		if i := bytes.IndexByte(b, '.'); i >= 0 {
			b = b[:i]
		}
		v, ok := num(b)
		if !ok || v > 1<<40 {
			return 0, errDuration
		}
		return v, nil
	}
	return parseDuration(b)
}
