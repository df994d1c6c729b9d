package policy_test

import (
	"fmt"

	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all" // register the policies
)

// Policies are found by name, with parameters after colons; unknown names
// and parameters are errors that say what is known.
func ExampleNew() {
	s, err := policy.New("easy:depth=2", 128)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, guarantees := s.(policy.Guarantor)
	fmt.Println(s.Name(), "guarantees:", guarantees)

	s, _ = policy.New("conservative", 128)
	_, guarantees = s.(policy.Guarantor)
	fmt.Println(s.Name(), "guarantees:", guarantees)

	_, err = policy.New("easy:deepth=2", 128)
	fmt.Println(err)
	// Output:
	// easy:depth=2 guarantees: false
	// conservative guarantees: true
	// policy easy has no parameter "deepth"
}
