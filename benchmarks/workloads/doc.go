// Package workloads holds schedlab's scheduler workloads as Go
// benchmarks (in the _test.go files): fork-join, bursty unbalanced
// spawning, channel pipelines, timer storms, blocking syscalls, parallel
// allocation, a wake-up latency probe and a loopback HTTP server.
//
// Besides time per op, each reports the scheduler's own view through
// runtime/metrics when the (patched) runtime exports it: steals/op,
// local-steal-share and sysmon-wakeups/op; and hardware counters through
// perfbench when the machine has a PMU.
//
// Run them through `schedlab bench -suite workloads`, or directly with
// `go test -bench . ./benchmarks/workloads`.
package workloads
