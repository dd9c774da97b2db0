package census

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Functions runs r under callgrind and returns each function's
// instructions: self (exclusive) costs, or inclusive ones, from
// callgrind_annotate, summed over the source files that code of the
// function (inlined code included) came from.
//
// Callgrind cannot follow Go's preemption signal (it aborts in
// vgCallgrind_post_signal), so r's environment should carry
// GODEBUG=asyncpreemptoff=1 on both sides of a comparison.
func Functions(ctx context.Context, r Run, out string, inclusive bool) (map[string]uint64, error) {
	if err := valgrind(ctx, r, "--tool=callgrind", "--callgrind-out-file="+out); err != nil {
		return nil, err
	}
	ann := []string{"--threshold=100"}
	if inclusive {
		ann = append(ann, "--inclusive=yes")
	}
	data, err := exec.CommandContext(ctx, "callgrind_annotate", append(ann, out)...).Output()
	if err != nil {
		return nil, fmt.Errorf("callgrind_annotate %s: %v", out, err)
	}
	return ParseAnnotate(data), nil
}

// annotateLine matches a callgrind_annotate cost line:
// "  5,000,569 ( 6.35%)  ./runtime/proc.go:runtime.schedule [/tmp/bin]".
var annotateLine = regexp.MustCompile(`^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+)`)

// ParseAnnotate returns the costs of callgrind_annotate's output by
// function, with the source file dropped.
func ParseAnnotate(data []byte) map[string]uint64 {
	costs := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := annotateLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, err := strconv.ParseUint(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			continue
		}
		fn := m[2]
		if _, after, ok := strings.Cut(fn, ":"); ok {
			fn = after
		}
		// Callgrind names the n'th level of a recursion or call
		// cycle fn'n; which level a call lands in changes with the
		// interleaving, so the levels are one function here.
		if i := strings.LastIndexByte(fn, '\''); i > 0 && isDigits(fn[i+1:]) {
			fn = fn[:i]
		}
		if fn == "PROGRAM" || strings.HasPrefix(fn, "PROGRAM") {
			fn = "PROGRAM TOTALS"
		}
		costs[fn] += n
	}
	return costs
}

// A FuncDiff is one function's instructions in the two builds of a
// comparison, each the median over layouts.
type FuncDiff struct {
	Name         string
	Stock, Patch float64 // median over layouts
	// Spread is the larger of the two builds' ranges over layouts:
	// how much the function moves when only the layout changes.
	Spread float64
	Label  string // code, layout, new or gone
}

// Delta is Patch - Stock.
func (d FuncDiff) Delta() float64 { return d.Patch - d.Stock }

// DiffFunctions compares per-function costs of several layouts of two
// builds and returns the functions whose median moved by more than
// minShare of total (the stock program's median total), largest first.
//
// Each is labelled: "new" (only the patched build has it: new code, or
// code no longer inlined), "gone" (only stock has it: inlined now, or
// removed), "layout" (the move is within the range the function shows
// over layouts of one build: where functions sit, e.g. pclntab lookups
// in findfunc), or "code" (a real change in what the function does).
func DiffFunctions(stock, patched []map[string]uint64, total, minShare float64) []FuncDiff {
	names := map[string]bool{}
	for _, runs := range [][]map[string]uint64{stock, patched} {
		for _, r := range runs {
			for n := range r {
				names[n] = true
			}
		}
	}
	var out []FuncDiff
	for n := range names {
		if n == "PROGRAM TOTALS" {
			continue
		}
		s, sIn := column(stock, n)
		p, pIn := column(patched, n)
		d := FuncDiff{Name: n, Stock: Median(s), Patch: Median(p)}
		d.Spread = math.Max(slices.Max(s)-slices.Min(s), slices.Max(p)-slices.Min(p))
		if math.Abs(d.Delta()) <= minShare*total {
			continue
		}
		switch {
		case !sIn:
			d.Label = "new"
		case !pIn:
			d.Label = "gone"
		case math.Abs(d.Delta()) <= d.Spread:
			d.Label = "layout"
		default:
			d.Label = "code"
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b FuncDiff) int {
		if c := -cmpFloat(math.Abs(a.Delta()), math.Abs(b.Delta())); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// column returns name's cost in each run (0 where absent) and whether
// any run has it.
func column(runs []map[string]uint64, name string) ([]float64, bool) {
	var xs []float64
	any := false
	for _, r := range runs {
		v, ok := r[name]
		any = any || ok
		xs = append(xs, float64(v))
	}
	return xs, any
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
