#!/usr/bin/env python3
"""loadclient: an independent client for the backfill service's latency.

It measures what `backfill loadgen` measures, with nothing of the Go code
but the server: Python's standard library only (http.client, threads).

For each policy it starts `backfill serve` (a fresh state directory,
loopback, port 0), fills the machine with one job holding every processor
for 300 days, submits Q waiting jobs, then measures, in this order:

  submit   N closed-loop threads for --duration seconds, each submitting a
           job and cancelling it at once (the queue stays at Q): the
           latency of the submissions and of those (back-of-queue)
           cancellations;
  front    --front single cancellations of the oldest waiting job (the
           front of the queue), one at a time, each followed by one new
           submission so that the queue stays at Q: the latency of both
           (submit-after: a policy may settle the cancellation's
           compression at its next event, so this submission may pay
           for it).

Latencies are wall-clock milliseconds seen by this client (HTTP on
loopback, the engine lock, the durable commit), nearest-rank p50/p99/max.
Every answer's status is counted; any status other than the expected
ones is reported with its first body.

Usage: loadclient.py --backfill ./backfill --policy conservative,qops
       [--queue 10000] [--procs 1024] [--clients 8] [--duration 10]
       [--front 200] [--deadline-share 0.5] [--seed 1]

Documented in docs/PERFORMANCE.md (issue 18, scale).
"""

import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

BLOCKER = 300 * 24 * 3600


class Conn:
    """One keep-alive HTTP connection with a bearer token."""

    def __init__(self, host, port, token):
        self.host, self.port, self.token = host, port, token
        self.c = http.client.HTTPConnection(host, port, timeout=120)

    def req(self, method, path, body=None):
        h = {"Authorization": "Bearer " + self.token}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        for attempt in range(2):
            try:
                self.c.request(method, path, body=data, headers=h)
                r = self.c.getresponse()
                raw = r.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.c.close()
                self.c = http.client.HTTPConnection(self.host, self.port, timeout=120)
                if attempt == 1:
                    raise
        try:
            out = json.loads(raw) if raw else None
        except ValueError:
            out = raw.decode(errors="replace")
        return r.status, out


def quantile(xs, q):
    """Nearest-rank q-quantile of xs (sorted in place); 0 for none."""
    if not xs:
        return 0.0
    xs.sort()
    i = int(q * len(xs) + 0.999999) - 1
    return xs[min(max(i, 0), len(xs) - 1)]


class Stats:
    def __init__(self):
        self.mu = threading.Lock()
        self.lat = {}
        self.status = {}
        self.bodies = {}

    def add(self, kind, ms, status, body):
        with self.mu:
            self.lat.setdefault(kind, []).append(ms)
            k = (kind, status)
            self.status[k] = self.status.get(k, 0) + 1
            if status >= 400 and k not in self.bodies:
                self.bodies[k] = body


def start_server(backfill, policy, procs, state):
    proc = subprocess.Popen(
        [backfill, "serve", "--policy", policy, "--procs", str(procs),
         "--state", state, "--listen", "127.0.0.1:0"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(state, "..", "serve.log"), "w"))
    addr = os.path.join(state, "addr")
    tok = os.path.join(state, "admin.token")
    for _ in range(600):
        if os.path.exists(addr) and os.path.exists(tok):
            a = open(addr).read().strip()
            t = open(tok).read().strip()
            if a and t:
                a = a.split("://", 1)[-1]
                host, port = a.rsplit(":", 1)
                return proc, host, int(port), t
        if proc.poll() is not None:
            sys.exit("backfill serve exited with %d" % proc.returncode)
        time.sleep(0.05)
    proc.kill()
    sys.exit("backfill serve did not start")


def rand_job(rng, procs, queue, blocker_end, deadline_share):
    n = 1 + rng.randrange(max(1, procs // 8))
    if rng.randrange(10) == 0:
        n = 1 + rng.randrange(procs)
    e = 60 + rng.randrange(36000)
    j = {"procs": n, "estimate": e}
    if deadline_share > 0 and rng.random() < deadline_share:
        j["deadline"] = blocker_end + e + int(rng.random() * (4 * e + queue * 2000))
    return j


def measure(args, policy):
    tmp = tempfile.mkdtemp(prefix="backfill-loadclient-")
    state = os.path.join(tmp, "state")
    os.mkdir(state)
    proc, host, port, admin_tok = start_server(args.backfill, policy, args.procs, state)
    try:
        admin = Conn(host, port, admin_tok)
        st, u = admin.req("POST", "/v1/users", {"name": "load"})
        assert st == 201 or st == 200, (st, u)
        tok = u["token"]
        st, h = admin.req("GET", "/v1/health")
        blocker_end = h["now"] + 2 + BLOCKER
        user = Conn(host, port, tok)
        st, b = user.req("POST", "/v1/jobs", {"procs": args.procs, "estimate": BLOCKER, "name": "blocker"})
        assert st == 201, (st, b)
        for _ in range(500):
            st, v = user.req("GET", "/v1/jobs/%d" % b["id"])
            if v["state"] == "running":
                break
            time.sleep(0.01)
        else:
            sys.exit("the blocker did not start")
        rng = random.Random(args.seed)
        rlock = threading.Lock()

        # deadlines only for the policies with admission control
        share = args.deadline_share if policy.split(":")[0] in ("qops", "msb", "mrt") else 0

        def job(deadlines=True):
            with rlock:
                return rand_job(rng, args.procs, args.queue, blocker_end,
                                share if deadlines else 0)

        ids = []
        idlock = threading.Lock()
        t0 = time.time()

        def filler(k):
            c = Conn(host, port, tok)
            for _ in range(k):
                st, v = c.req("POST", "/v1/jobs", job(False))
                assert st == 201 and v["admitted"], (st, v)
                with idlock:
                    ids.append(v["id"])

        per = [args.queue // args.clients + (1 if i < args.queue % args.clients else 0)
               for i in range(args.clients)]
        ts = [threading.Thread(target=filler, args=(k,)) for k in per]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        ids.sort()
        print("  %s: queue of %d filled in %.1f s" % (policy, len(ids), time.time() - t0), file=sys.stderr)

        stats = Stats()
        stop = time.time() + args.duration

        def client():
            c = Conn(host, port, tok)
            while time.time() < stop:
                j = job()
                t = time.perf_counter()
                st, v = c.req("POST", "/v1/jobs", j)
                stats.add("submit", (time.perf_counter() - t) * 1000, st, v)
                if st != 201 or not v.get("admitted"):
                    continue
                t = time.perf_counter()
                st, v2 = c.req("DELETE", "/v1/jobs/%d" % v["id"])
                stats.add("cancel-back", (time.perf_counter() - t) * 1000, st, v2)

        ts = [threading.Thread(target=client) for _ in range(args.clients)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        # front-of-queue cancellations, one at a time, the queue held at Q
        c = Conn(host, port, tok)
        for k in range(min(args.front, len(ids))):
            t = time.perf_counter()
            st, v = c.req("DELETE", "/v1/jobs/%d" % ids[k])
            stats.add("cancel-front", (time.perf_counter() - t) * 1000, st, v)
            t = time.perf_counter()
            st, v = c.req("POST", "/v1/jobs", job(False))
            stats.add("submit-after", (time.perf_counter() - t) * 1000, st, v)
        st, h = admin.req("GET", "/v1/health")
        return stats, h["waiting"]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backfill", default="backfill")
    ap.add_argument("--policy", default="conservative")
    ap.add_argument("--queue", type=int, default=10000)
    ap.add_argument("--procs", type=int, default=1024)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--front", type=int, default=200)
    ap.add_argument("--deadline-share", type=float, default=0,
                    help="share of the measured jobs with a deadline (qops, msb, mrt only)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("# loadclient.py: %d clients, %g s, queue %d, procs %d, deadline share %g" %
          (args.clients, args.duration, args.queue, args.procs, args.deadline_share))
    print("%-14s %-13s %7s %8s %8s %9s  %s" % ("policy", "kind", "n", "p50 ms", "p99 ms", "max ms", "statuses"))
    for pol in args.policy.split(","):
        stats, waiting = measure(args, pol)
        for kind in ("submit", "cancel-back", "cancel-front", "submit-after"):
            xs = stats.lat.get(kind, [])
            sts = ", ".join("%d×%d" % (n, s) for (k, s), n in sorted(stats.status.items()) if k == kind)
            print("%-14s %-13s %7d %8.2f %8.2f %9.1f  %s" % (
                pol, kind, len(xs), quantile(xs, 0.5), quantile(xs, 0.99), quantile(xs, 1), sts))
        for (k, s), body in sorted(stats.bodies.items()):
            print("  %s %s: HTTP %d: %s" % (pol, k, s, json.dumps(body)[:200]))
        print("  %s: final queue %d" % (pol, waiting))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
