# schedlab: a patch series over upstream Go, built into a custom toolchain.
# `make` builds the toolchain if its inputs changed and runs the quick
# stock-vs-patched comparison; `make test` is everything CI runs.

SHELL := /bin/bash
ROOT := $(abspath .)
GOROOT_PATCHED := $(ROOT)/toolchain/goroot
BIN := $(ROOT)/.bin
SERIES := $(BIN)/series
SCHEDLAB := $(BIN)/schedlab
# Host go, for building our own tools. GOTOOLCHAIN is left to the host.
HOSTGO := env -u GOROOT -u GOFLAGS go
# Every use of the patched go goes through this: GOROOT explicit and
# GOTOOLCHAIN=local, or a leftover GOTOOLCHAIN=go1.27.3 silently runs stock.
PATCHED_ENV := env -u GOFLAGS GOROOT=$(GOROOT_PATCHED) GOTOOLCHAIN=local PATH=$(GOROOT_PATCHED)/bin:$(PATH)
PATCHED_GO := $(PATCHED_ENV) $(GOROOT_PATCHED)/bin/go
FORCE ?= 0
export FORCE

.PHONY: all harness main toolchain apply extract rebase check check-rebase verify-repro env index test test-tools \
	test-toolchain test-census test-vm test-runtime test-long test-slurm test-prefixes test-mutants bench study studies clean tools install bind

all: toolchain main

tools:
	@mkdir -p $(BIN)
	@$(HOSTGO) build -o $(SERIES) ./src/cmd/series

harness: tools
	@$(HOSTGO) build -o $(SCHEDLAB) ./src/cmd/schedlab

# Puts schedlab on PATH as a symlink to .bin/schedlab in $(BINDIR): the
# binary finds this checkout (and its toolchain) from its own location,
# so it works from any directory.
BINDIR ?= $(HOME)/.local/bin

# results/INDEX.md and INDEX.json, which go test checks; rerun after a
# new results folder, a series change or a new citation in the docs.
index: harness
	@$(SCHEDLAB) index

install: harness
	@mkdir -p $(BINDIR)
	@ln -sf $(SCHEDLAB) $(BINDIR)/schedlab
	@echo "$(BINDIR)/schedlab -> $(SCHEDLAB)"

toolchain: tools
	@$(SERIES) toolchain

apply: tools
	@$(SERIES) apply

extract: tools
	@$(SERIES) extract

rebase: tools
	@test -n "$(UPSTREAM)" || { echo "usage: make rebase UPSTREAM=go1.26.8" >&2; exit 2; }
	@$(SERIES) rebase $(UPSTREAM)

check: tools
	@$(SERIES) check

# Apply and compile the series on another release without re-pinning.
check-rebase: tools
	@test -n "$(UPSTREAM)" || { echo "usage: make check-rebase UPSTREAM=go1.26.11" >&2; exit 2; }
	@$(SERIES) check-rebase $(UPSTREAM)

verify-repro: tools
	@$(SERIES) verify-repro

# eval "$(make -s env)" swaps GOROOT to the patched toolchain in this shell.
env:
	@echo 'export GOROOT=$(GOROOT_PATCHED)'
	@echo 'export PATH=$(GOROOT_PATCHED)/bin:$$PATH'
	@echo 'export GOTOOLCHAIN=local'

# The project's main job: the quick stock-vs-patched comparison.
main: harness
	@scripts/main.sh

bench: toolchain harness
	@scripts/bench.sh

# One of the studies in results/: STUDY=cost|timeslice|sysmontick|numa|guest-numa|multiproc|steal|tracecost|pauses|timeline (scripts/study.sh).
study: toolchain harness
	@scripts/study.sh $(STUDY)

# The headline studies on the current series, resumable (scripts/studies.sh):
# STUDIES selects, DRY=1 only lists. Hours on two cores.
studies: toolchain harness
	@scripts/studies.sh

test: test-tools toolchain check verify-repro test-toolchain test-census test-vm test-runtime

# The default-mode instruction gate: benchmarks/census's programs under
# cachegrind at GOMAXPROCS=1, stock vs patched, median over three link
# layouts; fails if patched costs more than 0.2% instructions/op on
# ping-pong or the ring, or 1% on fork-join, beyond the layout range
# (docs/census.md). About a minute on 2 cores.
test-census: toolchain harness
	@scripts/ensure-packages.sh valgrind=valgrind callgrind_annotate=valgrind
	@$(SCHEDLAB) census -gate -layouts 3 -threshold 0.2 -out $(ROOT)/.cache/census

# Rewrite results/BOUND.tsv after an intended edit of a document's
# numbers (src/internal/claims/bound.go); refuses numbers nothing binds.
bind:
	$(HOSTGO) test ./src/internal/claims -run '^TestNumbersBound$$' -count=1 -update

# Our Go code: the series tooling, the harness, black-box test helpers.
test-tools:
	$(HOSTGO) vet ./...
	@test -z "$$(gofmt -l src benchmarks)" || { echo "gofmt needed:"; gofmt -l src benchmarks; exit 1; }
	$(HOSTGO) test -short ./...

# Black-box tests of the built toolchain.
test-toolchain: toolchain
	SCHEDLAB_GOROOT=$(GOROOT_PATCHED) $(HOSTGO) test -count=1 ./src/toolchaintest/...

# The NUMA support against a real multi-node kernel: numacheck in 2- and
# 4-node QEMU guests (schedlab vm, docs/guest.md); installs QEMU,
# busybox-static, numactl and cpio with apt-get and fetches Debian's cloud
# kernel into .cache/guest if missing. About a minute.
test-vm: toolchain harness
	@scripts/test-vm.sh

# Upstream's runtime tests with the patched toolchain, in every mode.
test-runtime: toolchain
	@scripts/test-runtime.sh

test-long: toolchain
	@scripts/test-long.sh

# schedlab campaign against a real Slurm: installs Debian's slurmctld,
# slurmd and munge, starts a one-machine cluster on loopback, submits a
# two-task campaign of a two-workload numa study and one that fails,
# checks the merged reports and stops the daemons. Root only; not in
# make test (see docs/multi-socket.md for its time). CAMPAIGN=dir keeps
# the first campaign's folder there.
test-slurm: toolchain harness
	@CAMPAIGN="$(CAMPAIGN)" scripts/test-slurm.sh

# Mutation testing, not in make test (about half a minute a mutant on 2
# cores): each headline mechanism of the series disabled in turn
# (src/internal/mutants) must make the runtime tests that guard it fail.
# MUTANTS (a regexp of mutant names) selects; the report goes to
# .cache/mutants/report.md, or MUTANTS_OUT.
test-mutants: toolchain
	@$(SERIES) mutants -run '$(MUTANTS)' $(if $(MUTANTS_OUT),-o $(MUTANTS_OUT))

# Bisectability: go test -short runtime at every prefix of the series.
test-prefixes: toolchain
	@scripts/test-prefixes.sh

clean:
	rm -rf $(BIN) toolchain/repro
	@if [ -d $(GOROOT_PATCHED)/.git ]; then rm -rf $(GOROOT_PATCHED)/bin $(GOROOT_PATCHED)/pkg $(GOROOT_PATCHED)/.git/schedlab-built; fi
