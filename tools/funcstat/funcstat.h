/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * funcstat: count calls and latency of many kernel functions through one
 * fentry.multi and one fexit.multi link. Types shared by the BPF program
 * (funcstat.bpf.c) and the user-space tool (funcstat.c).
 */
#ifndef __FUNCSTAT_H
#define __FUNCSTAT_H

/* The most functions one tracing multi-link takes (MAX_TRACING_MULTI_CNT) */
#define FUNCSTAT_MAX_FUNCS	(100 * 1024)

/* In-flight calls timed at once (entries of the start-time map) */
#define FUNCSTAT_MAX_INFLIGHT	16384

/* Per-function statistics, keyed by the function's entry address */
struct func_stat {
	__u64 count;		/* calls seen by the fentry program */
	__u64 lat_count;	/* returns timed by the fexit program */
	__u64 total_ns;		/* sum of the timed calls' latencies */
	__u64 max_ns;		/* longest timed call (best effort) */
};

/* Key of a call in flight: which task entered which function */
struct start_key {
	__u64 task;		/* struct task_struct *, unique even for idle tasks */
	__u64 ip;		/* function entry address, from bpf_get_func_ip() */
};

#endif /* __FUNCSTAT_H */
