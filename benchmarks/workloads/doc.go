// Package workloads holds schedlab's scheduler workloads as Go
// benchmarks (in the _test.go files): fork-join, bursty unbalanced
// spawning, channel pipelines, timer storms, blocking syscalls, parallel
// allocation, a wake-up latency probe and a loopback HTTP server.
//
// memory_test.go adds memory-bound workloads for NUMA placement, where
// the node a goroutine's data was first touched on matters: a fan-out
// whose children read a slab their parent filled (FanOutSharedData), a
// pointer chase over a random cycle 4x the last-level cache reporting
// ns/step (PointerChase), a GC-heavy allocator over a 64 MiB live heap of
// small trees (GCHeavy) and an in-process request/response server whose
// requests carry 4 KiB payloads, reporting p50/p99-latency-ns
// (RequestResponse).
//
// Besides time per op, each reports the scheduler's own view through
// runtime/metrics when the (patched) runtime exports it: steals/op,
// local-steal-share, sysmon-wakeups/op, runq-overflows/op,
// spinning-starts/op, steal-failed/op … and the sampled run-queue
// lengths (mean/p99-global-runq-len, mean/p99-local-runq-len); the
// means of go1.26's scheduler gauges over the timed loop, which every
// runtime since exports (mean-runnable-goroutines, mean-threads …);
// and hardware counters through perfbench when the machine has a PMU.
// docs/knobs-and-metrics.md lists every unit.
//
// Run them through `schedlab bench -suite workloads`, or directly with
// `go test -bench . ./benchmarks/workloads`.
package workloads
