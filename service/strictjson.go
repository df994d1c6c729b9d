package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
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
	if i := invalidUTF8(body); i >= 0 {
		return errf(400, "malformed JSON: invalid UTF-8 at byte %d", i)
	}
	if i := loneSurrogate(body); i >= 0 {
		return errf(400, "malformed JSON: a lone UTF-16 surrogate escape at byte %d", i)
	}
	known := jsonNames(v)
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	values := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return jsonError(err)
		}
		if len(stack) == 0 {
			values++
			if values > 1 {
				return errf(400, "malformed JSON: trailing data after the object")
			}
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				continue
			}
			key, _ := tok.(string)
			top := &stack[n-1]
			if top.keys[key] {
				return &fieldError{key, "given twice (duplicate key)"}
			}
			top.keys[key] = true
			top.wantKey = false
			if n == 1 && known != nil && !known[key] {
				return &fieldError{key, "unknown field (names are case-sensitive; see /v1/openapi.json)"}
			}
			continue
		}
		// a value
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{obj: true, wantKey: true, keys: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
	return nil
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
	t = t.Elem()
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
