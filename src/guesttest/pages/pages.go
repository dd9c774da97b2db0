//go:build linux && amd64

// Package pages asks the kernel where memory is: the node of the CPU a
// thread runs on, whether a page is resident, and the node a resident
// page sits on. The guest programs (numacheck, placement) use it to
// check the runtime's placement against the kernel's own view.
package pages

import (
	"syscall"
	"unsafe"
)

// Size is the kernel's base page size on linux/amd64.
const Size = 4096

const (
	sysGetcpu = 309 // amd64
	mpolFNode = 1
	mpolFAddr = 2
)

// CPUNode returns the node of the CPU the calling thread runs on
// (getcpu(2)).
func CPUNode() (int, bool) {
	var cpu, node uint32
	_, _, e := syscall.RawSyscall(sysGetcpu, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	return int(node), e == 0
}

// Resident reports whether the page holding p is resident (mincore(2)).
func Resident(p unsafe.Pointer) (bool, bool) {
	var vec [1]byte
	page := uintptr(p) &^ (Size - 1)
	_, _, e := syscall.RawSyscall(syscall.SYS_MINCORE, page, Size, uintptr(unsafe.Pointer(&vec[0])))
	return vec[0]&1 != 0, e == 0
}

// Node returns the node of the page holding p
// (get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR)). A page not yet faulted in is
// faulted in as if read, so call it after the write that places it.
func Node(p unsafe.Pointer) (int, bool) {
	var node int32
	_, _, e := syscall.Syscall6(syscall.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&node)), 0, 0, uintptr(p), mpolFNode|mpolFAddr, 0)
	return int(node), e == 0
}
