//go:build ignore

// Command gcstacks is BenchmarkGoroutineBlocking's work outside the runtime
// test binary: 1000 goroutines blocked on channels, woken once per unit,
// and a runtime.GC per unit. Usage: gcstacks N.

package main

import (
	"os"
	"runtime"
	"strconv"
)

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	m := make([]chan struct{}, 1000)
	done := make(chan bool)
	for i := range m {
		m[i] = make(chan struct{}, 1)
		go func(ch chan struct{}) {
			for range ch {
			}
			done <- true
		}(m[i])
	}
	runtime.GC()
	for i := 0; i < n; i++ {
		for _, ch := range m {
			ch <- struct{}{}
		}
		runtime.Gosched()
		runtime.GC()
	}
	for _, ch := range m {
		close(ch)
	}
	for range m {
		<-done
	}
}
