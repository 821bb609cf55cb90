// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * funcstat: count calls and latency of many kernel functions.
 *
 * One fentry.multi program and one fexit.multi program, untyped (their
 * sections name no function, so they are loaded without a target and read
 * nothing of the traced function's arguments), each attached by the
 * user-space side to all the functions that match the user's globs through
 * a single tracing multi-link.
 *
 * Per-function data is keyed by the function's entry address as returned by
 * bpf_get_func_ip(); user space maps the addresses back to names.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "funcstat.h"

/* function entry address -> statistics: one link takes FUNCSTAT_MAX_FUNCS */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FUNCSTAT_MAX_FUNCS);
	__type(key, __u64);
	__type(value, struct func_stat);
} stats SEC(".maps");

/*
 * (task, function) -> bpf_ktime_get_ns() at entry. An LRU map, so that
 * entries the fexit program never consumes (a function entered before the
 * fexit link existed, or one that does not return) age out instead of
 * filling the map.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FUNCSTAT_MAX_INFLIGHT);
	__type(key, struct start_key);
	__type(value, __u64);
} starts SEC(".maps");

static const struct func_stat zero_stat;

static __always_inline struct func_stat *stat_of(__u64 ip)
{
	struct func_stat *st;

	st = bpf_map_lookup_elem(&stats, &ip);
	if (st)
		return st;
	/* first call of this function: another CPU may race us, that's fine */
	bpf_map_update_elem(&stats, &ip, &zero_stat, BPF_NOEXIST);
	return bpf_map_lookup_elem(&stats, &ip);
}

SEC("fentry.multi")
int BPF_PROG(funcstat_entry)
{
	struct start_key key = {
		.task = (__u64)bpf_get_current_task(),
		.ip = bpf_get_func_ip(ctx),
	};
	struct func_stat *st;
	__u64 ts;

	st = stat_of(key.ip);
	if (st)
		__sync_fetch_and_add(&st->count, 1);

	/*
	 * A recursive call of the same function by the same task (or an
	 * interrupt calling it on top of the task) overwrites the outer call's
	 * start time; the outer call is then not timed, but still counted.
	 */
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&starts, &key, &ts, BPF_ANY);
	return 0;
}

SEC("fexit.multi")
int BPF_PROG(funcstat_exit)
{
	struct start_key key = {
		.task = (__u64)bpf_get_current_task(),
		.ip = bpf_get_func_ip(ctx),
	};
	struct func_stat *st;
	__u64 *tsp, delta;

	tsp = bpf_map_lookup_elem(&starts, &key);
	if (!tsp)
		return 0;	/* entered before the fentry link was attached */
	delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(&starts, &key);

	st = stat_of(key.ip);
	if (!st)
		return 0;
	__sync_fetch_and_add(&st->lat_count, 1);
	__sync_fetch_and_add(&st->total_ns, delta);
	/* racy between CPUs, good enough for a maximum */
	if (delta > st->max_ns)
		st->max_ns = delta;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
