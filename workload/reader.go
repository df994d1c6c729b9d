package workload

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// ParseError reports a problem with the input at a given line.
type ParseError struct {
	// File is the name given to NewReader (usually the path).
	File string
	// Line is the 1-based line number, or 0 when the problem is not tied
	// to a line (e.g. a gzip stream whose header is already broken).
	Line int
	// Msg says what was expected and what was found.
	Msg string
}

// Error returns "FILE:LINE: MSG" ("FILE: MSG" when Line is 0).
func (e *ParseError) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Msg
	}
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// Record is one SWF data line: the 18 standard fields, named as in the SWF
// definition, plus the line it came from. -1 means unknown, as in SWF.
type Record struct {
	JobNumber    int64   // field 1
	Submit       int64   // field 2: submit time, seconds from the log start
	Wait         int64   // field 3: wait time in seconds
	Run          int64   // field 4: run time in seconds
	AllocProcs   int64   // field 5: number of allocated processors
	AvgCPU       float64 // field 6: average CPU time used (may be fractional)
	UsedMem      int64   // field 7: used memory (KB per processor)
	ReqProcs     int64   // field 8: requested number of processors
	ReqTime      int64   // field 9: requested time (the user's estimate)
	ReqMem       int64   // field 10: requested memory
	Status       int64   // field 11: 1 completed, 0 failed, 5 cancelled, ...
	User         int64   // field 12: user ID
	Group        int64   // field 13: group ID
	Executable   int64   // field 14: executable (application) number
	Queue        int64   // field 15: queue number
	Partition    int64   // field 16: partition number
	PrecedingJob int64   // field 17: preceding job number
	ThinkTime    int64   // field 18: think time from the preceding job
	Line         int     // line number in the source (1-based)
}

// fieldNames names the 18 SWF fields for error messages.
var fieldNames = [18]string{
	"job number", "submit time", "wait time", "run time",
	"allocated processors", "average CPU time", "used memory",
	"requested processors", "requested time", "requested memory",
	"status", "user ID", "group ID", "executable number", "queue number",
	"partition number", "preceding job number", "think time",
}

// Warning reasons counted by a lenient Reader (and, for
// WarnHeaderNumber, by any Reader).
const (
	// WarnFieldCount: a data line without exactly 18 fields.
	WarnFieldCount = "malformed line skipped: wrong number of fields"
	// WarnBadNumber: a field that is not a number or is out of range.
	WarnBadNumber = "malformed line skipped: field is not a number"
	// WarnLongLine: a line longer than 1 MiB.
	WarnLongLine = "malformed line skipped: longer than 1 MiB"
	// WarnTruncated: the gzip stream ends early; the input ends there.
	WarnTruncated = "truncated gzip stream: input ends early"
	// WarnCorrupt: the gzip stream is damaged; the input ends there.
	WarnCorrupt = "corrupt gzip stream: input ends early"
	// WarnHeaderNumber: a numeric header value (MaxProcs, ...) that does
	// not start with an integer; the value is ignored. Counted in strict
	// mode too.
	WarnHeaderNumber = "header value is not a number (ignored)"
)

// maxLine is the longest line accepted, in bytes.
const maxLine = 1 << 20

// Reader streams Records from an SWF file, plain or gzip-compressed.
type Reader struct {
	name    string
	lenient bool
	src     io.Reader // the SWF text (after gzip, when compressed)
	gz      bool
	// chunk holds the input read but not yet returned as lines,
	// chunk[rpos:wpos]; srcErr is the stream's error (io.EOF at its end)
	// once read, reported after the lines before it.
	chunk      []byte
	rpos, wpos int
	srcErr     error
	hp         headerParser
	warn       Counts
	line       int    // last line number read
	records    int    // data records returned
	pending    []byte // first data line, read while reading the header
	pendErr    error  // or errLongLine if that line was too long
	pendAt     int    // its line number
	err        error  // sticky stream error or io.EOF
}

// chunkSize is the size of a Reader's first input buffer; it grows (up
// to maxLine and a chunk) only for longer lines.
const chunkSize = 256 << 10

// NewReader returns a Reader for r, which may be plain SWF text or gzip
// (detected by the magic bytes 1f 8b, not by the name). name is used in
// error messages. NewReader reads the header comments at the top of the
// input; comment lines found later are added to the header too.
//
// When lenient is true, malformed data lines are skipped and counted (see
// Warnings) instead of being returned as errors, and a truncated or corrupt
// gzip stream ends the input with a counted warning. All errors returned
// are *ParseError.
func NewReader(r io.Reader, name string, lenient bool) (*Reader, error) {
	rd := &Reader{name: name, lenient: lenient, hp: newHeaderParser()}
	var br io.Reader // r with a ReadByte, as gzip wants, and the magic bytes
	var magic []byte
	if b, ok := r.(*bytes.Reader); ok {
		// in memory (the embedded trace): read as it is, peeked without
		// reading (gzip reads a bytes.Reader without a buffer of its own)
		var m [2]byte
		n, _ := b.ReadAt(m[:], b.Size()-int64(b.Len()))
		br, magic = b, m[:n]
	} else {
		bb := bufio.NewReaderSize(r, 64<<10)
		magic, _ = bb.Peek(2)
		br = bb
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		rd.gz = true
		zr, err := gzip.NewReader(br)
		if err != nil {
			if e := rd.streamError(err, 0, nil); e != nil {
				return nil, e
			}
			return rd, nil
		}
		rd.src = zr
	} else {
		rd.src = br
	}
	rd.chunk = make([]byte, chunkSize)
	// Read the header: comment and blank lines up to the first data line.
	for {
		b, err := rd.readLine()
		if err == errLongLine {
			rd.pendErr, rd.pendAt = err, rd.line
			return rd, nil
		}
		if err != nil {
			if err == io.EOF {
				rd.err = io.EOF
				return rd, nil
			}
			if e := rd.streamError(err, rd.line, b); e != nil {
				return nil, e
			}
			return rd, nil
		}
		switch classify(b) {
		case lineBlank:
			continue
		case lineComment:
			rd.hp.add(string(trimEOL(b)), rd.line)
			continue
		}
		rd.pending = append([]byte(nil), b...)
		rd.pendAt = rd.line
		return rd, nil
	}
}

// Header returns the header read so far: after NewReader, the comments at
// the top of the input; after io.EOF, all comments in the input.
func (r *Reader) Header() Header { return r.hp.header() }

// Warnings returns what was skipped or ignored so far, by reason.
func (r *Reader) Warnings() Counts {
	r.hp.header() // brings the header-number count up to date
	var w Counts
	if r.hp.bad > 0 {
		w.add(WarnHeaderNumber, r.hp.bad, r.name+": "+r.hp.badEx)
	}
	for _, c := range r.warn {
		w.add(c.Reason, c.N, c.Example)
	}
	return w
}

// Records returns the number of data records returned so far.
func (r *Reader) Records() int { return r.records }

// Next returns the next data record, or io.EOF at the end of the input.
// A malformed line in strict mode yields a *ParseError; Next may then be
// called again to continue after that line. Stream errors (truncated gzip,
// read errors) are final.
func (r *Reader) Next() (Record, error) {
	var rec Record
	if err := r.next(&rec); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// next is Next into *rec (which it may change also when it returns an
// error): the ingestion's loop, without copying each record twice.
func (r *Reader) next(rec *Record) error {
	for {
		if r.err != nil {
			return r.err
		}
		var b []byte
		var at int
		if r.pending != nil || r.pendErr != nil {
			b, at = r.pending, r.pendAt
			err := r.pendErr
			r.pending, r.pendErr = nil, nil
			if err != nil {
				if e := r.malformed(WarnLongLine, "line is longer than 1 MiB", at); e != nil {
					return e
				}
				continue
			}
		} else {
			var err error
			b, err = r.readLine()
			at = r.line
			if err != nil {
				if err == io.EOF {
					r.err = io.EOF
					continue
				}
				if err == errLongLine {
					if e := r.malformed(WarnLongLine, "line is longer than 1 MiB", at); e != nil {
						return e
					}
					continue
				}
				if e := r.streamError(err, at, b); e != nil {
					return e
				}
				continue
			}
			switch classify(b) {
			case lineBlank:
				continue
			case lineComment:
				r.hp.add(string(trimEOL(b)), at)
				continue
			}
		}
		if parseFast(b, rec) {
			rec.Line = at
			r.records++
			return nil
		}
		var msg, reason string
		*rec, msg, reason = parseRecordFull(b)
		if msg != "" {
			if e := r.malformed(reason, msg, at); e != nil {
				return e
			}
			continue
		}
		rec.Line = at
		r.records++
		return nil
	}
}

// malformed handles a bad data line: an error in strict mode, a counted
// warning (and nil) in lenient mode.
func (r *Reader) malformed(reason, msg string, line int) error {
	e := &ParseError{File: r.name, Line: line, Msg: msg}
	if !r.lenient {
		return e
	}
	r.warn.add(reason, 1, e.Error())
	return nil
}

// streamError handles a failure of the underlying stream at line line
// (partial holds any bytes of that line read before the failure; they are
// dropped, as the line may be incomplete). The stream ends either way; the
// error is returned in strict mode or for plain read errors, and nil after
// counting a warning in lenient mode for gzip damage.
func (r *Reader) streamError(err error, line int, partial []byte) error {
	r.err = io.EOF
	if len(partial) == 0 && line > 0 {
		// The failure is between lines; report the line that is missing.
		line++
	}
	msg, reason := "", ""
	var corrupt flate.CorruptInputError
	switch {
	case r.gz && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		msg, reason = "truncated gzip stream", WarnTruncated
	case r.gz && (errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt)):
		msg, reason = "corrupt gzip stream ("+err.Error()+")", WarnCorrupt
	default:
		e := &ParseError{File: r.name, Line: line, Msg: "read error: " + err.Error()}
		r.err = e
		return e
	}
	e := &ParseError{File: r.name, Line: line, Msg: msg}
	if !r.lenient {
		r.err = e
		return e
	}
	r.warn.add(reason, 1, e.Error())
	return nil
}

var errLongLine = errors.New("line too long")

// readLine returns the next line including its '\n' (if any) and counts it.
// At the end of the input it returns io.EOF; a final line without '\n' is
// returned first. On a stream error it returns the partial line and the
// error. The returned slice is valid until the next call. A line longer
// than maxLine bytes (its '\n' included) is skipped and counted, and
// errLongLine returned.
func (r *Reader) readLine() ([]byte, error) {
	for {
		if i := bytes.IndexByte(r.chunk[r.rpos:r.wpos], '\n'); i >= 0 {
			b := r.chunk[r.rpos : r.rpos+i+1]
			r.rpos += i + 1
			r.line++
			if len(b) > maxLine {
				return nil, errLongLine
			}
			return b, nil
		}
		if r.srcErr != nil {
			b := r.chunk[r.rpos:r.wpos]
			r.rpos = r.wpos
			if len(b) > 0 {
				r.line++
				if len(b) > maxLine {
					if r.srcErr == io.EOF {
						return nil, errLongLine
					}
					return nil, r.srcErr
				}
				if r.srcErr == io.EOF {
					return b, nil
				}
			}
			return b, r.srcErr
		}
		if r.wpos-r.rpos > maxLine {
			// a line too long to keep: drop what is read of it and
			// skip to its end
			r.skipLong()
			r.line++
			if r.srcErr != nil && r.srcErr != io.EOF {
				return nil, r.srcErr
			}
			return nil, errLongLine
		}
		r.fill()
	}
}

// fill moves the unread input to the front of the buffer (growing it when
// the unread part fills it) and reads more, keeping any error in srcErr.
func (r *Reader) fill() {
	if r.rpos > 0 {
		r.wpos = copy(r.chunk, r.chunk[r.rpos:r.wpos])
		r.rpos = 0
	}
	if r.wpos == len(r.chunk) {
		r.chunk = append(r.chunk, make([]byte, len(r.chunk))...)
	}
	n, err := r.src.Read(r.chunk[r.wpos:])
	// a reader that returns nothing and no error is tried again, a
	// bounded number of times (as bufio does)
	for k := 0; n == 0 && err == nil; k++ {
		if k == 100 {
			err = io.ErrNoProgress
			break
		}
		n, err = r.src.Read(r.chunk[r.wpos:])
	}
	r.wpos += n
	if err != nil {
		r.srcErr = err
	}
}

// skipLong discards input up to and including the next '\n' (or to the
// end of the input or a stream error).
func (r *Reader) skipLong() {
	r.rpos, r.wpos = 0, 0
	for r.srcErr == nil {
		r.fill()
		if i := bytes.IndexByte(r.chunk[r.rpos:r.wpos], '\n'); i >= 0 {
			r.rpos += i + 1
			return
		}
		r.rpos, r.wpos = 0, 0
	}
}

type lineKind int

const (
	lineBlank lineKind = iota
	lineComment
	lineData
)

// classify tells blank, comment (first non-space byte ';') and data lines.
func classify(b []byte) lineKind {
	for _, c := range b {
		if isSpace(c) {
			continue
		}
		if c == ';' {
			return lineComment
		}
		return lineData
	}
	return lineBlank
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// trimEOL removes a trailing "\n" or "\r\n".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// parseRecord parses one data line. On failure msg says what was wrong and
// reason is the warning reason.
func parseRecord(b []byte) (rec Record, msg, reason string) {
	if parseFast(b, &rec) {
		return rec, "", ""
	}
	return parseRecordFull(b)
}

// spaceTab marks the bytes isSpace accepts.
var spaceTab = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

// parseFast parses the common data line in one pass: 18 fields, each an
// optionally signed integer of at most 18 digits (which cannot overflow)
// except field 6, a decimal number. It reports false, leaving the line to
// parseRecordFull (which says what is wrong, or parses what the fast path
// does not take), for anything else.
func parseFast(b []byte, rec *Record) bool {
	var v [18]int64
	i := 0
	for n := 0; n < 18; n++ {
		for i < len(b) && spaceTab[b[i]] {
			i++
		}
		if i >= len(b) {
			return false
		}
		if n == 5 {
			start := i
			for i < len(b) && !spaceTab[b[i]] {
				i++
			}
			f, ok := parseFloat(b[start:i])
			if !ok {
				return false
			}
			rec.AvgCPU = f
			continue
		}
		neg := false
		switch b[i] {
		case '-':
			neg = true
			i++
		case '+':
			i++
		}
		start := i
		var x int64
		for i < len(b) {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			x = x*10 + int64(d)
			i++
		}
		if d := i - start; d == 0 || d > 18 || (i < len(b) && !spaceTab[b[i]]) {
			return false
		}
		if neg {
			x = -x
		}
		v[n] = x
	}
	for ; i < len(b); i++ {
		if !spaceTab[b[i]] {
			return false // a 19th field, or junk
		}
	}
	rec.JobNumber, rec.Submit, rec.Wait, rec.Run, rec.AllocProcs = v[0], v[1], v[2], v[3], v[4]
	rec.UsedMem, rec.ReqProcs, rec.ReqTime, rec.ReqMem, rec.Status = v[6], v[7], v[8], v[9], v[10]
	rec.User, rec.Group, rec.Executable, rec.Queue, rec.Partition = v[11], v[12], v[13], v[14], v[15]
	rec.PrecedingJob, rec.ThinkTime = v[16], v[17]
	return true
}

// parseRecordFull parses one data line field by field, saying what is
// wrong with a bad one (see parseRecord).
func parseRecordFull(b []byte) (rec Record, msg, reason string) {
	var v [18]int64
	n := 0
	badField := -1
	var badTok []byte
	badRange := false
	i := 0
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			break
		}
		start := i
		for i < len(b) && !isSpace(b[i]) {
			i++
		}
		if n < 18 && badField < 0 {
			tok := b[start:i]
			if n == 5 {
				f, ok := parseFloat(tok)
				if !ok {
					badField, badTok = n, tok
				}
				rec.AvgCPU = f
			} else {
				x, ok := parseInt(tok)
				if !ok {
					badField, badTok = n, tok
					badRange = isIntSyntax(tok)
				}
				v[n] = x
			}
		}
		n++
	}
	if n != 18 {
		return rec, "expected 18 fields, found " + strconv.Itoa(n), WarnFieldCount
	}
	if badField >= 0 {
		what := "expected an integer"
		switch {
		case badField == 5:
			what = "expected a number"
		case badRange:
			what = "integer out of range"
		}
		return rec, "field " + strconv.Itoa(badField+1) + " (" + fieldNames[badField] + "): " +
			what + ", found " + quote(string(badTok)), WarnBadNumber
	}
	rec.JobNumber, rec.Submit, rec.Wait, rec.Run, rec.AllocProcs = v[0], v[1], v[2], v[3], v[4]
	rec.UsedMem, rec.ReqProcs, rec.ReqTime, rec.ReqMem, rec.Status = v[6], v[7], v[8], v[9], v[10]
	rec.User, rec.Group, rec.Executable, rec.Queue, rec.Partition = v[11], v[12], v[13], v[14], v[15]
	rec.PrecedingJob, rec.ThinkTime = v[16], v[17]
	return rec, "", ""
}

// parseInt parses an optionally signed decimal integer.
func parseInt(b []byte) (int64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if i >= len(b) {
		return 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++ // MinInt64 is allowed
	}
	var x uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if x > (limit-d)/10 {
			return 0, false
		}
		x = x*10 + d
	}
	if neg {
		return int64(-x), true // -(1<<63) wraps to MinInt64, as wanted
	}
	return int64(x), true
}

// isIntSyntax reports whether b looks like an integer (so that parseInt
// failed because of its size).
func isIntSyntax(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
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

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseFloat parses a decimal number such as "-1", "142.00" or "1.5e3".
// NaN and infinities are rejected.
func parseFloat(b []byte) (float64, bool) {
	// Fast path: [sign]digits[.digits] with at most 15 digits, which is
	// exact: an integer mantissa below 2^53 divided by an exact power of ten.
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var mant uint64
	digits, frac := 0, -1
	fast := true
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			fast = false
		}
		if !fast || digits > 15 {
			fast = false
			break
		}
	}
	if fast && digits > 0 {
		f := float64(mant)
		if frac > 0 {
			f /= pow10[frac]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// quote quotes s for a message, shortening it if long.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}

func itoa(x int64) string { return strconv.FormatInt(x, 10) }
