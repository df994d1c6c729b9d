package workload

import (
	"strings"
)

// Header is the parsed SWF header: the comment lines of the form
// "; Key: value" that the SWF standard defines, plus every comment line
// verbatim so that nothing is lost.
//
// Numeric fields are -1 when absent (or when the value does not start with
// an integer; such values are counted as warnings). A numeric value may be
// followed by free text, as in "MaxNodes: 338 (batch partition; 512 total)";
// the leading integer is used. Text fields are "" when absent; a key that
// appears more than once (e.g. several Information lines) has its values
// joined with "\n", and so do continuation lines.
type Header struct {
	// Version is the SWF version, e.g. "2.2".
	Version string
	// Computer is the machine's brand and model.
	Computer string
	// Installation is the site.
	Installation string
	// Acknowledge names who provided the log.
	Acknowledge string
	// Information is where to find more (usually URLs).
	Information string
	// Conversion says who converted the log to SWF, and when.
	Conversion string
	// MaxJobs is the number of jobs in the original log.
	MaxJobs int64
	// MaxRecords is the number of records (lines) in the file.
	MaxRecords int64
	// MaxNodes is the number of nodes of the machine.
	MaxNodes int64
	// MaxProcs is the number of processors of the machine.
	MaxProcs int64
	// UnixStartTime is the epoch time that submit time 0 stands for.
	UnixStartTime int64
	// TimeZone is the offset from UTC in seconds (deprecated in SWF).
	TimeZone int64
	// TimeZoneString is the time zone name, e.g. "US/Pacific".
	TimeZoneString string
	// StartTime and EndTime are the log's start and end, as written.
	StartTime, EndTime string
	// Preemption says whether jobs could be preempted ("Yes"/"No"...).
	Preemption string
	// Notes holds the value of each "; Note:" line, continuation lines
	// joined to it with "\n".
	Notes []string
	// Fields holds every "; Key: value" entry in order, including keys
	// with no typed field above (Queue, Partition, MaxQueues, ...).
	Fields []HeaderField
	// Lines holds every comment line verbatim (without the line
	// terminator), in order, including blank and free-text comments.
	Lines []string
}

// HeaderField is one "; Key: value" header entry.
type HeaderField struct {
	// Key is the key as written, e.g. "MaxProcs".
	Key string
	// Value is the trimmed value; continuation lines (indented comment
	// lines without a key of their own) are appended after "\n".
	Value string
	// Line is the line number of the key line.
	Line int
}

// emptyHeader returns a Header with all numbers set to -1.
func emptyHeader() Header {
	return Header{
		MaxJobs: -1, MaxRecords: -1, MaxNodes: -1, MaxProcs: -1,
		UnixStartTime: -1, TimeZone: -1,
	}
}

// headerParser accumulates comment lines into a Header.
type headerParser struct {
	h     Header
	cur   int  // index in h.Fields that continuation lines extend, -1 none
	dirty bool // typed fields need re-deriving from h.Fields
	bad   int  // numeric header values that are not numbers
	badEx string
}

func newHeaderParser() headerParser {
	return headerParser{h: emptyHeader(), cur: -1}
}

// add records one comment line (text without line terminator, starting
// with optional whitespace then ';').
//
// A key line is ';', then nothing or a single space, then a key made of
// letters, digits and '_' (not starting with a digit), then ':' followed by
// whitespace or the end of the line. Any other non-blank comment line
// continues the previous key line (SWF writes continuations indented, e.g.
// ";       more text" or ";\tsee: url"); a blank comment line ends the
// continuation, and a non-key line with no key line before it is kept in
// Lines only.
func (p *headerParser) add(text string, line int) {
	p.h.Lines = append(p.h.Lines, text)
	body := strings.TrimLeft(text, " \t\r\v\f")
	body = strings.TrimPrefix(body, ";")
	trimmed := strings.TrimSpace(body)
	if trimmed == "" {
		p.cur = -1
		return
	}
	indent := len(body) - len(strings.TrimLeft(body, " \t\r\v\f"))
	if key, val, ok := splitKey(trimmed); ok {
		if indent == 0 || (indent == 1 && body[0] == ' ') {
			p.h.Fields = append(p.h.Fields, HeaderField{Key: key, Value: val, Line: line})
			p.cur = len(p.h.Fields) - 1
			p.dirty = true
			return
		}
	}
	if p.cur >= 0 {
		p.h.Fields[p.cur].Value += "\n" + trimmed
		p.dirty = true
	}
}

// splitKey splits "Key: value" (s already trimmed).
func splitKey(s string) (key, val string, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || (i > 0 && c >= '0' && c <= '9') {
			i++
			continue
		}
		break
	}
	if i == 0 || i >= len(s) || s[i] != ':' {
		return "", "", false
	}
	if i+1 < len(s) && !isSpace(s[i+1]) {
		return "", "", false
	}
	return s[:i], strings.TrimSpace(s[i+1:]), true
}

// header returns the header with typed fields derived from Fields.
func (p *headerParser) header() Header {
	if p.dirty {
		p.derive()
	}
	h := p.h
	h.Notes = append([]string(nil), p.h.Notes...)
	h.Fields = append([]HeaderField(nil), p.h.Fields...)
	h.Lines = append([]string(nil), p.h.Lines...)
	return h
}

// derive recomputes the typed fields from h.Fields.
func (p *headerParser) derive() {
	p.dirty = false
	fields, lines := p.h.Fields, p.h.Lines
	p.h = emptyHeader()
	p.h.Fields, p.h.Lines = fields, lines
	p.bad, p.badEx = 0, ""
	h := &p.h
	text := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		} else {
			*dst += "\n" + v
		}
	}
	for _, f := range fields {
		var num *int64
		switch strings.ToLower(f.Key) {
		case "version":
			text(&h.Version, f.Value)
		case "computer":
			text(&h.Computer, f.Value)
		case "installation":
			text(&h.Installation, f.Value)
		case "acknowledge":
			text(&h.Acknowledge, f.Value)
		case "information":
			text(&h.Information, f.Value)
		case "conversion":
			text(&h.Conversion, f.Value)
		case "timezonestring":
			text(&h.TimeZoneString, f.Value)
		case "starttime":
			text(&h.StartTime, f.Value)
		case "endtime":
			text(&h.EndTime, f.Value)
		case "preemption":
			text(&h.Preemption, f.Value)
		case "note":
			h.Notes = append(h.Notes, f.Value)
		case "maxjobs":
			num = &h.MaxJobs
		case "maxrecords":
			num = &h.MaxRecords
		case "maxnodes":
			num = &h.MaxNodes
		case "maxprocs":
			num = &h.MaxProcs
		case "unixstarttime":
			num = &h.UnixStartTime
		case "timezone":
			num = &h.TimeZone
		}
		if num == nil {
			continue
		}
		v, ok := leadingInt(f.Value)
		if !ok {
			p.bad++
			if p.badEx == "" {
				p.badEx = "line " + itoa(int64(f.Line)) + ": " + f.Key + ": " + quote(f.Value)
			}
			continue
		}
		if *num == -1 { // the first valid value wins
			*num = v
		}
	}
}

// leadingInt parses an optionally signed integer at the start of s,
// which must be followed by the end of s or whitespace.
func leadingInt(s string) (int64, bool) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || i == 0 && (s[i] == '-' || s[i] == '+')) {
		i++
	}
	if i < len(s) && !isSpace(s[i]) {
		return 0, false
	}
	return parseInt([]byte(s[:i]))
}
