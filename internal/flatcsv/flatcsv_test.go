package flatcsv

import (
	"bytes"
	"testing"
)

func TestWrite(t *testing.T) {
	v := struct {
		Name  string         `json:"name"`
		Sizes []int          `json:"sizes"`
		Sub   map[string]any `json:"sub"`
	}{"a,b", []int{1, 2}, map[string]any{"z": 0.25, "a": nil, "m": true}}
	var buf bytes.Buffer
	if err := Write(&buf, v); err != nil {
		t.Fatal(err)
	}
	want := "key,value\nname,\"a,b\"\nsizes.0,1\nsizes.1,2\nsub.a,\nsub.m,true\nsub.z,0.25\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
