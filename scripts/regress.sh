#!/usr/bin/env bash
# `make regress`: the regression run as wide as the series' reach. Builds two
# kernels with the same config, one from the pinned base (tag 'base') and one
# from the series (build/linux HEAD), and for each the full test_progs of its
# own tree (its libbpf included) and the ftrace selftests; runs both suites
# on each kernel in the VM; prints every test or subtest that passes on the
# base and does not pass on the series. Not part of `make check`: it takes
# about an hour and a half from cold (see README.md).
#
# Config: tinyconfig + kernel/config.fragment + the base tree's
# tools/testing/selftests/{bpf,ftrace}/config, for both kernels.
#
# Usage: scripts/regress.sh [STEP...]   steps: build run compare;
#   build-base, build-series, run-base, run-series do one side. With no
#   steps: all of them, except the base side when its results kept in
#   selftests/regress-base.txt are of this base and config (the base side
#   needs running once: a new series only needs the series side).
# Environment: REGRESS_TIMEOUT (guest timeout per suite run, s, default 5400),
# REGRESS_DENY (extra test_progs -d patterns, comma-separated),
# REGRESS_PARALLEL (1, the default with two or more CPUs: two guests at a
# time, the two sides side by side in the step run, a side's test_progs and
# ftracetest side by side in run-base or run-series).
# Output: build/regress/{base,series}/ (trees, builds, logs) and
# build/regress/result.txt; the last one is committed as
# selftests/regress-result.txt, the base side's results as
# selftests/regress-base.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

R=$BUILD/regress
steps=("$@")
timeout=${REGRESS_TIMEOUT:-5400}
parallel=${REGRESS_PARALLEL:-$([ "$JOBS" -ge 2 ] && echo 1 || echo 0)}

[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run scripts/tree.sh"
mkdir -p "$R"

# Both trees are worktrees of build/linux, so that they share objects and
# ccache finds the files the series does not touch, and so that the
# regression build leaves build/linux (where the series is edited) alone:
# the base at 'base', the series at build/linux's HEAD when the build step
# ran (its tools/ are patched, see drop_unbuildable()).
tree_of() {
	case "$1" in
	base) echo "$R/base/linux" ;;
	series) echo "$R/series/linux" ;;
	esac
}

make_series_tree() {
	local t=$R/series/linux head
	head=$(git -C "$TREE" rev-parse HEAD)
	if [ ! -e "$t/.git" ]; then
		info "adding the series worktree $t"
		mkdir -p "$R/series"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$t" "$head"
	fi
	git -C "$t" checkout -q -f --detach "$head"
}

make_base_tree() {
	local t=$R/base/linux
	if [ ! -e "$t/.git" ]; then
		info "adding the base worktree $t"
		mkdir -p "$R/base"
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$t" base
	fi
	git -C "$t" checkout -q --detach base
}

# Same fragments, in the same order, for both kernels; options that do not
# survive olddefconfig on tinyconfig are listed, not fatal.
configure() {
	local which=$1 tree kout
	tree=$(tree_of "$which")
	kout=$R/$which/kbuild
	mkdir -p "$kout"
	local frags=("$TOP/kernel/config.fragment"
		"$R/base/linux/tools/testing/selftests/bpf/config"
		"$R/base/linux/tools/testing/selftests/bpf/config.x86_64"
		"$R/base/linux/tools/testing/selftests/ftrace/config")
	local stamp
	stamp=$(config_stamp)
	[ "$(cat "$kout/.config.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	info "configuring $which ($kout)"
	kmake "$tree" "$kout" tinyconfig >/dev/null
	(cd "$kout" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$kout" .config "${frags[@]}" >/dev/null)
	kmake "$tree" "$kout" olddefconfig >/dev/null
	# Our harness needs these whatever the selftests' configs say.
	grep -q '^CONFIG_9P_FS=y' "$kout/.config" || die "$which: the 9p root is not in the config"
	echo "$stamp" >"$kout/.config.stamp"
}

# The two sides' trees and builds sit at the same relative places under $R
# (base/linux and base/kbuild, series/linux and series/kbuild): with $R as
# ccache's base directory and the directory left out of the hash, the
# series build reuses the base build's objects for the files the series
# does not change (their debug info then names the base side's directory).
kmake() {
	local tree=$1 kout=$2
	shift 2
	CCACHE_BASEDIR=$R CCACHE_NOHASHDIR=1 \
		make -s -C "$tree" O="$kout" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"
}

# Debian's 6.12 tree has prog_tests whose BPF programs were not backported
# with them (prog_tests/bpf_attr_size.c includes a skeleton of a missing
# progs/cgroup_skb_direct_packet_access.c): the full test_progs does not
# build. Such tests are left out on both sides alike, and listed in the
# result. The trees are worktrees of the harness, not the user's.
drop_unbuildable() {
	local which=$1 sel t sk
	sel=$(tree_of "$which")/tools/testing/selftests/bpf
	: >"$R/$which/dropped.txt"
	for t in "$sel"/prog_tests/*.c; do
		for sk in $(grep -oE '"[A-Za-z0-9_]+\.(l|sub)?skel\.h"' "$t" | tr -d '"' |
			    sed -E 's/\.(l|sub)?skel\.h$//' | sort -u); do
			[ -f "$sel/progs/$sk.c" ] && continue
			# linked skeletons are made of other files, named in the Makefile
			grep -qE "^$sk\.(skel|lskel)\.h-deps|[ =]$sk\.(skel|lskel)\.h" "$sel/Makefile" && continue
			echo "$(basename "$t" .c): progs/$sk.c is missing" >>"$R/$which/dropped.txt"
			rm -f "$t"
			break
		done
	done
	[ -s "$R/$which/dropped.txt" ] && info "$which: left out, not buildable: $(cut -d: -f1 "$R/$which/dropped.txt" | paste -sd' ')"
	return 0
}

build_one() {
	local which=$1 tree kout st
	tree=$(tree_of "$which")
	kout=$R/$which/kbuild
	st=$kout/selftests
	configure "$which"
	info "$which: building the kernel and modules"
	kmake "$tree" "$kout" bzImage modules >"$R/$which/kbuild.log" 2>&1 ||
		{ tail -n 30 "$R/$which/kbuild.log" >&2; die "$which: kernel build failed"; }
	info "$which: building the full test_progs"
	drop_unbuildable "$which"
	mkdir -p "$st"
	# An interrupted build leaves dependency files naming a skeleton that
	# was not generated yet without its directory, which make then has no
	# rule for: forget them (and their objects), they are rebuilt.
	local d
	for d in "$st"/*.test.d; do
		[ -e "$d" ] || continue
		grep -qE '(^| )[A-Za-z0-9_]+\.(l|sub)?skel\.h' "$d" && rm -f "$d" "${d%.d}.o"
	done
	make -s -C "$tree/tools/testing/selftests/bpf" -j"$JOBS" \
		OUTPUT="$st" VMLINUX_BTF="$kout/vmlinux" KDIR="$kout" \
		CLANG="$CLANG" LLC="llc$LLVM_SUFFIX" LLVM_STRIP="llvm-strip$LLVM_SUFFIX" \
		LLVM_OBJCOPY="llvm-objcopy$LLVM_SUFFIX" \
		"$st/test_progs" >"$R/$which/selftests.log" 2>&1 ||
		{ grep -aE 'error|Error' "$R/$which/selftests.log" | head -n 30 >&2
		  die "$which: test_progs build failed, full log: $R/$which/selftests.log"; }
	# The ftrace samples ftracetest loads (ftrace-direct*.ko) are modules of
	# this kernel: built above with CONFIG_SAMPLES; so is the livepatch
	# that the series' tracing_multi_livepatch loads from test_progs'
	# directory (as scripts/selftests-build.sh puts it there), and the
	# ftrace-direct sample that tracing_multi_checks/ftrace_direct loads.
	for m in livepatch/livepatch-sample.ko ftrace/ftrace-direct.ko; do
		if [ -f "$kout/samples/$m" ]; then
			cp "$kout/samples/$m" "$st/"
		fi
	done
	info "$which: built"
}

# test_progs tests that cannot run in this VM (no network device, no
# cgroup v1 hierarchy, minutes of sleeping) would only add noise and time;
# they are skipped on both kernels alike.
DENY="${REGRESS_DENY:-}"

# run_one SIDE [PAR]: both suites on one side's kernel; PAR 1 runs them in
# two guests side by side, 0 one after the other.
run_one() {
	local which=$1 par=${2:-$parallel} tree kout st out rc
	tree=$(tree_of "$which")
	kout=$R/$which/kbuild
	st=$kout/selftests
	out=$R/$which/run
	rm -rf "$out"
	mkdir -p "$out"
	[ -x "$st/test_progs" ] || die "$which: no test_progs, run the build step"
	local deny=
	[ -n "$DENY" ] && deny="-d $DENY"
	# The guest sees the host read-only: results come back on stdout, which
	# vm.sh keeps in <run>/out.log; its exit status tells a crash (2) from
	# failed tests (1).
	# 6.12's test_progs has no watchdog: each test runs in a test_progs
	# of its own under timeout(1), so that a test that hangs fails alone
	# (as "name:FAIL (timeout)") instead of ending the whole run.
	run_progs() {
		local rc=0
		KOUT=$kout "$TOP/scripts/vm.sh" --timeout "$timeout" --mem 6G --run "$out/progs" -- \
			bash -c "cd $st && ./test_progs -l $deny >/tmp/regress-tests &&
				f=0; for t in \$(cat /tmp/regress-tests); do
					timeout -k 10 300 ./test_progs -a \"\$t\" $deny; r=\$?
					[ \$r = 124 ] && echo \"#0      \$t:FAIL (timeout)\"
					[ \$r = 0 ] || f=1
				done; exit \$f" >"$out/progs.txt" 2>&1 || rc=$?
		echo "$rc" >"$out/progs.rc"
	}
	run_ftrace() {
		local rc=0
		KOUT=$kout "$TOP/scripts/vm.sh" --timeout "$timeout" --run "$out/ftrace" -- \
			bash -c "cd $tree/tools/testing/selftests/ftrace && ./ftracetest -v -l /tmp/ftrace-logs" \
			>"$out/ftrace.txt" 2>&1 || rc=$?
		echo "$rc" >"$out/ftrace.rc"
	}
	# The two suites are independent and each guest has one vCPU: with two
	# host CPUs they run side by side (REGRESS_PARALLEL=0: one after the
	# other).
	if [ "$par" = 1 ]; then
		info "$which: test_progs (every test in its own test_progs, timeout 300 s each) and ftracetest, side by side"
		run_progs &
		local pid=$!
		run_ftrace
		wait "$pid"
	else
		info "$which: test_progs, every test in its own test_progs (timeout 300 s each)"
		run_progs
		info "$which: ftracetest"
		run_ftrace
	fi
	info "$which: done ($out)"
}

# What one side's run left, in one file: "rc<TAB>progs|ftrace<TAB>N" (vm.sh's
# exit status), "report<TAB>progs|ftrace<TAB>line" (console lines that name
# a kernel report, timestamps dropped so that runs compare) and
# "result<TAB>suite name<TAB>PASS|FAIL|SKIP|..." (test_progs tests and
# subtests, ftracetest tests).
collect() {
	local out=$R/$1/run
	python3 - "$out" <<'PY'
import os, re, sys
out = sys.argv[1]
# Whole words only: "stall" must not match "installing" nor the
# command line's rcu_cpu_stall_suppress_at_boot.
pat = re.compile(r"\b(WARNING:|BUG:|Oops|general protection fault|Kernel panic"
                 r"|KASAN:|UBSAN:|lockdep|circular locking|inconsistent lock state"
                 r"|suspicious RCU usage|stalls?|soft lockup|hung_task"
                 r"|kmemleak: suspected)")
for run in ("progs", "ftrace"):
    d = os.path.join(out, run)
    rc = open(d + ".rc").read().strip() if os.path.exists(d + ".rc") else "none"
    print("rc\t%s\t%s" % (run, rc))
    con = os.path.join(d, "console.log")
    if os.path.exists(con):
        for line in open(con, errors="replace"):
            if pat.search(line):
                print("report\t%s\t%s" % (run, line.split("] ", 1)[-1].strip()))
res = {}
line_re = re.compile(r"^#\d+(?:/\d+)?\s+(\S+?):(OK|FAIL|SKIP)\b")
# Each test runs in a test_progs of its own: a failing one prints its
# "All error logs:" section (the failing lines again, with their logs)
# before its Summary line, and the next test's lines follow
skip = False
try:
    for line in open(os.path.join(out, "progs", "out.log"), errors="replace"):
        if line.startswith("All error logs:"):
            skip = True
            continue
        if line.startswith("Summary:"):
            skip = False
            continue
        if line.startswith("#0 "):
            skip = False	# a timeout line (below): no Summary came
        if skip:
            continue
        m = line_re.match(line)
        if m:
            res["test_progs " + m.group(1)] = {"OK": "PASS"}.get(m.group(2), m.group(2))
except FileNotFoundError:
    pass
ft_re = re.compile(r"^\[\d+\]\s+(.*?)\s+\[(PASS|FAIL|UNSUPPORTED|UNTESTED|UNRESOLVED|XFAIL)\]")
try:
    for line in open(os.path.join(out, "ftrace", "out.log"), errors="replace"):
        m = ft_re.match(line.strip())
        if m:
            res["ftracetest " + m.group(1)] = m.group(2)
except FileNotFoundError:
    pass
for k in sorted(res):
    print("result\t%s\t%s" % (k, res[k]))
PY
}

# The base side's results are kept in the repo (BASE_KEPT): the base and
# the config do not change with the series, so a later run of a new series
# needs only build-series run-series compare. The kept file names the base
# version and the config fragments' hash it was run with, and is used only
# if both match.
BASE_KEPT=$TOP/selftests/regress-base.txt

config_stamp() {
	cat "$TOP/kernel/config.fragment" \
		"$R/base/linux/tools/testing/selftests/bpf/config" \
		"$R/base/linux/tools/testing/selftests/bpf/config.x86_64" \
		"$R/base/linux/tools/testing/selftests/ftrace/config" | sha256sum | cut -d' ' -f1
}

base_results() {
	local want
	make_base_tree
	want="# base $BASE_PKG $BASE_VERSION config $(config_stamp)"
	if [ -e "$R/base/run/progs.rc" ] && [ -e "$R/base/run/ftrace.rc" ]; then
		{ echo "$want"; collect base; } >"$R/base/collected.txt"
		return 0
	fi
	[ -e "$BASE_KEPT" ] || die "no base run in $R/base/run and no $BASE_KEPT: run-base first"
	[ "$(head -n 1 "$BASE_KEPT")" = "$want" ] ||
		die "$BASE_KEPT is of another base or config ($(head -n 1 "$BASE_KEPT")): run-base first"
	info "base: the results kept in ${BASE_KEPT#"$TOP"/} (run-base to run it again)"
	cp "$BASE_KEPT" "$R/base/collected.txt"
}

compare() {
	local f=$R/result.txt
	base_results
	collect series >"$R/series/collected.txt"
	python3 - "$R/base/collected.txt" "$R/series/collected.txt" >"$f" <<'PY'
import sys
def load(p):
    rc, rep, res = {}, {}, {}
    for line in open(p):
        if line.startswith("#"):
            continue
        kind, a, b = line.rstrip("\n").split("\t", 2)
        if kind == "rc":
            rc[a] = b
        elif kind == "report":
            rep.setdefault(a, []).append(b)
        elif kind == "result":
            res[a] = b
    return rc, rep, res
sides = {"base": load(sys.argv[1]), "series": load(sys.argv[2])}
base, series = sides["base"][2], sides["series"][2]
def count(d, suite):
    c = {}
    for k, v in d.items():
        if k.startswith(suite + " "):
            c[v] = c.get(v, 0) + 1
    return ", ".join("%s %d" % (v, n) for v, n in sorted(c.items())) or "no results"
print("Regression run: tests that pass on the base and not on the series")
for which in ("base", "series"):
    rc, rep, _ = sides[which]
    for run in ("progs", "ftrace"):
        r = rc.get(run, "none")
        state = {"0": "passed", "1": "some tests failed", "2": "GUEST CRASH, HANG OR KERNEL REPORT"}.get(r, "NOT RUN")
        print("%-6s %-6s vm.sh exit %s: %s, %d console report line(s)" % (which, run, r, state, len(rep.get(run, []))))
newrep = []
for run in ("progs", "ftrace"):
    seen = set(sides["base"][1].get(run, []))
    newrep += ["%s: %s" % (run, l) for l in sides["series"][1].get(run, []) if l not in seen]
print("console reports on the series only: %d" % len(newrep))
for l in newrep[:20]:
    print("  " + l)
for suite in ("test_progs", "ftracetest"):
    print("%-11s base:   %s" % (suite, count(base, suite)))
    print("%-11s series: %s" % (suite, count(series, suite)))
lost = sorted(k for k, v in base.items() if v == "PASS" and series.get(k) != "PASS")
new = sorted(k for k, v in series.items() if k not in base)
print("series-only tests: %d (passing %d)" % (len(new), sum(series[k] == "PASS" for k in new)))
for k in new:
    if series[k] != "PASS":
        print("  %s: series-only, %s" % (k, series[k]))
print("regressions: %d" % len(lost))
for k in lost:
    print("  %s: base PASS, series %s" % (k, series.get(k, "MISSING")))
PY
	cat "$f"
	local n
	n=$(awk '/^regressions:/ { print $2 }' "$f")
	[ "$n" = 0 ] && grep -q '^console reports on the series only: 0$' "$f"
}

# Each step's wall time, kept for the result's header
timed() {
	local what=$1 t0=$SECONDS
	shift
	"$@"
	echo "$what $((SECONDS - t0))" >>"$R/times.txt"
}

# No steps: everything, but the base side only if its kept results are not
# of this base and config.
if [ ${#steps[@]} = 0 ]; then
	make_base_tree
	if [ "$(head -n 1 "$BASE_KEPT" 2>/dev/null)" = "# base $BASE_PKG $BASE_VERSION config $(config_stamp)" ]; then
		info "the base side's results are kept in ${BASE_KEPT#"$TOP"/}: running the series side only"
		steps=(build-series run-series compare)
	else
		steps=(build run compare)
	fi
fi

for s in "${steps[@]}"; do
	case "$s" in
	build) make_base_tree
	       make_series_tree
	       timed "build-base" build_one base
	       timed "build-series" build_one series ;;
	build-base) make_base_tree; timed "build-base" build_one base ;;
	build-series) make_base_tree; make_series_tree; timed "build-series" build_one series ;;
	# Both sides: with two CPUs, the two kernels in two guests side by
	# side, each running its suites one after the other.
	run) if [ "$parallel" = 1 ]; then
		timed "run-base" run_one base 0 &
		pid=$!
		timed "run-series" run_one series 0
		wait "$pid"
	     else
		timed "run-base" run_one base
		timed "run-series" run_one series
	     fi ;;
	run-base) timed "run-base" run_one base ;;
	run-series) timed "run-series" run_one series ;;
	compare) rc=0
		 compare || rc=$?
		 # a base run of this session: keep it for later runs
		 if [ -e "$R/base/run/progs.rc" ] && [ -e "$R/base/run/ftrace.rc" ]; then
			cp "$R/base/collected.txt" "$BASE_KEPT"
			info "base results kept in ${BASE_KEPT#"$TOP"/}"
		 fi
		 {
			echo "# make regress (scripts/regress.sh), $(date -u +%Y-%m-%d)"
			echo "# series: $(git -C "$R/series/linux" rev-list --count base..HEAD) patches on $BASE_PKG $BASE_VERSION, tree HEAD $(git -C "$R/series/linux" rev-parse --short HEAD)"
			echo "# step times (s) of the last runs: $(awk '{ t[$1] = $2 } END { for (k in t) printf "%s %s; ", k, t[k] }' "$R/times.txt" 2>/dev/null)"
			cat "$R/result.txt"
		 } >"$TOP/selftests/regress-result.txt"
		 info "kept in selftests/regress-result.txt"
		 exit $rc ;;
	*) die "unknown step '$s' (build, run, compare, build-base, build-series, run-base, run-series)" ;;
	esac
done
