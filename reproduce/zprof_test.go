package reproduce

import (
	"os"
	"testing"
)

func TestZProfQoPS(t *testing.T) {
	if os.Getenv("ZPROF") == "" {
		t.Skip()
	}
	c := DefaultQoPS()
	c.Traces = "/work/shared/traces"
	c.Parts = []string{"deadline"}
	c.Workers = 1
	r, err := QoPS(c)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/repro-qops.txt")
	r.WriteText(f)
	f.Close()
}
