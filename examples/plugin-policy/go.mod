module example.com/plugin-policy

go 1.26.0

require github.com/backfill-hpc/backfill v0.0.0

require (
	github.com/klauspost/compress v1.20.1 // indirect
	go.etcd.io/bbolt v1.4.3 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

// This example lives in the backfill repository so that CI builds it;
// a project of your own requires a released version instead and drops
// this line.
replace github.com/backfill-hpc/backfill => ../..
