package service

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// checkJSON enforces, before encoding/json sees a body, what the API
// documents and encoding/json does not: the body is valid UTF-8 (no
// replacement of bad bytes, no lone surrogate escapes), no object has a
// key twice (encoding/json keeps the last), and the keys of the top-level
// object are exactly the JSON names of v's fields (encoding/json matches
// them case-insensitively: {"PROCS": 1} would set procs). Unknown or
// miscased keys are a *fieldError naming the key.
func checkJSON(body []byte, v any) error {
	if !utf8.Valid(body) {
		return errf(400, "malformed JSON: invalid UTF-8 at byte %d", invalidUTF8(body))
	}
	if i := loneSurrogate(body); i >= 0 {
		return errf(400, "malformed JSON: a lone UTF-16 surrogate escape at byte %d", i)
	}
	if !json.Valid(body) {
		return nil // the decoder reports the syntax error, with its offset
	}
	return scanKeys(body, jsonNames(v))
}

// errEmptyKey refuses an object with an empty key where no such field
// exists (found by FuzzDecodeSubmit: {"":10} was a field error for the
// field "").
var errEmptyKey = errf(400, "malformed request: an empty key in a JSON object (expected a field name; see /v1/openapi.json)")

// scanKeys walks valid JSON once (no tokens allocated): a key given twice
// in one object, or a top-level key not in known (exact case), is a
// *fieldError.
func scanKeys(b []byte, known map[string]bool) error {
	type frame struct {
		obj     bool
		wantKey bool
		keys    []string
	}
	stack := make([]frame, 0, 8)
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r', ':':
			i++
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey && c == '"' {
			j := endOfString(b, i)
			key := string(b[i+1 : j-1])
			if bytes.IndexByte(b[i:j], '\\') >= 0 {
				_ = json.Unmarshal(b[i:j], &key) // an escaped key: compare what it means
			}
			top := &stack[n-1]
			for _, k := range top.keys {
				if k == key {
					if key == "" {
						return errEmptyKey // (a field error would name no field)
					}
					return &fieldError{key, "given twice (duplicate key)"}
				}
			}
			top.keys = append(top.keys, key)
			top.wantKey = false
			if n == 1 && known != nil && !known[key] {
				if key == "" {
					return errEmptyKey
				}
				return &fieldError{key, "unknown field (names are case-sensitive; see /v1/openapi.json)"}
			}
			i = j
			continue
		}
		switch c {
		case '{':
			stack = append(stack, frame{obj: true, wantKey: true})
			i++
		case '[':
			stack = append(stack, frame{})
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].wantKey = true
			}
			i++
		case '"':
			i = endOfString(b, i)
		default: // a number, true, false, null
			for i < len(b) && !bytes.ContainsRune([]byte(",]} \t\n\r"), rune(b[i])) {
				i++
			}
		}
	}
	return nil
}

// endOfString is the index just after the string that starts at b[i] ('"').
func endOfString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// invalidUTF8 is the offset of the first invalid UTF-8 byte, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// loneSurrogate is the offset of a \uD800–\uDFFF escape that is not a
// high surrogate followed by a low one (encoding/json turns it into
// U+FFFD), or -1. Escaped backslashes are skipped.
func loneSurrogate(b []byte) int {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range b[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 < len(b) && b[i+1] != 'u' {
			i++ // \\, \", \n …
			continue
		}
		r, ok := hex4(i)
		if !ok || r < 0xD800 || r > 0xDFFF {
			continue
		}
		if r >= 0xDC00 {
			return i
		}
		if r2, ok := hex4(i + 6); !ok || r2 < 0xDC00 || r2 > 0xDFFF {
			return i
		}
		i += 11
	}
	return -1
}

// jsonNames is the set of JSON keys of struct *v (nil if v is not a
// pointer to a struct).
func jsonNames(v any) map[string]bool {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	if m, ok := namesCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := structNames(t.Elem())
	namesCache.Store(t, m)
	return m
}

var namesCache sync.Map // reflect.Type → map[string]bool

func structNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
	}
	return out
}

// strictUnmarshal decodes one JSON object into v after checkJSON.
func strictUnmarshal(body []byte, v any) error {
	if err := checkJSON(body, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errf(400, "malformed JSON: trailing data after the object")
	}
	return nil
}
