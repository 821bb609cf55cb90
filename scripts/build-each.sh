#!/usr/bin/env bash
# Prove the series is bisectable: build every commit of base..HEAD of the
# kernel tree on its own, in a separate worktree (build/each) and separate
# output directories (build/kbuild-each), so build/linux and build/kbuild are
# left alone. What is built depends on what the commit touches:
#   anything outside tools/         -> bzImage and modules (build.sh)
#   tools/lib/bpf, tools/include    -> libbpf (make -C tools/lib/bpf)
#   tools/bpf/bpftool               -> bpftool
#   tools/testing/selftests/bpf     -> test_progs and bench (selftests-build.sh)
# A commit fails if its build fails or if the compiler prints a warning for a
# file the commit touches, or objtool prints any warning. Prints one line per commit and a closing
# "N passed, N failed" line; exits non-zero if any commit failed.
# Usage: scripts/build-each.sh [FIRST [LAST]]   (commit numbers, 1-based)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no kernel tree at $TREE: run scripts/tree.sh"
git -C "$TREE" diff --quiet HEAD || die "$TREE has uncommitted changes: commit them first"
mapfile -t commits < <(git -C "$TREE" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "no commits in base..HEAD of $TREE"
first=${1:-1} last=${2:-${#commits[@]}}
case "$first$last" in *[!0-9]*) die "FIRST and LAST must be commit numbers" ;; esac
[ "$first" -ge 1 ] && [ "$last" -le ${#commits[@]} ] && [ "$first" -le "$last" ] ||
	die "commit numbers must be within 1..${#commits[@]}"

wt=$BUILD/each
each_kout=$BUILD/kbuild-each
logs=$BUILD/each-logs
if [ ! -d "$wt" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" base
fi
mkdir -p "$logs"

# Warnings the compiler printed for the files this commit touches
touched_warnings() {
	local log=$1 c=$2 f
	while IFS= read -r f; do
		grep -aE "(^|/)${f//./\\.}:[0-9]+:[0-9]+: warning:" "$log" || true
	done < <(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$c")
	grep -a 'warning: objtool:' "$log" || true
}

# The tests of selftests/tests.txt that this commit's tree defines: the
# series' tests do not exist before its selftests patches, and the project's
# own tests (selftests/prog_tests) use the whole series.
each_tests() {
	local out=$1 line name
	: >"$out"
	while IFS= read -r line; do
		name=$(sed 's/#.*//' <<<"$line" | awk 'NF {print $1}')
		name=${name#!}
		name=${name#\~}
		name=${name%%/*}
		[ -n "$name" ] || continue
		grep -qsE "^void (serial_)?test_${name}[[:space:]]*\(" \
			"$wt"/tools/testing/selftests/bpf/prog_tests/*.c &&
			echo "$line" >>"$out"
	done <"$TESTS_TXT"
}

build_one() {
	local c=$1 log=$2 paths
	paths=$(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$c")
	if grep -qv '^tools/' <<<"$paths"; then
		echo "== kernel" >>"$log"
		TREE=$wt KOUT=$each_kout "$TOP/scripts/build.sh" >>"$log" 2>&1 || return 1
	fi
	if grep -qE '^tools/(lib/bpf|include)/' <<<"$paths"; then
		echo "== libbpf" >>"$log"
		mkdir -p "$each_kout/libbpf"
		make -C "$wt/tools/lib/bpf" OUTPUT="$each_kout/libbpf/" -j"$JOBS" \
			EXTRA_CFLAGS=-Werror >>"$log" 2>&1 || return 1
	fi
	if grep -qE '^tools/(bpf/bpftool|lib/bpf|include)/' <<<"$paths"; then
		echo "== bpftool" >>"$log"
		mkdir -p "$each_kout/bpftool"
		make -C "$wt/tools/bpf/bpftool" OUTPUT="$each_kout/bpftool/" -j"$JOBS" \
			>>"$log" 2>&1 || return 1
	fi
	if grep -qE '^tools/(testing/selftests/bpf|lib/bpf|include)/' <<<"$paths"; then
		echo "== selftests" >>"$log"
		each_tests "$logs/tests.txt"
		TREE=$wt KOUT=$each_kout STOUT=$each_kout/selftests TESTS_TXT=$logs/tests.txt \
			"$TOP/scripts/selftests-build.sh" >>"$log" 2>&1 || return 1
	fi
	return 0
}

trap 'echo "build-each.sh: error: line $LINENO failed" >&2' ERR
passed=0 failed=0
for ((i = first; i <= last; i++)); do
	c=${commits[i - 1]}
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	log=$logs/$(printf %04d "$i").log
	: >"$log"
	git -C "$wt" checkout -q --detach "$c"
	# Builds go out of the tree, but for what a module's Makefile leaves in
	# it (bpf_test_twoproto): a directory of a later commit that checkout
	# could not remove breaks the build of an earlier one
	git -C "$wt" clean -ffdxq
	# The selftests build needs the kernel of this commit: a tools-only
	# commit reuses the kernel of the last commit that touched it, so
	# build it first (incrementally) when starting anywhere: build/kbuild-each
	# may hold the kernel of another commit.
	if [ "$i" = "$first" ]; then
		TREE=$wt KOUT=$each_kout "$TOP/scripts/build.sh" >>"$log" 2>&1 || true
	fi
	start=$SECONDS
	if build_one "$c" "$log"; then
		warn=$(touched_warnings "$log" "$c")
		if [ -z "$warn" ]; then
			printf 'ok   %2d %s (%ds)\n' "$i" "$subject" $((SECONDS - start))
			passed=$((passed + 1))
			continue
		fi
		printf 'FAIL %2d %s: warnings\n%s\n' "$i" "$subject" "$warn"
	else
		printf 'FAIL %2d %s: build failed, log %s\n' "$i" "$subject" "$log"
		grep -aE 'error|Error' "$log" | head -n 10
	fi
	failed=$((failed + 1))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
