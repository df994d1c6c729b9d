package slurm

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"20", 1200}, {"1:30", 90}, {"1:00:00", 3600}, {"2-0", 172800}, {"1-2:3", 93780},
		{"1-2:3:4", 93784}, {"INFINITE", Infinite}, {"unlimited", Infinite}, {"0", 0},
	} {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "x", "1-2-3", "-5", "1:2:3:4", "1-"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q): no error", bad)
		}
	}
}

func TestParseConf(t *testing.T) {
	text := `# an excerpt
PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityCalcPeriod=1
PriorityDecayHalfLife=15
PriorityMaxAge=1-0
PriorityFavorSmall=YES
PriorityWeightAge=3000 PriorityWeightFairshare=10000
priorityweightjobsize=1000
PriorityWeightQOS=2000
SchedulerParameters=bf_interval=20,bf_continue,bf_window=60,bf_max_job_user=4,sched_interval=30
NodeName=n[1-4,9] CPUs=8 State=UNKNOWN
NodeName=big Sockets=2 CoresPerSocket=16 ThreadsPerCore=2
PartitionName=batch Nodes=ALL Default=YES MaxTime=2:00:00 MaxNodes=4
PartitionName=debug Nodes=big MaxTime=30 PriorityJobFactor=10
`
	c, err := ParseConf(strings.NewReader(text), "x.conf")
	if err != nil {
		t.Fatal(err)
	}
	if c.FairTree || c.CalcPeriod != 60 || c.DecayHalfLife != 900 || c.MaxAge != 86400 || !c.FavorSmall {
		t.Errorf("priority settings: %+v", c)
	}
	if c.WeightAge != 3000 || c.WeightFairshare != 10000 || c.WeightJobSize != 1000 || c.WeightQOS != 2000 || c.WeightPartition != 0 {
		t.Errorf("weights: %+v", c)
	}
	if c.BfInterval != 20 || !c.BfContinue || c.BfWindow != 3600 || c.BfMaxJobUser != 4 || c.SchedInterval != 30 || c.BfResolution != 60 || c.BfMaxJobTest != 500 {
		t.Errorf("scheduler parameters: %+v", c)
	}
	if c.Nodes != 6 || c.CPUs != 5*8+64 {
		t.Errorf("nodes %d CPUs %d, want 6 and 104", c.Nodes, c.CPUs)
	}
	b, d := c.Partitions["batch"], c.Partitions["debug"]
	if !b.Default || b.MaxTime != 7200 || b.MaxNodes != 4 || b.PriorityJobFactor != 1 {
		t.Errorf("batch: %+v", b)
	}
	if d.Default || d.MaxTime != 1800 || d.MaxNodes != Infinite || d.PriorityJobFactor != 10 {
		t.Errorf("debug: %+v", d)
	}
	if def := DefaultConf(); !def.FairTree || def.BfInterval != 30 || def.CalcPeriod != 300 || def.MaxAge != 7*86400 {
		t.Errorf("defaults: %+v", def)
	}
}

func TestParseConfErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"PriorityWeightAge=abc", "x.conf:1: PriorityWeightAge: expected a non-negative integer"},
		{"\n\nPriorityMaxAge=soon", "x.conf:3: PriorityMaxAge: expected a Slurm time"},
		{"SchedulerParameters=bf_interval=0", "x.conf:1: SchedulerParameters bf_interval: expected an integer in [1, 10800]"},
		{"NodeName=n[1-4 CPUs=8", "x.conf:1: NodeName n[1-4: "},
		{"PartitionName=p MaxTime=forever", "x.conf:1: PartitionName p: MaxTime:"},
		{"PriorityFavorSmall=maybe", "expected YES or NO"},
		{"JustAWord", "expected Key=Value"},
	} {
		_, err := ParseConf(strings.NewReader(c.text), "x.conf")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.want)
		}
	}
}

func TestParseShares(t *testing.T) {
	own := `# tree
account phys root 50 GrpTRES=cpu=128
account chem root 30
account theory phys 2
user alice phys 1 MaxJobs=4
user bob theory 3 MaxSubmit=10
qos high 1000 MaxJobsPerUser=2
`
	tr, err := ParseShares(strings.NewReader(own), "s.txt")
	if err != nil {
		t.Fatal(err)
	}
	// phys: 50/80; theory: 2/(2+1) of phys; bob: 3/3 of theory
	bob := tr.User("bob", "theory")
	if want := 50.0 / 80 * 2 / 3; !near(bob.SharesNorm(), want) {
		t.Errorf("bob's normalized shares %g, want %g", bob.SharesNorm(), want)
	}
	if tr.accounts["phys"].GrpCPUs != 128 || tr.User("alice", "phys").MaxJobs != 4 || bob.MaxSubmit != 10 || tr.QOS["high"].MaxJobsPerUser != 2 || tr.QOS["high"].Priority != 1000 {
		t.Error("limits not read")
	}
	sshare := `Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare
root|||0.000000|600||1.000000
 bio||20|0.200000|0||
  bio|erin|1|0.500000|0|0.000000|1.000000
 phys||50|0.500000|600||
  phys|alice|1|1.000000|600|1.000000|0.250000
`
	tr, err = ParseShares(strings.NewReader(sshare), "sshare.txt")
	if err != nil {
		t.Fatal(err)
	}
	if a := tr.User("alice", "phys"); !near(a.SharesNorm(), 50.0/70) || a.UsageRaw() != 600 || tr.Root.UsageRaw() != 600 {
		t.Errorf("alice from sshare: shares %g usage %g root %g", a.SharesNorm(), a.UsageRaw(), tr.Root.UsageRaw())
	}
	if len(tr.Assocs()) != 4 {
		t.Errorf("%d associations, want 4", len(tr.Assocs()))
	}
	for _, c := range []struct{ text, want string }{
		{"account a root x", "s.txt:1: shares: expected a non-negative integer"},
		{"user u", "s.txt:1: expected user NAME ACCOUNT SHARES"},
		{"account a root 1\naccount a root 1", "s.txt:2: account a defined twice"},
		{"qos q 1 MaxWalltime=3", "unknown QOS limit"},
		{"group g", "expected account, user or qos"},
		{"account a root 1 GrpTRES=mem=1G", "only cpu=N is simulated"},
	} {
		if _, err := ParseShares(strings.NewReader(c.text), "s.txt"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

func TestParseSidecar(t *testing.T) {
	text := "job_number,job_id,state,user,group,account,partition,queue,submit\n1,100,COMPLETED,alice,g,phys,batch,high,0\n2,101,COMPLETED,bob,g,,batch,,5\n"
	res, err := ParseSidecar(strings.NewReader(text), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		swf  int64
		want Info
	}{
		{1, Info{User: "alice", Account: "phys", QOS: "high", Partition: "batch"}},
		{2, Info{User: "bob", Account: "none", QOS: "normal", Partition: "batch"}},
		{3, Info{User: "7", Account: "3", QOS: "normal"}}, // not in the file: the trace's numbers
	} {
		if got := res(&job.Request{SWFID: c.swf, User: 7, Group: 3, Queue: -1, Partition: -1}); got != c.want {
			t.Errorf("job %d: %+v, want %+v", c.swf, got, c.want)
		}
	}
	if _, err := ParseSidecar(strings.NewReader("job_number,user\n"), "s.csv"); err == nil || !strings.Contains(err.Error(), `s.csv:1: the header has no column "account"`) {
		t.Errorf("error %v", err)
	}
	if _, err := ParseSidecar(strings.NewReader(text+"x,1,C,u,g,a,p,q,0\n"), "s.csv"); err == nil || !strings.Contains(err.Error(), "s.csv:4: job_number") {
		t.Errorf("error %v", err)
	}
}
