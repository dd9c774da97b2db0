package bench

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// meanOfCopies combines the result lines of the copies of one run (one
// slice of lines per copy) into one line per benchmark: for each unit
// that every copy reported, the mean of the copies' values, and the sum
// of their iterations. Benchmarks that a copy did not report are left
// out: a run with a failed copy is not comparable with a full one.
// Lines come out in the order of the first copy's.
func meanOfCopies(copies [][]string) []string {
	if len(copies) == 0 {
		return nil
	}
	byCopy := make([]map[string]*benchfmt.Result, len(copies))
	var order []string
	for k, lines := range copies {
		byCopy[k] = map[string]*benchfmt.Result{}
		r := benchfmt.NewReader(strings.NewReader(strings.Join(lines, "\n")), "copy")
		for r.Scan() {
			res, ok := r.Result().(*benchfmt.Result)
			if !ok || byCopy[k][string(res.Name)] != nil {
				continue // -test.count=1: one line per benchmark
			}
			name := string(res.Name)
			byCopy[k][name] = res.Clone()
			if k == 0 {
				order = append(order, name)
			}
		}
	}
	var out []string
	for _, name := range order {
		mean := byCopy[0][name].Clone()
		mean.Iters = 0
		mean.Values = mean.Values[:0]
		complete := true
		for _, m := range byCopy {
			if m[name] == nil {
				complete = false
				break
			}
			mean.Iters += m[name].Iters
		}
		if !complete {
			continue
		}
		for _, v := range byCopy[0][name].Values {
			sum := benchfmt.Value{Unit: v.Unit, OrigUnit: v.OrigUnit}
			all := true
			for _, m := range byCopy {
				i := slices.IndexFunc(m[name].Values, func(w benchfmt.Value) bool { return w.Unit == v.Unit })
				if i < 0 {
					all = false
					break
				}
				sum.Value += m[name].Values[i].Value
				sum.OrigValue += m[name].Values[i].OrigValue
			}
			if all {
				n := float64(len(copies))
				sum.Value, sum.OrigValue = sum.Value/n, sum.OrigValue/n
				mean.Values = append(mean.Values, sum)
			}
		}
		var b bytes.Buffer
		benchfmt.NewWriter(&b).Write(mean)
		out = append(out, strings.TrimSuffix(b.String(), "\n"))
	}
	return out
}
