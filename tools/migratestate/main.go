// Command migratestate converts a state directory of backfill's service
// from the SQLite store of its earlier versions to the bbolt store
// (service/store), keeping every record, snapshot, user, token hash,
// setting and archived job, and the store's identity (so the high-water
// mark stays valid).
//
// Usage, with the service stopped, from a checkout of the repository:
//
//	cd tools/migratestate && go run . STATE_DIR
//
// The SQLite files are kept in STATE_DIR/sqlite-TIME/; nothing is changed
// in STATE_DIR before the new state is written and checked.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: migratestate STATE_DIR  (with the service stopped)")
		os.Exit(2)
	}
	if _, err := migrate(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "migratestate: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
