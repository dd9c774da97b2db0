//go:build ignore

// Command switches is the runtime test program TimesliceSwitches
// (src/runtime/testdata/testprog/sysmonknobs.go in the series) as a
// standalone program, so that stock Go can run it too: two goroutines
// spin without function calls on one P for 400 ms, and it prints how
// often the P switched between them.
package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

func main() {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var turn, switches atomic.Int64
	var stop atomic.Bool
	done := make(chan bool)
	spin := func(me int64) {
		for !stop.Load() {
			if turn.Load() != me {
				turn.Store(me)
				switches.Add(1)
			}
		}
		done <- true
	}
	go spin(1)
	go spin(2)
	time.Sleep(400 * time.Millisecond)
	stop.Store(true)
	<-done
	<-done
	fmt.Printf("switches=%d\n", switches.Load())
}
