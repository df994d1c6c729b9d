package report

import (
	"hash/fnv"
	"slices"
)

// Palette is the categorical palette of the report and of `backfill plot`
// (Tableau 10 followed by ten lighter colours), as #rrggbb.
var Palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
	"#1f77b4", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"}

// policyColourOrder fixes the colour of the shipped policies, so that a
// policy has the same colour in every report and figure whatever runs are
// shown beside it. Other policies (plug-ins) get a colour from a hash of
// their name.
var policyColourOrder = []string{"fcfs", "easy", "conservative", "slack", "multiqueue", "lookahead", "qops", "msb", "mrt", "easy++",
	"ff-easy", "bl-easy", "bb-easy", "ff-cons"}

// PolicyColour is the colour (#rrggbb) of a policy's base name: the same
// in the HTML report and in `backfill plot`.
func PolicyColour(policy string) string {
	if i := slices.Index(policyColourOrder, policy); i >= 0 {
		return Palette[i%len(Palette)]
	}
	h := fnv.New32a()
	h.Write([]byte(policy))
	return Palette[h.Sum32()%uint32(len(Palette))]
}
