# Common settings for the harness scripts. Source it; do not run it.
# shellcheck shell=bash
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../kernel/base.env
. "$TOP/kernel/base.env"
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}
DEBUG=${DEBUG:-0}
# DISTRO=1: the distribution-like bench kernel (kernel/config.distro)
DISTRO=${DISTRO:-0}
# CFI=1: the distribution-like kernel built with clang and kCFI
# (+ kernel/config.cfi, build/kbuild-cfi)
CFI=${CFI:-0}
# CALLDEPTH=1: the distribution-like kernel with call depth tracking's
# counters (+ kernel/config.calldepth, build/kbuild-calldepth)
CALLDEPTH=${CALLDEPTH:-0}
[ "$(printf '%s\n' "$DEBUG" "$DISTRO" "$CFI" "$CALLDEPTH" | grep -cx 1)" -le 1 ] ||
	{ echo "DEBUG=1, DISTRO=1, CFI=1 and CALLDEPTH=1 do not go together" >&2; exit 1; }
# Make variables of the kernel's compiler: modules and test modules of a
# clang kernel are built with clang too
KLLVM=()
[ "$CFI" = 1 ] && KLLVM=(LLVM=-19)
if [ "$DEBUG" = 1 ]; then
	KOUT=${KOUT:-$BUILD/kbuild-debug}
elif [ "$CFI" = 1 ]; then
	KOUT=${KOUT:-$BUILD/kbuild-cfi}
elif [ "$DISTRO" = 1 ]; then
	KOUT=${KOUT:-$BUILD/kbuild-distro}
elif [ "$CALLDEPTH" = 1 ]; then
	KOUT=${KOUT:-$BUILD/kbuild-calldepth}
else
	KOUT=${KOUT:-$BUILD/kbuild}
fi
STOUT=${STOUT:-$KOUT/selftests}
TESTS_TXT=${TESTS_TXT:-$TOP/selftests/tests.txt}
JOBS=${JOBS:-$(nproc)}
CLANG=${CLANG:-clang-19}
LLVM_SUFFIX=${LLVM_SUFFIX:--19}
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/tracing-multi-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
GIT_IDENT=(-c user.name="Tracing Multi Dev" -c user.email="dev@tracing-multi.invalid")

die() { echo "$(basename "$0"): error: $*" >&2; exit 1; }
info() { echo "$(basename "$0"): $*"; }
