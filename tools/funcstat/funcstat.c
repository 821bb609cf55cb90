// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * funcstat: count calls and latency of every kernel function that matches
 * one or more globs, through ONE fentry.multi and ONE fexit.multi link.
 *
 * The globs go to libbpf as they are: bpf_program__attach_tracing_multi()
 * expands a comma-separated list of them over the traceable functions of
 * vmlinux (or of a module, "module:glob"), leaving out what a trampoline
 * cannot trace, and attaches the untyped programs to all of them through
 * one link each. The BPF side keys its data by function entry address; the
 * names come back from /proc/kallsyms.
 *
 * Examples:
 *   funcstat 'vfs_*'                # until Ctrl-C
 *   funcstat -d 5 'tcp_*,bpf_*'     # for 5 seconds
 */
#define _GNU_SOURCE	/* strchrnul() */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "funcstat.h"
#include "funcstat.skel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct env {
	char *globs;		/* the user's globs, comma-separated */
	long duration;		/* seconds, 0 = until Ctrl-C */
	long top;		/* rows to print, 0 = all */
	bool verbose;
} env;

const char *argp_program_version = "funcstat 0.1";
const char argp_program_doc[] =
"Count calls and latency of kernel functions matching globs.\n"
"\n"
"One fentry.multi and one fexit.multi BPF program are attached to every\n"
"traceable kernel function whose name matches, through one link each; a\n"
"table sorted by call count is printed on Ctrl-C or after -d SECONDS.\n"
"\n"
"USAGE: funcstat [-d SECONDS] [-n ROWS] [-v] GLOB[,GLOB...] [GLOB...]\n"
"\n"
"EXAMPLES:\n"
"    funcstat 'vfs_*'              # vfs_* functions, until Ctrl-C\n"
"    funcstat -d 5 'tcp_*,bpf_*'   # tcp_* and bpf_* functions, for 5 s\n"
"    funcstat -n 20 '__x64_sys_*'  # the 20 most called system calls\n";

static const struct argp_option opts[] = {
	{ "duration", 'd', "SECONDS", 0, "Trace for SECONDS, then print (default: until Ctrl-C)", 0 },
	{ "top", 'n', "ROWS", 0, "Print only the ROWS most called functions", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (skipped functions, libbpf)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static long parse_long(const char *arg, const char *what, struct argp_state *state)
{
	char *end;
	long val;

	errno = 0;
	val = strtol(arg, &end, 10);
	if (errno || end == arg || *end || val <= 0 || val > INT_MAX)
		argp_error(state, "invalid %s: '%s' (a positive integer)", what, arg);
	return val;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	size_t len;

	switch (key) {
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'd':
		env.duration = parse_long(arg, "duration", state);
		break;
	case 'n':
		env.top = parse_long(arg, "row count", state);
		break;
	case ARGP_KEY_ARG:
		if (!*arg)
			argp_error(state, "empty glob");
		/* several arguments are one more comma-separated list */
		len = env.globs ? strlen(env.globs) + 1 : 0;
		env.globs = realloc(env.globs, len + strlen(arg) + 1);
		if (!env.globs)
			argp_failure(state, 1, ENOMEM, "out of memory");
		if (len)
			env.globs[len - 1] = ',';
		strcpy(env.globs + len, arg);
		break;
	case ARGP_KEY_END:
		if (!env.globs)
			argp_error(state, "no function glob given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time this process spent in user space and in the kernel */
static void cpu_ms(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3;
	*sys = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

/* ------------------------------------------------------------------------ */
/* Names of the traced functions                                             */

static char *read_file(const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 1 << 20;
			p = realloc(buf, cap);
			if (!p)
				goto err;
			buf = p;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				goto err;
			break;
		}
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
err:
	free(buf);
	fclose(f);
	return NULL;
}

struct ksym {
	unsigned long long addr;
	const char *name;
};

struct ksyms {
	struct ksym *syms;	/* sorted by address */
	size_t cnt;
	char *buf;
};

static int ksym_addr_cmp(const void *a, const void *b)
{
	const struct ksym *ka = a, *kb = b;

	return ka->addr < kb->addr ? -1 : ka->addr > kb->addr;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The names of the @nr_ips addresses in @ips (sorted), from /proc/kallsyms;
 * a module function's name is given without its "[module]".
 */
static int load_ksyms(struct ksyms *ks, const __u64 *ips, size_t nr_ips)
{
	size_t cap = 0;
	char *p, *end;

	memset(ks, 0, sizeof(*ks));
	ks->buf = read_file("/proc/kallsyms");
	if (!ks->buf) {
		fprintf(stderr, "funcstat: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return -errno;
	}
	for (p = ks->buf; *p; p = end) {
		unsigned long long addr;
		char *name, type;
		__u64 key;
		int off = 0;

		end = strchrnul(p, '\n');
		if (*end)
			*end++ = '\0';
		/* "addr type name" or "addr type name\t[module]" */
		if (sscanf(p, "%llx %c %n", &addr, &type, &off) != 2 || !off)
			continue;
		key = addr;
		if (!bsearch(&key, ips, nr_ips, sizeof(*ips), u64_cmp))
			continue;
		name = p + off;
		name[strcspn(name, "\t")] = '\0';
		if (ks->cnt == cap) {
			struct ksym *k;

			cap = cap ? cap * 2 : 1024;
			k = realloc(ks->syms, cap * sizeof(*k));
			if (!k)
				return -ENOMEM;
			ks->syms = k;
		}
		ks->syms[ks->cnt].addr = addr;
		ks->syms[ks->cnt].name = name;
		ks->cnt++;
	}
	qsort(ks->syms, ks->cnt, sizeof(*ks->syms), ksym_addr_cmp);
	return 0;
}

static const char *ksym_name(const struct ksyms *ks, unsigned long long addr)
{
	struct ksym key = { .addr = addr }, *k;

	k = bsearch(&key, ks->syms, ks->cnt, sizeof(*ks->syms), ksym_addr_cmp);
	return k ? k->name : NULL;
}

static void ksyms_free(struct ksyms *ks)
{
	free(ks->syms);
	free(ks->buf);
}

/* How many functions a tracing multi-link is attached to */
static int link_func_cnt(const struct bpf_link *link, __u32 *cnt)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int err;

	memset(&info, 0, sizeof(info));
	err = bpf_link_get_info_by_fd(bpf_link__fd(link), &info, &len);
	if (err)
		return -errno;
	*cnt = info.tracing_multi.count;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                    */

struct row {
	__u64 ip;
	struct func_stat st;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *ra = a, *rb = b;

	if (ra->st.count != rb->st.count)
		return ra->st.count < rb->st.count ? 1 : -1;
	return ra->ip < rb->ip ? -1 : ra->ip > rb->ip;
}

static __u64 prog_recursion_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_prog_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

static int print_stats(struct funcstat_bpf *obj, size_t max_rows)
{
	int fd = bpf_map__fd(obj->maps.stats);
	__u64 key, *prev = NULL, calls = 0, misses, *ips;
	struct ksyms ksyms = {}, *ks = &ksyms;
	struct row *rows;
	size_t n = 0, i;
	char addr[32];
	int err;

	rows = calloc(max_rows, sizeof(*rows));
	ips = calloc(max_rows, sizeof(*ips));
	if (!rows || !ips) {
		err = -ENOMEM;
		goto out;
	}
	while (n < max_rows && !bpf_map_get_next_key(fd, prev, &key)) {
		if (!bpf_map_lookup_elem(fd, &key, &rows[n].st)) {
			rows[n].ip = key;
			ips[n] = key;
			calls += rows[n].st.count;
			n++;
		}
		prev = &key;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	qsort(ips, n, sizeof(*ips), u64_cmp);
	err = load_ksyms(ks, ips, n);
	if (err)
		goto out;

	printf("\n%-40s %10s %14s %10s %12s\n", "FUNCTION", "COUNT", "TOTAL(ns)",
	       "AVG(ns)", "MAX(ns)");
	for (i = 0; i < n && (!env.top || i < (size_t)env.top); i++) {
		const struct func_stat *st = &rows[i].st;
		const char *name = ksym_name(ks, rows[i].ip);

		if (!name) {
			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)rows[i].ip);
			name = addr;
		}
		if (st->lat_count)
			printf("%-40s %10llu %14llu %10llu %12llu\n", name,
			       (unsigned long long)st->count, (unsigned long long)st->total_ns,
			       (unsigned long long)(st->total_ns / st->lat_count),
			       (unsigned long long)st->max_ns);
		else
			printf("%-40s %10llu %14s %10s %12s\n", name,
			       (unsigned long long)st->count, "-", "-", "-");
	}
	printf("\n%zu functions called, %llu calls\n", n, (unsigned long long)calls);

	misses = prog_recursion_misses(obj->progs.funcstat_entry) +
		 prog_recursion_misses(obj->progs.funcstat_exit);
	if (misses)
		printf("%llu program runs missed (recursion protection)\n",
		       (unsigned long long)misses);
out:
	ksyms_free(ks);
	free(ips);
	free(rows);
	return err;
}

/* ------------------------------------------------------------------------ */

static struct bpf_link *attach_multi(struct bpf_program *prog)
{
	struct bpf_link *link;

	link = bpf_program__attach_tracing_multi(prog, env.globs, NULL);
	if (!link) {
		int err = -errno;

		fprintf(stderr, "funcstat: failed to attach %s to '%s': %s\n",
			bpf_program__name(prog), env.globs, strerror(-err));
		if (err == -EINVAL)
			fprintf(stderr, "  (a glob that matches no traceable function? -v tells)\n");
		else if (err == -EBUSY)
			fprintf(stderr, "  (a plain fentry/fexit program already traces one of them)\n");
		errno = -err;
	}
	return link;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};
	struct bpf_link *entry_link = NULL, *exit_link = NULL;
	struct funcstat_bpf *obj = NULL;
	double t0, attach_ms, exit_ms, load_ms, deadline, u0, s0, u1, s1;
	__u32 nr_attached = 0, nr_timed = 0;
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;

	if (geteuid() != 0) {
		fprintf(stderr, "funcstat: must be run as root (BPF tracing programs, tracefs, kallsyms)\n");
		return 1;
	}

	libbpf_set_print(libbpf_print_fn);

	obj = funcstat_bpf__open();
	if (!obj) {
		fprintf(stderr, "funcstat: failed to open the BPF object: %s\n", strerror(errno));
		err = 1;
		goto cleanup;
	}

	/* Untyped programs: loaded without a target, checked at attach */
	t0 = now_ms();
	err = funcstat_bpf__load(obj);
	load_ms = now_ms() - t0;
	if (err) {
		fprintf(stderr, "funcstat: failed to load the BPF programs: %s\n", strerror(-err));
		if (err == -EPERM)
			fprintf(stderr, "  (is the kernel locked down, or RLIMIT_MEMLOCK too low?)\n");
		goto cleanup;
	}

	/*
	 * fexit first: it ignores returns without a start time, so no call is
	 * half-timed while the second link is attached.
	 */
	cpu_ms(&u0, &s0);
	t0 = now_ms();
	exit_link = attach_multi(obj->progs.funcstat_exit);
	if (!exit_link) {
		err = -errno;
		goto cleanup;
	}
	exit_ms = now_ms() - t0;
	entry_link = attach_multi(obj->progs.funcstat_entry);
	if (!entry_link) {
		err = -errno;
		goto cleanup;
	}
	attach_ms = now_ms() - t0;
	cpu_ms(&u1, &s1);

	err = link_func_cnt(entry_link, &nr_attached);
	if (!err)
		err = link_func_cnt(exit_link, &nr_timed);
	if (err) {
		fprintf(stderr, "funcstat: failed to read the links' info: %s\n", strerror(-err));
		goto cleanup;
	}
	if (env.verbose) {
		fprintf(stderr, "funcstat: load %.0f ms, attach %.0f ms (fexit.multi %.0f ms, fentry.multi %.0f ms; CPU user %.0f ms, sys %.0f ms)\n",
			load_ms, attach_ms, exit_ms, attach_ms - exit_ms, u1 - u0, s1 - s0);
		fprintf(stderr, "funcstat: fentry.multi link: %u functions, fexit.multi link: %u functions (noreturn ones are not timed)\n",
			nr_attached, nr_timed);
	}

	if (signal(SIGINT, sig_handler) == SIG_ERR || signal(SIGTERM, sig_handler) == SIG_ERR) {
		fprintf(stderr, "funcstat: can't set the signal handler: %s\n", strerror(errno));
		err = 1;
		goto cleanup;
	}

	printf("Tracing %u functions matching '%s' in %.0f ms... Hit Ctrl-C to end.\n",
	       nr_attached, env.globs, attach_ms);
	fflush(stdout);

	deadline = env.duration ? now_ms() + env.duration * 1e3 : 0;
	while (!exiting) {
		double left = deadline ? deadline - now_ms() : 1000;
		struct timespec ts;

		if (left <= 0)
			break;
		if (left > 1000)
			left = 1000;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (long)(left * 1e6) % 1000000000L;
		nanosleep(&ts, NULL);	/* cut short by a signal */
	}

	/* Stop tracing before reading the maps */
	bpf_link__destroy(entry_link);
	bpf_link__destroy(exit_link);
	entry_link = exit_link = NULL;

	err = print_stats(obj, nr_attached ? nr_attached : 1);

cleanup:
	bpf_link__destroy(entry_link);
	bpf_link__destroy(exit_link);
	funcstat_bpf__destroy(obj);
	free(env.globs);
	return err != 0;
}
