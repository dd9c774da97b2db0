#!/usr/bin/env python3
"""placement.tsv (src/guesttest/placement) -> placement.txt, Go benchmark
format, so that benchstat and the claims checker read it: one result per
variant, round and pattern, with the share of sampled pages on their
writer's node and the pages sampled, fresh and recycled apart; the heap's
MiB on each node from numa_maps; and the runtime's /memory/numa counts.

Usage: tobench.py FOLDER/balancing-B/placement.tsv > FOLDER/balancing-B/placement.txt
"""
import collections
import sys


def main(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
    on = collections.defaultdict(int)
    total = collections.defaultdict(int)
    heap = collections.defaultdict(dict)
    metric = collections.defaultdict(dict)
    order = []
    for variant, rnd, kind, pattern, cls, writer, page, value in rows:
        key = (variant, int(rnd), pattern)
        if key not in order:
            order.append(key)
        if kind == "sample":
            total[key + (cls,)] += int(value)
            if writer == page:
                on[key + (cls,)] += int(value)
        elif kind == "numa_maps":
            heap[key][int(page)] = float(value)
        elif kind == "metric":
            metric[key][cls] = int(value)
    print("goos: linux\ngoarch: amd64\npkg: placement")
    last = None
    for key in sorted(order, key=lambda k: (k[1], k[0])):
        variant, rnd, pattern = key
        if (variant, rnd) != last:
            print("\n# round %d\nvariant: %s" % (rnd, variant))
            last = (variant, rnd)
        for cls in ("fresh", "recycled"):
            n = total.get(key + (cls,), 0)
            if n:
                print("BenchmarkPlacement/%s/%s 1 %.6f on-node-share %d pages" % (pattern, cls, on[key + (cls,)] / n, n))
        if heap[key]:
            cols = " ".join("%.2f node%d-MiB" % (heap[key][n], n) for n in sorted(heap[key]))
            print("BenchmarkPlacement/%s/heap 1 %s" % (pattern, cols))
        if metric[key]:
            cols = " ".join("%d %s" % (metric[key][m], m) for m in sorted(metric[key]))
            print("BenchmarkPlacement/%s/numamem 1 %s" % (pattern, cols))


if __name__ == "__main__":
    main(sys.argv[1])
