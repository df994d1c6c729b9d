module github.com/backfill-hpc/backfill/tools/migratestate

go 1.26.0

require (
	github.com/backfill-hpc/backfill v0.0.0
	github.com/ncruces/go-sqlite3 v0.37.0
)

require (
	github.com/ncruces/go-sqlite3-wasm/v6 v6.5.35401 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	go.etcd.io/bbolt v1.4.3 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

// The tool converts the state of the service's earlier versions; it lives
// in its own module so that the SQLite driver stays out of backfill's
// build. It is built from a checkout of the repository.
replace github.com/backfill-hpc/backfill => ../..
