#!/usr/bin/env bash
# Prove that `make check` fails, naming the cause, when
#   1. a patch does not apply to the base,
#   2. a selftest fails,
#   3. the kernel WARNs inside the VM.
# Each case runs the real check.sh; this script passes only if all three
# make it exit non-zero with the expected message.
# Usage: scripts/harness-selftest.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ok=0 bad=0
expect() { # name, expected-regex, log
	if grep -Eq "$2" "$3" && grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed' "$3"; then
		echo "harness-selftest: PASS $1: make check failed with: $(grep -Em1 "$2" "$3")"
		ok=$((ok + 1))
	else
		echo "harness-selftest: FAIL $1: expected a failure matching '$2' (log: $3)"
		bad=$((bad + 1))
	fi
}
tmp=$(mktemp -d)
trap 'git -C "$TREE" worktree remove --force "$tmp/linux" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

# 1. A patch that does not apply: a copy of the project with one extra,
#    broken patch, against a separate worktree of the base.
git clone -q "$TOP" "$tmp/proj"
cp -a "$TOP/patches/." "$tmp/proj/patches/" 2>/dev/null || true
cat >"$tmp/proj/patches/9999-broken.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Harness Selftest <harness@invalid>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] harness: a patch whose context is not in the base

---
 kernel/bpf/trampoline.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/kernel/bpf/trampoline.c b/kernel/bpf/trampoline.c
--- a/kernel/bpf/trampoline.c
+++ b/kernel/bpf/trampoline.c
@@ -1,3 +1,3 @@
-this line is not in the base
+nor is this one
 // context
 // context
PATCH
git -C "$TREE" worktree add -q --detach "$tmp/linux" base
(cd "$tmp/proj" && TREE="$tmp/linux" BUILD="$BUILD" scripts/check.sh) >"$tmp/1.log" 2>&1
expect "patch does not apply" "patch does not apply to the base: 9999-broken.patch" "$tmp/1.log"

# 2. A failing selftest, 3. a kernel WARN: the real tree and kernel.
TESTS_TXT="$TOP/selftests/harness-selftest.txt" "$TOP/scripts/check.sh" >"$tmp/2.log" 2>&1
expect "failing selftest" "FAIL harness_selftest_fail" "$tmp/2.log"

lkdtm=$(find "$KOUT" -name lkdtm.ko | head -n 1)
[ -n "$lkdtm" ] || die "no lkdtm.ko in $KOUT (CONFIG_LKDTM=m in kernel/config.fragment)"
VM_PRE="insmod $lkdtm && echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT" \
	TESTS=fentry_test "$TOP/scripts/check.sh" >"$tmp/3.log" 2>&1
expect "kernel WARN" "kernel report in the console: .*WARNING" "$tmp/3.log"

echo "$ok passed, $bad failed"
[ $bad -eq 0 ]
