#!/usr/bin/env python3
"""checks.txt (run.sh) -> checks.bench.txt, Go benchmark format, so that
benchstat and the claims checker read it: per guest and run, the share
(in percent, as numacheck prints it) of recycled heap pages on the
writer's node and the pages sampled, with numamem=1 (variant numamem,
also the pages the runtime moved) and without (variant control).

Usage: tobench.py FOLDER/checks.txt > FOLDER/checks.bench.txt
"""
import re
import sys

LINE = re.compile(r"-nodes (\d+) -balancing (\d) run (\d+): numamem: ([0-9.]+)% of (\d+) recycled pages on the writer's node, "
                  r"(\d+) moved \(([0-9.]+)% of (\d+) recycled pages on the writer's node without numamem\)")


def main(path):
    out = {"numamem": [], "control": []}
    for line in open(path):
        m = LINE.search(line)
        if not m:
            sys.exit("tobench.py: unexpected line: " + line.strip())
        nodes, bal, _, share, pages, moved, cshare, cpages = m.groups()
        name = "BenchmarkNumamemCheck/nodes=%s/balancing=%s 1" % (nodes, bal)
        out["numamem"].append("%s %s on-node-percent %s pages %s moved-pages" % (name, share, pages, moved))
        out["control"].append("%s %s on-node-percent %s pages" % (name, cshare, cpages))
    print("goos: linux\ngoarch: amd64\npkg: numacheck")
    for variant in ("control", "numamem"):
        print("\nvariant: %s" % variant)
        print("\n".join(out[variant]))


if __name__ == "__main__":
    main(sys.argv[1])
