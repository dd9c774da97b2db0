#!/usr/bin/env python3
"""The per-CPU busy-share spread of each run (|cpu0 - cpu1| from
percpu.tsv), its median per variant, and a two-sided Mann-Whitney
permutation test (20,000 shuffles, seed 1) between pairs of variants,
from percpu.tsv of the folder given as the argument (default:
results/2026-11-30-vm-gobuild-place). Usage: spread.py [FOLDER] > spread.txt"""
import csv
import os
import random
import statistics
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "results", "2026-11-30-vm-gobuild-place")

rows = list(csv.reader(open(os.path.join(folder, "percpu.tsv")), delimiter="\t"))[1:]
spread = {}
for r in rows:
    spread.setdefault(r[1], []).append(abs(float(r[4]) - float(r[5])))


def u(x, y):
    return sum((a > b) + 0.5 * (a == b) for a in x for b in y)


def mann_whitney(a, b, shuffles=20000):
    both, n, mid = a + b, len(a), len(a) * len(b) / 2
    obs = abs(u(a, b) - mid)
    hits = 0
    for _ in range(shuffles):
        random.shuffle(both)
        hits += abs(u(both[:n], both[n:]) - mid) >= obs
    return hits / shuffles


random.seed(1)
for v in sorted(spread):
    print(f"{v}\tmedian spread {statistics.median(spread[v]):.3f} (n={len(spread[v])})")
for a, b in [("bind1-fixed-tools", "bind1-tools"), ("bind2-fixed-tools", "bind2-tools"), ("numa0-tools", "bind1-tools")]:
    print(f"{a} vs {b}: p={mann_whitney(spread[a], spread[b]):.3f}")
