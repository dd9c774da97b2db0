#!/usr/bin/env python3
"""What numamem=1's lookups would add per op of a single allocating P on
this machine's kernel: a model from three measured things, printed as
Go benchmark lines (committed as <out>-movepages/estimate.txt).

- T(n), the time of numaMovePages over a span of n resident local 4 KiB
  pages (<out>-movepages/bench.txt, medians): fitted as a + b*n through
  n = 2 and n = 128, one call per 64 pages, so one call at 2 pages and
  two at 128: T(2) = a + 2b, T(128) = 2a + 128b, per call a and per
  page b. (Until 2026-12-06 the script fitted 128 pages as one call,
  which put b at 202.0 ns/page and a at 323 ns/call.)
- pages looked up per op in the guests (<out>-{2,4}node, bind1-mem's
  numamem-pages/op median).
- the host's time per op of stock at GOMAXPROCS=1 (<out>-hostbase).

A span is at least one 8 KiB runtime page, two OS pages, and at most 64
OS pages a call, so calls/op lies between pages/64 and pages/2; the
added time between pages*b + (pages/64)*a and pages*b + (pages/2)*a.
The guests' kernels may price a lookup differently from this one; the
estimate says what this kernel's price implies.

usage: estimate.py [<out>] > <out>-movepages/estimate.txt
(default <out>: the checkout's results/2026-12-02-vm-numamem-cost)
"""
import csv
import os
import statistics
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "results", "2026-12-02-vm-numamem-cost")


def bench_median(path, name):
    vals = []
    for line in open(path):
        f = line.split()
        if f and f[0] == name and "ns/op" in f:
            vals.append(float(f[f.index("ns/op") - 1]))
    if len(vals) == 0:
        sys.exit(f"estimate.py: no {name} in {path}")
    return statistics.median(vals)


def csv_center(path, unit, bench, variant):
    for r in csv.DictReader(open(path)):
        if r["unit"] == unit and r["benchmark"] == bench and r["variant"] == variant:
            return float(r["center"])
    sys.exit(f"estimate.py: no {unit} {bench} {variant} in {path}")


mp = f"{out}-movepages/bench.txt"
t2 = bench_median(mp, "BenchmarkNUMAMovePages/local/pages=2")
t128 = bench_median(mp, "BenchmarkNUMAMovePages/local/pages=128")
# T(2) = a + 2b and T(128) = 2a + 128b (two calls of 64 pages), so
# T(128) - 2T(2) = 124b.
b = (t128 - 2 * t2) / 124  # ns per page
a = t2 - 2 * b  # ns per call
lines = [f"BenchmarkLookupModel 1 {b:.1f} ns/page {a:.0f} ns/call"]
for bench in ["ParallelAlloc", "GCHeavy"]:
    base = csv_center(f"{out}-hostbase/results.csv", "sec/op", bench, "stock") * 1e9
    for nodes in ["2node", "4node"]:
        pages = csv_center(f"{out}-{nodes}/results.csv", "numamem-pages/op", bench, "bind1-mem")
        lo = pages * b + pages / 64 * a
        hi = pages * b + pages / 2 * a
        lines.append(
            f"BenchmarkEstimate/{bench}/{nodes} 1 {pages:.4g} pages/op {base:.4g} base-ns/op "
            f"{lo:.1f} added-ns-min/op {hi:.1f} added-ns-max/op "
            f"{lo / 1000:.4g} added-us-min/op {hi / 1000:.4g} added-us-max/op "
            f"{100 * lo / base:.1f} added-pct-min {100 * hi / base:.1f} added-pct-max"
        )
print("# scripts/studies/2026-12-02-vm-numamem-cost/estimate.py: a model, not a measurement (see the script)")
print("\n".join(lines))
