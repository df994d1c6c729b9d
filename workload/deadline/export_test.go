package deadline

// BaseJobs exposes the small test workload to the external test package.
var BaseJobs = base
