#!/usr/bin/env bash
# Build libbpf, bpftool, bpf_testmod.ko, bench and a test_progs that holds
# only the tests in selftests/tests.txt, through the upstream selftests
# Makefile run on a pruned copy (tools/testing/selftests/bpf-harness, ignored
# by the tree's git). Output goes to build/kbuild/selftests.
# Usage: scripts/selftests-build.sh [make targets]   (default: test_progs bench)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -f "$KOUT/vmlinux" ] || die "no $KOUT/vmlinux: run scripts/build.sh first"
[ -f "$KOUT/Module.symvers" ] || die "no $KOUT/Module.symvers: run scripts/build.sh (it builds modules)"
command -v "$CLANG" >/dev/null || die "$CLANG missing: run scripts/deps.sh"

mapfile -t vars < <(python3 "$TOP/scripts/selftests-prune.py" "$TREE" "$TESTS_TXT")
mkdir -p "$STOUT"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(test_progs bench)
targets=("${targets[@]/#/$STOUT/}")

info "building ${targets[*]##*/} in $STOUT"
# A clang kernel's bpf_testmod.ko is built with clang: LLVM=-19 goes to the
# whole make, without the LLVM disassembler (no static LLVM libraries here)
llvm=("${KLLVM[@]}")
[ ${#llvm[@]} -eq 0 ] || llvm+=(feature-llvm=0)
make -s -C "$TREE/tools/testing/selftests/bpf-harness" -f harness.mk -j"$JOBS" "${llvm[@]}" \
	OUTPUT="$STOUT" VMLINUX_BTF="$KOUT/vmlinux" KDIR="$KOUT" \
	CLANG="$CLANG" LLC="llc$LLVM_SUFFIX" LLVM_STRIP="llvm-strip$LLVM_SUFFIX" \
	LLVM_OBJCOPY="llvm-objcopy$LLVM_SUFFIX" \
	"${vars[@]}" "${targets[@]}" >"$STOUT/build.log" 2>&1 || {
	grep -aE 'error|Error' "$STOUT/build.log" | head -n 30 >&2
	die "selftests build failed, full log: $STOUT/build.log"
}
# The livepatch tracing_multi_livepatch loads, a module of this kernel
lp=$KOUT/samples/livepatch/livepatch-sample.ko
if [ -f "$lp" ]; then
	cp "$lp" "$STOUT/"
else
	rm -f "$STOUT/livepatch-sample.ko"
fi
# The other direct ftrace user tracing_multi_checks/ftrace_direct loads:
# samples/ftrace/ftrace-direct.c, built as a module of this kernel out of
# the tree (the config builds no ftrace sample, and the regression run's
# config hash stays as it is)
dm=$KOUT/ftrace-direct-mod
rm -rf "$dm" && mkdir -p "$dm"
cp "$TREE/samples/ftrace/ftrace-direct.c" "$dm/"
echo 'obj-m := ftrace-direct.o' >"$dm/Kbuild"
if make -s -C "$KOUT" "${KLLVM[@]}" M="$dm" modules >"$dm/build.log" 2>&1; then
	cp "$dm/ftrace-direct.ko" "$STOUT/"
else
	rm -f "$STOUT/ftrace-direct.ko"
	grep -aE 'error|Error' "$dm/build.log" | head -n 10 >&2
	die "ftrace-direct sample module build failed, full log: $dm/build.log"
fi
# The CFI kernel's proof that its checks are live (check.sh, CFI=1)
if [ "$CFI" = 1 ]; then
	cm=$KOUT/cfi-mismatch-mod
	rm -rf "$cm" && mkdir -p "$cm"
	cp "$TOP/selftests/cfi/cfi_mismatch.c" "$cm/"
	echo 'obj-m := cfi_mismatch.o' >"$cm/Kbuild"
	make -s -C "$KOUT" "${KLLVM[@]}" M="$cm" modules >"$cm/build.log" 2>&1 ||
		die "cfi_mismatch module build failed, full log: $cm/build.log"
	cp "$cm/cfi_mismatch.ko" "$STOUT/"
fi
info "built ${targets[*]##*/}"
