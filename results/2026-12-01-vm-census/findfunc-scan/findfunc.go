//go:build ignore

// Command findfunc predicts, from a Go binary's own pclntab, how many
// times runtime.findfunc's scan loop runs for the entry PC of each named
// function: findfunc starts at the function its 256-byte subbucket's
// table entry names (the one holding the subbucket's start) and steps
// over every function whose entry lies after it and at or before the PC.
//
// Usage: go run findfunc.go BINARY FUNC...
package main

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"sort"
)

const (
	pcbucketsize = 4096 // runtime/symtab.go
	nsub         = 16
)

func main() {
	f, err := elf.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	pcln, err := f.Section(".gopclntab").Data()
	if err != nil {
		panic(err)
	}
	text := f.Section(".text").Addr
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(pcln, text))
	if err != nil {
		panic(err)
	}
	var entries []uint64
	for _, fn := range tab.Funcs {
		entries = append(entries, fn.Entry)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i] < entries[j] })
	minpc := entries[0]
	for _, name := range os.Args[2:] {
		fn := tab.LookupFunc(name)
		if fn == nil {
			panic("no function " + name)
		}
		pc := fn.Entry
		x := pc - minpc
		sb := minpc + x/pcbucketsize*pcbucketsize + x%pcbucketsize/(pcbucketsize/nsub)*(pcbucketsize/nsub)
		// The function holding sb: the last entry <= sb.
		start := sort.Search(len(entries), func(i int) bool { return entries[i] > sb }) - 1
		at := sort.Search(len(entries), func(i int) bool { return entries[i] > pc }) - 1
		fmt.Printf("%s\t%#x\t%d\n", name, pc, at-start)
	}
}
