#!/usr/bin/env python3
"""Generates workload.csv, the job list the Slurm recording submits
(.ci/slurm-record.sh). Deterministic (fixed seed); run once, the output is
committed. Columns: name, submit offset (s), user, account, qos, nice,
CPUs, time limit (min, the user's estimate), sleep (s, the actual runtime).

Machine: one node of 320 CPUs. 260 jobs from six users in three accounts,
an opening burst of 50 jobs then arrivals over 20 minutes; runtimes 30 s to
5.5 min, estimates exact (rounded up to a minute) for 30 % of the jobs and
1.5 to 4 times too long otherwise; about 30 min of work at full load."""
import math, random

rng = random.Random(20261125)  # record3: another draw of the same model
users = [  # user, account, weight
    ("alice", "phys", 35), ("bob", "phys", 10),
    ("carol", "chem", 20), ("dave", "chem", 10),
    ("erin", "bio", 15), ("frank", "bio", 10),
]
sizes = [1, 2, 4, 8, 16, 32, 64, 128]
sweights = [20, 15, 15, 18, 14, 10, 6, 2]
N, BURST, SPAN = 260, 50, 1200
rows = []
for i in range(N):
    if i < BURST:
        submit = i // 5  # 5 jobs a second
    else:
        submit = 10 + int((SPAN - 10) * (i - BURST) / (N - BURST) + rng.uniform(0, 5))
    u, acct, _ = rng.choices(users, weights=[w for _, _, w in users])[0]
    cpus = rng.choices(sizes, weights=sweights)[0]
    run = int(math.exp(rng.uniform(math.log(30), math.log(330))))
    if rng.random() < 0.3:
        limit = math.ceil((run + 10) / 60)
    else:
        limit = max(math.ceil((run + 10) / 60), math.ceil(run * rng.uniform(1.5, 4) / 60))
    qos = "high" if (u == "carol" and rng.random() < 0.25) else "normal"
    nice = 200 if (u == "erin" and rng.random() < 0.3) else 0
    rows.append((f"j{i:03d}", submit, u, acct, qos, nice, cpus, limit, run))
rows.sort(key=lambda r: (r[1], r[0]))
with open("workload.csv", "w") as f:
    f.write("name,submit,user,account,qos,nice,cpus,limit_min,sleep_s\n")
    for r in rows:
        f.write(",".join(map(str, r)) + "\n")
work = sum(r[6] * r[8] for r in rows) / 60
print(f"{len(rows)} jobs, {work:.0f} CPU-min of work = {work/320:.1f} min on 320 CPUs")
