#!/usr/bin/env python3
"""95% bootstrap interval (20,000 resamples, seed 1) of bind1's median
wall time over numa0's, minus one, from bench.txt of the folder given as
the argument (default: results/2026-11-30-vm-gotest). Usage:
ratio_ci.py [FOLDER] > ratio_ci.txt"""
import os
import random
import re
import statistics
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "results", "2026-11-30-vm-gotest")

variant, walls = None, {}
for line in open(os.path.join(folder, "bench.txt")):
    if line.startswith("variant:"):
        variant = line.split()[1]
    m = re.match(r"BenchmarkGoBuild\s+1\s+(\d+) ns/op", line)
    if m:
        walls.setdefault(variant, []).append(int(m.group(1)) / 1e9)
random.seed(1)
a, b = walls["numa0"], walls["bind1"]
r = sorted(statistics.median(random.choices(b, k=len(b))) / statistics.median(random.choices(a, k=len(a))) - 1 for _ in range(20000))
print(f"numa0 median {statistics.median(a):.3f}s (n={len(a)}), bind1 {statistics.median(b):.3f}s (n={len(b)})")
print(f"bind1/numa0 - 1: 95% bootstrap interval [{r[500]:+.1%}, {r[19500]:+.1%}]")
