// Package mbindprice times the one system call that heap windows by node
// (GODEBUG numamem=2) make in steady state: mbind(2) with MPOL_PREFERRED
// over a freshly mapped heap range, once per heap growth in a window. The
// cost study (../run.sh) multiplies it by the calls per op the guests
// count.
package mbindprice

import (
	"syscall"
	"testing"
	"unsafe"
)

// BenchmarkMbindPreferred maps a range of the given size, as mheap.grow's
// sysMap does, and gives it MPOL_PREFERRED for node 0 (every machine has
// it); the mapping is outside the timer.
func BenchmarkMbindPreferred(b *testing.B) {
	for _, mib := range []int{4, 64} {
		b.Run(map[int]string{4: "range=4MiB", 64: "range=64MiB"}[mib], func(b *testing.B) {
			n := mib << 20
			var mask [16]uint64
			mask[0] = 1
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				const mpolPreferred = 1
				_, _, errno := syscall.Syscall6(syscall.SYS_MBIND, uintptr(unsafe.Pointer(&mem[0])), uintptr(n), mpolPreferred,
					uintptr(unsafe.Pointer(&mask[0])), 1025, 0)
				b.StopTimer()
				if errno != 0 {
					b.Fatal("mbind:", errno)
				}
				syscall.Munmap(mem)
				b.StartTimer()
			}
		})
	}
}
