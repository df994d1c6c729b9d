// Package clientfmt is the terminal side of the service's client commands:
// durations as users type them, requests built from them, and the service's
// answers as text.
//
// The cmd/backfill commands submit, queue, cancel and user parse their
// flags into a Conn and a Submit, Queue, Cancel or User call; where they
// connect (flags, then environment), what they send and what they print
// live here.
package clientfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/backfill-hpc/backfill/service"
)

// JSON writes v as indented JSON and a newline.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// HintTransport turns a refused connection into an error that says what
// to do: the service is not running at Server.
type HintTransport struct {
	Base   http.RoundTripper
	Server string
}

// RoundTrip is Base's, with the hint on a refused connection.
func (h HintTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.Base.RoundTrip(r)
	if err != nil && (errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)) {
		return nil, fmt.Errorf("no backfill service answers at %s (connection refused): start one with 'backfill serve --state DIR', or point --server (or BACKFILL_SERVER) at a running one", h.Server)
	}
	return resp, err
}

// ParseSeconds reads a duration: plain seconds ("3600"), a Go duration
// ("1h30m"), or Slurm's [D-]HH:MM:SS and MM:SS.
func ParseSeconds(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return int64(d.Round(time.Second) / time.Second), nil
	}
	bad := fmt.Errorf("duration %q: expected seconds, 1h30m, HH:MM:SS or D-HH:MM:SS", s)
	days := int64(0)
	rest := s
	if d, r, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return 0, bad
		}
		days, rest = n, r
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, bad
	}
	var total int64
	for _, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return 0, bad
		}
		total = total*60 + n
	}
	return days*86400 + total, nil
}

// FormatTime shows a time in seconds, with the date when it looks like Unix
// time, and its distance from now.
func FormatTime(t, now int64) string {
	s := strconv.FormatInt(t, 10)
	if t > 1e9 {
		s = time.Unix(t, 0).Format("2006-01-02T15:04:05")
	}
	d := t - now
	switch {
	case d > 0:
		return s + " (in " + (time.Duration(d) * time.Second).String() + ")"
	case d < 0:
		return s + " (" + (time.Duration(-d) * time.Second).String() + " ago)"
	}
	return s + " (now)"
}

// ShellJoin quotes args for /bin/sh -c.
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// WriteSubmitted prints a submission's answer: rejected with its reason,
// or the job's id, state, reserved and guaranteed starts and deadline.
func WriteSubmitted(w io.Writer, v service.JobView) {
	if !v.Admitted {
		fmt.Fprintf(w, "Job %d rejected: %s\n", v.ID, v.Reason)
		return
	}
	now := v.Submit
	fmt.Fprintf(w, "Submitted job %d (%s)\n", v.ID, v.State)
	if v.ReservedStart != nil {
		fmt.Fprintf(w, "  reserved start:   %s\n", FormatTime(*v.ReservedStart, now))
	}
	if v.GuaranteedStart != nil {
		fmt.Fprintf(w, "  guaranteed start: %s at the latest\n", FormatTime(*v.GuaranteedStart, now))
	}
	if v.Deadline != nil {
		fmt.Fprintf(w, "  deadline:         %s accepted\n", FormatTime(*v.Deadline, now))
	}
	if v.OverQuota {
		fmt.Fprintln(w, "  over quota: the job runs only where it delays nobody")
	}
}

// WriteQueue prints a job list as a table (like squeue); ~ marks a planned
// start.
func WriteQueue(w io.Writer, l service.JobList) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOBID\tUSER\tNAME\tPROCS\tESTIMATE\tSTATE\tSUBMIT\tSTART\tGUARANTEE\tEND")
	opt := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	for _, j := range l.Jobs {
		start := opt(j.Start)
		if j.Start == nil && j.ReservedStart != nil {
			start = "~" + opt(j.ReservedStart) // planned
		}
		name := j.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\n", j.ID, j.User, name, j.Procs,
			(time.Duration(j.Estimate) * time.Second).String(), j.State, j.Submit, start, opt(j.GuaranteedStart), opt(j.End))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "now %d; %d jobs; ~ marks a planned start\n", l.Now, len(l.Jobs))
	return nil
}

// WriteUsers prints users as a table.
func WriteUsers(w io.Writer, us []service.UserView) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tADMIN\tPP\tQUOTA")
	for _, u := range us {
		fmt.Fprintf(tw, "%s\t%v\t%g\t%d\n", u.Name, u.Admin, u.PP, u.Quota)
	}
	return tw.Flush()
}

// WriteUserSet prints a changed user and its new token, if one was issued.
func WriteUserSet(w io.Writer, u service.UserView) {
	fmt.Fprintf(w, "user %s: political priority %g, quota %d, admin %v\n", u.Name, u.PP, u.Quota, u.Admin)
	if u.Token != "" {
		fmt.Fprintf(w, "new token (shown once):\n%s\n", u.Token)
	}
}
