# The map of the project's commands. See README.md.
# DEBUG=1 selects the debug kernel (KASAN, lockdep, PROVE_RCU, kmemleak).

SHELL := /bin/bash
export DEBUG

.PHONY: help deps tree build selftests check bench export vm test bench-case funcstat funcstat-test build-each bpftool-show regress bcm-selftest rewrites debconfig calldepth

help:
	@echo "make check          host checks, builds, listed selftests in the VM (DEBUG=1: debug kernel)"
	@echo "make bench          run_bench_trigger.sh + attach-time bench in the VM, icount mode (MODES=\"icount wall\" adds wall clock)"
	@echo "make test T=name    one test_progs test (or subtest, name/sub) in the VM"
	@echo "make bench-case C=fentry   one bench case in icount mode"
	@echo "make vm RUN='cmd'   run a command in the VM"
	@echo "make funcstat ARGS=\"-d 3 'vfs_*'\"   the example tool (tools/funcstat) in the VM"
	@echo "make funcstat-test  the example tool against a known workload in the VM"
	@echo "make bpftool-show   bpftool link show (plain and JSON) of a tracing_multi link in the VM"
	@echo "make build-each     build every commit of the series on its own (bisectability)"
	@echo "make regress        full test_progs + ftracetest on the base and on the series, same config: prints what regressed (long)"
	@echo "make debconfig      base and series built with Debian's own config, W=1: prints the series' new warnings"
	@echo "make calldepth      retpolines and call depth tracking (retbleed=stuff) against BPF trampolines, on a kernel with its counters"
	@echo "make bcm-selftest   the branch-cost model (TCG plugin) against hand-counted branch sequences"
	@echo "make rewrites       per patch, the lines it deletes that an earlier patch of the series added"
	@echo "make deps | tree | build | selftests | export"

deps:
	scripts/deps.sh
tree:
	scripts/tree.sh
build: tree
	scripts/build.sh
selftests: build
	scripts/selftests-build.sh
check:
	scripts/check.sh
bench:
	scripts/bench.sh
export:
	scripts/export.sh
vm:
	scripts/vm.sh -- bash -c "$(RUN)"
test: selftests
	scripts/vm.sh -- bash -c "cd $(CURDIR)/build/kbuild$(if $(filter 1,$(DEBUG)),-debug)/selftests && ./test_progs -v -t '$(T)'"
bench-case:
	MODES=icount scripts/bench.sh $(C)
funcstat: selftests
	scripts/funcstat.sh $(ARGS)
funcstat-test: selftests
	scripts/funcstat-test.sh
bpftool-show: selftests
	scripts/bpftool-show.sh
build-each: tree
	scripts/build-each.sh
regress: tree
	scripts/regress.sh
bcm-selftest:
	scripts/bcm-selftest.sh
debconfig: tree
	scripts/debconfig.sh
calldepth: selftests
	scripts/calldepth.sh
rewrites: tree
	scripts/series-rewrites.py
