package census

import (
	"context"
	"debug/elf"
	"fmt"
	"path/filepath"
	"strings"
)

// FootprintSections are the ELF sections Footprint reports.
var FootprintSections = []string{".text", ".rodata", ".data", ".noptrdata", ".bss", ".noptrbss"}

// SectionSizes returns the sizes of FootprintSections in the ELF file bin.
func SectionSizes(bin string) (map[string]uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sizes := map[string]uint64{}
	for _, name := range FootprintSections {
		if s := f.Section(name); s != nil {
			sizes[name] = s.Size
		}
	}
	return sizes, nil
}

// Footprint builds the program in dir (-trimpath, default layout) with
// each side's toolchain into tmp and returns a Markdown table of its
// section sizes, stock against patched.
func Footprint(ctx context.Context, dir, tmp string, stock, patched Side) (string, error) {
	var sizes [2]map[string]uint64
	for k, s := range []Side{stock, patched} {
		bin := filepath.Join(tmp, "footprint-"+s.Name)
		if err := Build(ctx, s.GOROOT, dir, bin, 0); err != nil {
			return "", err
		}
		m, err := SectionSizes(bin)
		if err != nil {
			return "", err
		}
		sizes[k] = m
	}
	var b strings.Builder
	b.WriteString("| section | stock (bytes) | patched (bytes) | Δ (bytes) | Δ |\n|---|---:|---:|---:|---:|\n")
	for _, name := range FootprintSections {
		s, p := sizes[0][name], sizes[1][name]
		rel := 0.0
		if s > 0 {
			rel = (float64(p)/float64(s) - 1) * 100
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %+d | %+.1f%% |\n", name, s, p, int64(p)-int64(s), rel)
	}
	bss := int64(sizes[1][".bss"]+sizes[1][".noptrbss"]) - int64(sizes[0][".bss"]+sizes[0][".noptrbss"])
	fmt.Fprintf(&b, "| `.bss` + `.noptrbss` | %d | %d | %+d | |\n", sizes[0][".bss"]+sizes[0][".noptrbss"], sizes[1][".bss"]+sizes[1][".noptrbss"], bss)
	return b.String(), nil
}
