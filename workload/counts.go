package workload

import (
	"strconv"
	"strings"
)

// Count is the number of times one reason occurred.
type Count struct {
	// Reason is a short human-readable description, e.g. SkipNegRuntime.
	Reason string
	// N is how many times it occurred.
	N int
	// Example locates the first occurrence: "FILE:LINE" for skips and
	// adjustments, the full message for warnings. Empty when unknown.
	Example string
}

// Counts is an ordered list of reasons with their counts, in the order the
// reasons were first seen, so that printing is deterministic.
type Counts []Count

// Add adds n occurrences of reason, appending the reason if it is new.
func (c *Counts) Add(reason string, n int) {
	c.add(reason, n, "")
}

// add is Add that also records the example of the first occurrence.
func (c *Counts) add(reason string, n int, example string) {
	for i := range *c {
		if (*c)[i].Reason == reason {
			(*c)[i].N += n
			if (*c)[i].Example == "" {
				(*c)[i].Example = example
			}
			return
		}
	}
	*c = append(*c, Count{Reason: reason, N: n, Example: example})
}

// addAt is add(reason, 1, "FILE:LINE") that formats the example only
// when it is kept (the first occurrence): traces where every job is
// adjusted the same way would otherwise build a string per job.
func (c *Counts) addAt(reason, file string, line int) {
	for i := range *c {
		if (*c)[i].Reason == reason {
			(*c)[i].N++
			if (*c)[i].Example == "" {
				(*c)[i].Example = file + ":" + strconv.Itoa(line)
			}
			return
		}
	}
	*c = append(*c, Count{Reason: reason, N: 1, Example: file + ":" + strconv.Itoa(line)})
}

// Get returns the count for reason (0 when absent).
func (c Counts) Get(reason string) int {
	for _, x := range c {
		if x.Reason == reason {
			return x.N
		}
	}
	return 0
}

// Total returns the sum of all counts.
func (c Counts) Total() int {
	t := 0
	for _, x := range c {
		t += x.N
	}
	return t
}

// String returns "reason: N; reason: N" in order, or "none".
func (c Counts) String() string {
	var b strings.Builder
	for _, x := range c {
		if x.N == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(x.Reason)
		b.WriteString(": ")
		b.WriteString(strconv.Itoa(x.N))
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// clone returns an independent copy.
func (c Counts) clone() Counts {
	if len(c) == 0 {
		return nil
	}
	return append(Counts(nil), c...)
}
