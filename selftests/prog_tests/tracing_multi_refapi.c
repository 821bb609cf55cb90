// SPDX-License-Identifier: GPL-2.0
/* The API of the reference tracing multi-link series, used as its own
 * selftests use it: the fexit.multi program is auto-attached by the
 * skeleton to every bpf_fentry_test* function, the fentry.multi program is
 * attached by bpf_program__attach_trace_multi_opts() to bpf_fentry_test1..8
 * by name with the cookies {1, 7, 2, 3, 4, 5, 6, 8}. This file and its BPF
 * program only use names from the reference series, so that they show that
 * programs written for it build and run against this one.
 */
#include <test_progs.h>
#include "trace_helpers.h"
#include "tracing_multi_refapi.skel.h"

static const char * const syms[] = {
	"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3", "bpf_fentry_test4",
	"bpf_fentry_test5", "bpf_fentry_test6", "bpf_fentry_test7", "bpf_fentry_test8",
};

/* what bpf_fentry_test1..8 return and how many arguments they take when
 * bpf_prog_test_run() of a tracing program calls them
 */
static const __u64 rets[] = { 2, 5, 15, 34, 65, 111, 0, 0 };
static const __u64 argcs[] = { 1, 2, 3, 4, 5, 6, 1, 1 };

/* a tracing program's test_run calls bpf_fentry_test1..8 once each */
static void trigger(struct tracing_multi_refapi *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.fentry_manual), &topts);
	ASSERT_OK(err, "test_run");
}

void test_tracing_multi_refapi(void)
{
	__u64 cookies[] = { 1, 7, 2, 3, 4, 5, 6, 8 };
	LIBBPF_OPTS(bpf_trace_multi_opts, opts);
	struct tracing_multi_refapi *skel;
	struct bpf_link *link = NULL;
	int i, err;

	/* ksym_get_addr() below reads the symbols load_kallsyms() loads */
	if (!ASSERT_OK(load_kallsyms(), "load_kallsyms"))
		return;

	skel = tracing_multi_refapi__open_and_load();
	if (!ASSERT_OK_PTR(skel, "tracing_multi_refapi__open_and_load"))
		return;
	skel->bss->pid = getpid();
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		skel->bss->test_ips[i] = ksym_get_addr(syms[i]);
		if (!ASSERT_NEQ(skel->bss->test_ips[i], 0, syms[i]))
			goto cleanup;
	}

	/* skeleton auto-attach: only the fexit.multi program, the fentry.multi
	 * one is attached by hand below
	 */
	bpf_program__set_autoattach(skel->progs.fentry_manual, false);
	err = tracing_multi_refapi__attach(skel);
	if (!ASSERT_OK(err, "tracing_multi_refapi__attach"))
		goto cleanup;

	opts.syms = (const char **)syms;
	opts.cookies = cookies;
	opts.cnt = ARRAY_SIZE(syms);
	link = bpf_program__attach_trace_multi_opts(skel->progs.fentry_manual, &opts);
	if (!ASSERT_OK_PTR(link, "bpf_program__attach_trace_multi_opts"))
		goto cleanup;

	trigger(skel);

	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		ASSERT_EQ(skel->bss->fentry_hits[i], 1, "fentry_hits");
		ASSERT_EQ(skel->bss->fentry_cookie[i], cookies[i], "fentry_cookie");
		ASSERT_EQ(skel->bss->fexit_hits[i], 1, "fexit_hits");
		ASSERT_EQ(skel->bss->fexit_argc[i], argcs[i], "fexit_argc");
		ASSERT_EQ(skel->bss->fexit_ret[i], rets[i], "fexit_ret");
	}

cleanup:
	bpf_link__destroy(link);
	tracing_multi_refapi__destroy(skel);
}
