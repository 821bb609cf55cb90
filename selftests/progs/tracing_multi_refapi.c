// SPDX-License-Identifier: GPL-2.0
/* A program written against the API of the reference tracing multi-link
 * series (its cover letter and selftests): SEC("fentry.multi/<glob>") and
 * SEC("fexit.multi/<glob>"), attached by the skeleton or by
 * bpf_program__attach_trace_multi_opts() with syms and cookies. It must
 * build unchanged against the project's libbpf and run on its kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

#define MAX_FUNCS 8

/* bpf_fentry_test1..8 entry addresses, filled in by user space */
__u64 test_ips[MAX_FUNCS] = {};
/* hits and the last cookie seen, per function */
__u64 fentry_hits[MAX_FUNCS] = {};
__u64 fentry_cookie[MAX_FUNCS] = {};
__u64 fexit_hits[MAX_FUNCS] = {};
__u64 fexit_ret[MAX_FUNCS] = {};
__u64 fexit_argc[MAX_FUNCS] = {};
__u64 other_hits = 0;
int pid = 0;

static __always_inline int func_idx(void *ctx)
{
	__u64 ip = bpf_get_func_ip(ctx);
	int i;

	for (i = 0; i < MAX_FUNCS; i++) {
		if (test_ips[i] == ip)
			return i;
	}
	return -1;
}

/* the index of the traced function for a call by the test, or -1 */
static __always_inline int traced_idx(void *ctx)
{
	int i;

	if (bpf_get_current_pid_tgid() >> 32 != pid)
		return -1;
	i = func_idx(ctx);
	if (i < 0)
		other_hits++;
	return i;
}

SEC("fentry.multi/bpf_fentry_test*")
int BPF_PROG(fentry_manual)
{
	int i;

	i = traced_idx(ctx);
	if (i < 0)
		return 0;
	fentry_hits[i]++;
	fentry_cookie[i] = bpf_get_attach_cookie(ctx);
	return 0;
}

SEC("fexit.multi/bpf_fentry_test*")
int BPF_PROG(fexit_auto)
{
	__u64 ret = 0;
	int i;

	i = traced_idx(ctx);
	if (i < 0)
		return 0;
	fexit_hits[i]++;
	bpf_get_func_ret(ctx, &ret);
	fexit_ret[i] = ret;
	fexit_argc[i] = bpf_get_func_arg_cnt(ctx);
	return 0;
}
