package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestBundleMatchesLockfile checks that the committed ECharts bundle is the
// version that web/package-lock.json pins (web/update.sh --check, run by
// .ci/run when npm is available, compares the bytes too).
func TestBundleMatchesLockfile(t *testing.T) {
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("web/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	want := lock.Packages["node_modules/echarts"].Version
	if want == "" {
		t.Fatal("package-lock.json pins no echarts")
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err = os.ReadFile("web/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Dependencies["echarts"] != want {
		t.Errorf("package.json asks for echarts %q, the lockfile pins %s: pin the exact version", pkg.Dependencies["echarts"], want)
	}
	if EChartsVersion() != want {
		t.Errorf("web/echarts.version is %s, the lockfile pins %s: run report/web/update.sh", EChartsVersion(), want)
	}
	if !strings.Contains(echartsJS, `version="`+want+`"`) {
		t.Errorf("web/echarts.min.js is not echarts %s: run report/web/update.sh", want)
	}
	if !strings.HasPrefix(strings.TrimSpace(echartsJS), "/*") || !strings.Contains(echartsJS[:2000], "Apache") {
		t.Error("web/echarts.min.js lost its licence header")
	}
}
