#!/usr/bin/env python3
"""What numamem=2 would add per op of a single allocating P on this
machine: a model from measured things, printed as Go benchmark lines
(committed as <out>-mbind/estimate.txt).

- The runtime's own work: the instructions that numamem=2's code
  executes per op, under cachegrind at GOMAXPROCS=1 on this machine
  (<out>-instructions/attribution.txt, from attribute.sh: the heap
  windows' source file, the span counting and the window search, at N
  and 2N iterations, so (2N - N) / N per op), against the whole
  program's instructions per op of bind1 there (median). Their ratio is
  the added share of the runtime's user-space instructions; the model
  takes it as the added share of time. The windows are used on a
  numafake topology there, not placed, so this part makes no system call.
- Its system calls: numamem-syscalls/op of bind1-mem2 in the 2- and
  4-node guests (<out>-{2,4}node, medians), times the price of one mbind
  on this machine's kernel (<out>-mbind/bench.txt, the median of the
  larger of the 4 MiB and 64 MiB ranges), against the host's stock time
  per op at GOMAXPROCS=1 (results/2026-12-02-vm-numamem-cost-hostbase:
  stock is the same go1.27.4 there).

The added percentage is the sum of the two. What the windows change in
upstream's own code (other spans swept, other pages zeroed) is not in
it: the whole program's instructions per op of bind1-mem2 against bind1
are printed beside it, but they move by several percent from run to run
at these iteration counts. The guests' kernels may price a call
differently from this one; the estimate says what this kernel's price
implies.

usage: estimate.py [<out>] > <out>-mbind/estimate.txt
(default <out>: the checkout's results/2026-12-06-vm-numamem2-cost)
"""
import csv
import os
import statistics
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "results", "2026-12-06-vm-numamem2-cost")
hostbase = os.path.join(root, "results", "2026-12-02-vm-numamem-cost-hostbase", "results.csv")


def bench_median(path, name):
    vals = []
    for line in open(path):
        f = line.split()
        if f and f[0].startswith(name) and "ns/op" in f:
            vals.append(float(f[f.index("ns/op") - 1]))
    if len(vals) == 0:
        sys.exit(f"estimate.py: no {name} in {path}")
    return statistics.median(vals)


def csv_center(path, unit, bench, variant):
    for r in csv.DictReader(open(path)):
        if r["unit"] == unit and r["benchmark"] == bench and r["variant"] == variant:
            return float(r["center"])
    sys.exit(f"estimate.py: no {unit} {bench} {variant} in {path}")


def attribution(path, bench):
    rows = {}
    for line in open(path):
        f = line.split("\t")
        if f[0] == bench:
            rows[int(f[1])] = (float(f[2]), sum(float(x) for x in f[4:7]))
    if len(rows) != 2:
        sys.exit(f"estimate.py: want two runs of {bench} in {path}")
    n1, n2 = sorted(rows)
    return (rows[n2][1] - rows[n1][1]) / (n2 - n1), rows[n2][0]


def csv_row(path, unit, bench, variant):
    for r in csv.DictReader(open(path)):
        if r["unit"] == unit and r["benchmark"] == bench and r["variant"] == variant:
            return r
    sys.exit(f"estimate.py: no {unit} {bench} {variant} in {path}")


mb = f"{out}-mbind/bench.txt"
price = max(bench_median(mb, "BenchmarkMbindPreferred/range=4MiB"), bench_median(mb, "BenchmarkMbindPreferred/range=64MiB"))
lines = [f"BenchmarkMbindModel 1 {price:.0f} ns/call"]
ins = f"{out}-instructions/results.csv"
for bench in ["ParallelAlloc", "GCHeavy"]:
    base = csv_center(hostbase, "sec/op", bench, "stock") * 1e9
    i1 = csv_center(ins, "instructions/op", bench, "bind1")
    i2 = csv_center(ins, "instructions/op", bench, "bind1-mem2")
    own, hostspans = attribution(f"{out}-instructions/attribution.txt", bench)
    ipct = 100 * own / i1
    lines.append(
        f"BenchmarkOwnInstructions/{bench} 1 {own:.1f} own-instructions/op {own / hostspans:.1f} own-instructions/span "
        f"{hostspans:.4g} spans/op {i1:.6g} bind1-instructions/op {i2:.6g} mem2-instructions/op "
        f"{ipct:.2f} added-own-pct {100 * (i2 - i1) / i1:.1f} whole-program-delta-pct"
    )
    for nodes in ["2node", "4node"]:
        g = f"{out}-{nodes}/results.csv"
        calls = csv_center(g, "numamem-syscalls/op", bench, "bind1-mem2")
        spans = csv_center(g, "numamem-spans/op", bench, "bind1-mem2")
        calls1 = csv_center(g, "numamem-syscalls/op", bench, "bind1-mem")
        spans1 = csv_center(g, "numamem-spans/op", bench, "bind1-mem")
        spct = 100 * calls * price / base
        lines.append(
            f"BenchmarkEstimate/{bench}/{nodes} 1 {calls:.4g} syscalls/op {spans:.4g} spans/op "
            f"{calls / spans if spans else 0:.4f} syscalls/span {calls1 / spans1 if spans1 else 0:.3f} mem1-syscalls/span "
            f"{base:.4g} base-ns/op {spct:.3f} added-syscall-pct {ipct:.2f} added-own-pct {ipct + spct:.2f} added-pct"
        )
print("# " + os.path.relpath(os.path.abspath(__file__), root) + ": a model, not a measurement (see the script)")
print("\n".join(lines))
