#!/usr/bin/env bash
# Build tools/funcstat if needed and run it in the VM (icount mode, one vCPU)
# with the given arguments, e.g.
#
#   scripts/funcstat.sh -d 3 'vfs_*'
#   scripts/funcstat.sh -d 5 -n 20 'tcp_*,__x64_sys_*'
#
# The guest has no terminal to press Ctrl-C in: without -d, funcstat traces
# for 5 seconds. FUNCSTAT_TIMEOUT (default 300 s) bounds the whole VM run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: scripts/funcstat.sh [-d SECONDS] [-n ROWS] [-v] GLOB[,GLOB...]"
make -s -C "$TOP/tools/funcstat" KOUT="$KOUT" || die "building funcstat failed"

duration=(-d 5)
for a in "$@"; do
	case "$a" in
	--) break ;;
	-d* | --duration* | -[!-]*d*) duration=() ;;
	esac
done
[ ${#duration[@]} -eq 0 ] || info "no -d given: tracing for 5 s (no Ctrl-C in the guest)"

exec "$TOP/scripts/vm.sh" --mode icount --timeout "${FUNCSTAT_TIMEOUT:-300}" -- \
	"$BUILD/funcstat/funcstat" "${duration[@]}" "$@"
