package harness

import (
	"fmt"
	"strconv"
	"strings"
)

// CopiesFile holds, with -copies N, every copy's own result lines, each
// block marked with a "copy: K" configuration line. RawFile has their
// mean per run instead, so that a round stays one sample.
const CopiesFile = "copies.txt"

// meanOfCopies combines the result lines of the copies of one run (one
// slice of lines per copy) into one line per benchmark: for each unit
// that every copy reported, the mean of the copies' values, and the sum
// of their iterations. Benchmarks that a copy did not report are left
// out: a run with a failed copy is not comparable with a full one.
// Lines come out in the order of the first copy's.
func meanOfCopies(copies [][]string) []string {
	type parsed struct {
		iters int64
		vals  map[string]float64
		units []string
	}
	parse := func(line string) (string, parsed, bool) {
		f := strings.Fields(line)
		if len(f) < 4 || len(f)%2 != 0 {
			return "", parsed{}, false
		}
		iters, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return "", parsed{}, false
		}
		p := parsed{iters: iters, vals: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return "", parsed{}, false
			}
			p.vals[f[i+1]] = v
			p.units = append(p.units, f[i+1])
		}
		return f[0], p, true
	}
	if len(copies) == 0 {
		return nil
	}
	byCopy := make([]map[string]parsed, len(copies))
	var order []string
	for k, lines := range copies {
		byCopy[k] = map[string]parsed{}
		for _, line := range lines {
			name, p, ok := parse(line)
			if !ok {
				continue
			}
			if _, dup := byCopy[k][name]; dup {
				continue // -test.count=1: one line per benchmark
			}
			byCopy[k][name] = p
			if k == 0 {
				order = append(order, name)
			}
		}
	}
	var out []string
	for _, name := range order {
		first := byCopy[0][name]
		var iters int64
		sums := map[string]float64{}
		complete := true
		for _, m := range byCopy {
			p, ok := m[name]
			if !ok {
				complete = false
				break
			}
			iters += p.iters
			for u, v := range p.vals {
				sums[u] += v
			}
		}
		if !complete {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s\t%d", name, iters)
		for _, u := range first.units {
			all := true
			for _, m := range byCopy {
				if _, ok := m[name].vals[u]; !ok {
					all = false
				}
			}
			if all {
				fmt.Fprintf(&b, "\t%s %s", strconv.FormatFloat(sums[u]/float64(len(copies)), 'g', 6, 64), u)
			}
		}
		out = append(out, b.String())
	}
	return out
}
