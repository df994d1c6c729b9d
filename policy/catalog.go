package policy

import (
	"fmt"
	"io"
	"strings"
)

// WriteCatalog writes the registry as `backfill policies` prints it: each
// policy with its documentation and its parameters (name, default,
// meaning), whether it schedules K resources, then the queue orders with
// their own parameters and the policies that take them.
func WriteCatalog(w io.Writer) error {
	var ordered []string
	for _, p := range List() {
		fmt.Fprintf(w, "%s\n    %s\n", p.Name, p.Doc)
		for _, pp := range p.Params {
			fmt.Fprintf(w, "    %s:%s=… (default %s): %s\n", p.Name, pp.Name, pp.Default, pp.Doc)
			if pp.Name == "order" {
				ordered = append(ordered, p.Name)
			}
		}
		if p.NewK != nil {
			fmt.Fprintf(w, "    schedules K resources (e.g. processors and memory with --mem)\n")
		}
	}
	fmt.Fprintf(w, "\nqueue orders (parameter order of %s):\n", strings.Join(ordered, ", "))
	for _, o := range Orders() {
		fmt.Fprintf(w, "%s\n    %s\n", o.Name, o.Doc)
		for _, pp := range o.Params {
			fmt.Fprintf(w, "    order=%s:%s=… (default %s): %s\n", o.Name, pp.Name, pp.Default, pp.Doc)
		}
	}
	_, err := fmt.Fprintln(w, "Parameters follow the name after colons, e.g. easy:depth=4.")
	return err
}
