package service

import (
	"errors"
	"strings"
	"testing"
)

// TestEmptyKeyIsNamed: a submission whose object has an empty key ({"":
// 10}, found by FuzzDecodeSubmit) is refused with a 400 that says so; it
// used to be a field error for the field "" ("": unknown field), which
// names nothing — and the same for an empty key given twice, also in a
// nested object.
func TestEmptyKeyIsNamed(t *testing.T) {
	for _, body := range []string{`{"":10}`, `{"procs": 4, "estimate": 60, "": 1}`, `{"":1,"":2}`, `{"procs": 4, "estimate": 60, "name": {"":1,"":2}}`} {
		_, err := DecodeSubmit([]byte(body), fuzzLimits)
		var fe *fieldError
		if errors.As(err, &fe) && fe.Field == "" {
			t.Errorf("%s: a field error for the empty field: %v", body, err)
			continue
		}
		var ae *apiError
		if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Msg, "empty key") {
			t.Errorf("%s: %v, want a 400 naming the empty key", body, err)
		}
	}
}
