package service

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type oaDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
	Comp    struct {
		Schemas map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"schemas"`
	} `json:"components"`
}

// TestOpenAPIMatchesCode keeps the OpenAPI document true: every route the
// handler serves is documented and nothing else, and every schema lists
// exactly the JSON fields of its Go type.
func TestOpenAPIMatchesCode(t *testing.T) {
	var d oaDoc
	if err := json.Unmarshal(OpenAPI(), &d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.") {
		t.Fatalf("openapi %q", d.OpenAPI)
	}
	env := newEnv(t, "conservative", 4)
	env.svc.Handler()
	var documented []string
	for path, ops := range d.Paths {
		for m := range ops {
			if m == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(m)+" "+path)
		}
	}
	served := slices.Clone(env.svc.routes)
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("documented routes %v\nserved routes %v", documented, served)
	}
	types := map[string]any{
		"Error": ErrorBody{}, "SubmitRequest": SubmitRequest{}, "Job": JobView{}, "JobList": JobList{},
		"EndRequest": EndRequest{}, "Bar": Bar{}, "Schedule": Schedule{}, "Decision": Decision{},
		"DecisionList": DecisionList{}, "ClockRequest": ClockRequest{}, "StartedJob": StartedJob{},
		"ClockResult": ClockResult{}, "Health": Health{}, "User": UserView{}, "UserRequest": UserRequest{},
		"ReconfigRequest": ReconfigRequest{}, "ReconfigReport": ReconfigReport{}, "Replanned": Replanned{}, "Dropped": Dropped{},
	}
	for name, v := range types {
		sc, ok := d.Comp.Schemas[name]
		if !ok {
			t.Errorf("schema %s missing", name)
			continue
		}
		var fields, required []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			tag := rt.Field(i).Tag.Get("json")
			n, opts, _ := strings.Cut(tag, ",")
			if n == "" || n == "-" {
				continue
			}
			fields = append(fields, n)
			k := rt.Field(i).Type.Kind()
			if !strings.Contains(opts, "omitempty") && k != reflect.Pointer {
				required = append(required, n)
			}
		}
		var props []string
		for p := range sc.Properties {
			props = append(props, p)
		}
		slices.Sort(fields)
		slices.Sort(props)
		if !slices.Equal(fields, props) {
			t.Errorf("schema %s: properties %v, Go fields %v", name, props, fields)
		}
		for _, r := range required {
			if name != "SubmitRequest" && name != "ClockRequest" && name != "ReconfigRequest" && !slices.Contains(sc.Required, r) {
				t.Errorf("schema %s: %s is always present but not required", name, r)
			}
		}
	}
	// the document is served
	if body := get(t, env, "/v1/openapi.json"); !strings.Contains(body, `"openapi"`) {
		t.Fatal("GET /v1/openapi.json")
	}
}
