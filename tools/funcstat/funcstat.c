// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * funcstat: count calls and latency of every kernel function that matches
 * one or more globs, through ONE fentry.multi and ONE fexit.multi link.
 *
 * The globs are expanded here: every FUNC of the vmlinux BTF whose name
 * matches and that ftrace can patch (it is listed in available_filter_functions)
 * becomes a target. Both programs are loaded against the first target and
 * attached to all of them with bpf_program__attach_trace_multi_opts(), which
 * drops (skip_invalid) what the kernel could not trace. The BPF side keys its
 * data by function entry address; the names come back from /proc/kallsyms.
 *
 * Examples:
 *   funcstat 'vfs_*'                # until Ctrl-C
 *   funcstat -d 5 'tcp_*,bpf_*'     # for 5 seconds
 */
#define _GNU_SOURCE	/* strchrnul() */
#include <argp.h>
#include <errno.h>
#include <fnmatch.h>
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
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "funcstat.h"
#include "funcstat.skel.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The global trampoline passes at most this many argument registers
 * (BPF_GTRAMP_MAX_ARGS in the series); the kernel refuses the whole link
 * with -E2BIG for a target that takes more.
 */
#define MAX_ARG_REGS	6
/* Structs of up to 16 bytes are passed by value in registers */
#define MAX_STRUCT_ARG	16

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

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/* ------------------------------------------------------------------------ */
/* The functions ftrace can patch                                           */

struct name_set {
	char *buf;
	char **names;		/* sorted */
	size_t cnt;
};

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

/* available_filter_functions: "name" or "name [module]", one a line */
static int load_avail(struct name_set *set)
{
	static const char * const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	size_t i, cap = 0;
	char *p, *end;
	int err = 0;

	memset(set, 0, sizeof(*set));
	for (i = 0; i < ARRAY_SIZE(paths) && !set->buf; i++) {
		set->buf = read_file(paths[i]);
		if (!set->buf && !err)
			err = -errno;
	}
	if (!set->buf) {
		fprintf(stderr, "funcstat: cannot read %s: %s\n"
			"  (is tracefs mounted? mount -t tracefs nodev /sys/kernel/tracing)\n",
			paths[0], strerror(-err));
		return err;
	}

	for (p = set->buf; *p; p = end) {
		end = strchrnul(p, '\n');
		if (*end)
			*end++ = '\0';
		/* only vmlinux functions: this tool walks the vmlinux BTF */
		if (!*p || strchr(p, ' ') || strchr(p, '\t'))
			continue;
		if (set->cnt == cap) {
			char **names;

			cap = cap ? cap * 2 : 32768;
			names = realloc(set->names, cap * sizeof(*names));
			if (!names)
				return -ENOMEM;
			set->names = names;
		}
		set->names[set->cnt++] = p;
	}
	qsort(set->names, set->cnt, sizeof(*set->names), str_ptr_cmp);
	return 0;
}

static bool name_set_has(const struct name_set *set, const char *name)
{
	return bsearch(&name, set->names, set->cnt, sizeof(*set->names), str_ptr_cmp);
}

static void name_set_free(struct name_set *set)
{
	free(set->names);
	free(set->buf);
}

/* ------------------------------------------------------------------------ */
/* Glob expansion over the vmlinux BTF                                      */

struct target {
	const char *name;	/* in the BTF's strings */
	__u32 btf_id;
	const char *skip;	/* why it is not attached, or NULL */
	unsigned long long addr;	/* lowest address of the name in kallsyms */
	unsigned int nr_addrs;		/* functions of that name in kallsyms */
};

struct targets {
	struct target *tgts;	/* every matching name once, sorted by name */
	size_t cnt;
	const char **syms;	/* the names to attach to */
	size_t nr_syms;
};

/* kernel/bpf/verifier.c: btf_id_deny, refused as targets */
static const char * const deny_list[] = {
	"migrate_disable", "migrate_enable", "rcu_read_unlock_strict",
	"preempt_count_add", "preempt_count_sub",
	"__rcu_read_lock", "__rcu_read_unlock",
};

/* kernel/bpf/verifier.c: noreturn_deny, no fexit on those */
static const char * const noreturn_list[] = {
	"__ia32_sys_exit", "__ia32_sys_exit_group", "__kunit_abort",
	"kunit_try_catch_throw", "__module_put_and_kthread_exit",
	"__x64_sys_exit", "__x64_sys_exit_group", "do_exit", "do_group_exit",
	"kthread_complete_and_exit", "kthread_exit", "make_task_dead",
};

static bool in_list(const char *name, const char * const *list, size_t cnt)
{
	size_t i;

	for (i = 0; i < cnt; i++) {
		if (!strcmp(name, list[i]))
			return true;
	}
	return false;
}

/*
 * Functions that are unsafe to trace even though ftrace lists them: the idle
 * loop and RCU internals run where RCU is not watching, and the XDP
 * dispatcher is rewritten at run time. The same ones that the kprobe_multi
 * and tracing_multi attach benchmarks skip.
 */
static bool unsafe_func(const char *name)
{
	return !strncmp(name, "rcu_", 4) || !strcmp(name, "arch_cpu_idle") ||
	       !strcmp(name, "default_idle") || !strcmp(name, "bpf_dispatcher_xdp_func");
}

/* Argument registers a value of type @id takes, or -1 if not passable */
static int type_regs(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;
	int rid = btf__resolve_type(btf, id), size;

	if (rid < 0)
		return -1;
	t = btf__type_by_id(btf, rid);
	if (btf_is_ptr(t))
		return 1;
	/* the kernel passes structs by value, not unions */
	if (!btf_is_int(t) && !btf_is_any_enum(t) && !btf_is_struct(t))
		return -1;
	size = t->size;
	if (size <= 0 || size > MAX_STRUCT_ARG)
		return -1;
	return (size + 7) / 8;
}

/* Why the global trampoline cannot run a program for function @t, or NULL */
static const char *proto_unsupported(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_type *proto = btf__type_by_id(btf, t->type);
	const struct btf_param *params;
	int i, n, r, regs = 0;

	if (!proto || !btf_is_func_proto(proto))
		return "no function prototype";
	n = btf_vlen(proto);
	params = btf_params(proto);
	if (n && !params[n - 1].type)
		return "variadic";
	if (proto->type) {
		int rid = btf__resolve_type(btf, proto->type);
		const struct btf_type *rt = rid < 0 ? NULL : btf__type_by_id(btf, rid);

		if (!rt || !(btf_is_ptr(rt) || btf_is_int(rt) || btf_is_any_enum(rt)))
			return "returns a struct, union or float";
	}
	for (i = 0; i < n; i++) {
		r = type_regs(btf, params[i].type);
		if (r < 0)
			return "has an argument of an unsupported type";
		regs += r;
	}
	if (regs > MAX_ARG_REGS)
		return "takes more than 6 argument registers";
	return NULL;
}

static bool match_globs(const char *name, char * const *globs, size_t nr_globs)
{
	size_t i;

	for (i = 0; i < nr_globs; i++) {
		if (!fnmatch(globs[i], name, 0))
			return true;
	}
	return false;
}

static int target_name_cmp(const void *a, const void *b)
{
	const struct target *ta = a, *tb = b;

	return strcmp(ta->name, tb->name);
}

/*
 * Expand env.globs into @res: every vmlinux BTF function whose name matches,
 * once per name, with the reason it cannot be traced if it cannot.
 */
static int find_targets(const struct btf *btf, const struct name_set *avail,
			struct targets *res)
{
	char *list, *tok, *save, **globs = NULL;
	size_t nr_globs = 0, cap = 0, i, j;
	__u32 id, n = btf__type_cnt(btf);
	int err = 0;

	memset(res, 0, sizeof(*res));
	list = strdup(env.globs);
	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **p = realloc(globs, (nr_globs + 1) * sizeof(*globs));

		if (!p) {
			err = -ENOMEM;
			goto out;
		}
		globs = p;
		globs[nr_globs++] = tok;
	}
	if (!nr_globs) {
		fprintf(stderr, "funcstat: no glob in '%s'\n", env.globs);
		err = -EINVAL;
		goto out;
	}

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !match_globs(name, globs, nr_globs))
			continue;
		if (res->cnt == cap) {
			struct target *p;

			cap = cap ? cap * 2 : 1024;
			p = realloc(res->tgts, cap * sizeof(*p));
			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			res->tgts = p;
		}
		memset(&res->tgts[res->cnt], 0, sizeof(*res->tgts));
		res->tgts[res->cnt].name = name;
		res->tgts[res->cnt].btf_id = id;
		res->cnt++;
	}
	if (!res->cnt)
		goto out;

	/* One entry per name: static functions of several files may share one */
	qsort(res->tgts, res->cnt, sizeof(*res->tgts), target_name_cmp);
	for (i = 1, j = 1; i < res->cnt; i++) {
		if (strcmp(res->tgts[i].name, res->tgts[j - 1].name))
			res->tgts[j++] = res->tgts[i];
	}
	res->cnt = j;

	res->syms = calloc(res->cnt, sizeof(*res->syms));
	if (!res->syms) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < res->cnt; i++) {
		struct target *tgt = &res->tgts[i];

		if (!name_set_has(avail, tgt->name))
			tgt->skip = "not in available_filter_functions";
		else if (in_list(tgt->name, deny_list, ARRAY_SIZE(deny_list)))
			tgt->skip = "on the kernel's deny list";
		else if (unsafe_func(tgt->name))
			tgt->skip = "unsafe to trace (idle loop, RCU internals)";
		else
			tgt->skip = proto_unsupported(btf, btf__type_by_id(btf, tgt->btf_id));
		if (!tgt->skip)
			res->syms[res->nr_syms++] = tgt->name;
	}
out:
	free(globs);
	free(list);
	return err;
}

static void targets_free(struct targets *t)
{
	free(t->tgts);
	free(t->syms);
}

/* ------------------------------------------------------------------------ */
/* Function addresses                                                        */

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

/* The addresses of the names in @syms (sorted), from /proc/kallsyms */
static int load_ksyms(struct ksyms *ks, const char **syms, size_t nr_syms)
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
		int off = 0;

		end = strchrnul(p, '\n');
		if (*end)
			*end++ = '\0';
		/* "addr type name" or "addr type name\t[module]" */
		if (sscanf(p, "%llx %c %n", &addr, &type, &off) != 2 || !off)
			continue;
		name = p + off;
		if (strchr(name, '\t'))
			continue;
		if (!bsearch(&name, syms, nr_syms, sizeof(*syms), str_ptr_cmp))
			continue;
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

static int u64_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The addresses ftrace can patch (available_filter_functions_addrs, 6.5+) */
static unsigned long long *load_ftrace_addrs(size_t *cnt)
{
	unsigned long long *addrs = NULL, *p, addr;
	size_t cap = 0;
	char line[512];
	FILE *f;

	*cnt = 0;
	f = fopen("/sys/kernel/tracing/available_filter_functions_addrs", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/tracing/available_filter_functions_addrs", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx", &addr) != 1)
			continue;
		if (*cnt == cap) {
			cap = cap ? cap * 2 : 32768;
			p = realloc(addrs, cap * sizeof(*addrs));
			if (!p) {
				free(addrs);
				fclose(f);
				*cnt = 0;
				return NULL;
			}
			addrs = p;
		}
		addrs[(*cnt)++] = addr;
	}
	fclose(f);
	qsort(addrs, *cnt, sizeof(*addrs), u64_cmp);
	return addrs;
}

static bool ftrace_addr(const unsigned long long *addrs, size_t cnt, unsigned long long addr)
{
	unsigned long long ibt = addr + 4;	/* after an endbr64 */

	return bsearch(&addr, addrs, cnt, sizeof(*addrs), u64_cmp) ||
	       bsearch(&ibt, addrs, cnt, sizeof(*addrs), u64_cmp);
}

/*
 * Several kernel functions can share a name (static functions of different
 * files) while the BTF has one FUNC for it. The kernel attaches to the copy
 * with the lowest address, as kallsyms_lookup_name() does, and refuses the
 * whole link with -EINVAL if ftrace cannot patch that copy, even when it can
 * patch another one (t_start, t_next, t_stop on 6.12). Drop such names.
 * Returns how many were dropped.
 */
static size_t drop_ambiguous(struct targets *tg, const struct ksyms *ks)
{
	unsigned long long *addrs;
	size_t nr_addrs, i, dropped = 0;

	for (i = 0; i < ks->cnt; i++) {
		struct target key = { .name = ks->syms[i].name }, *tgt;

		tgt = bsearch(&key, tg->tgts, tg->cnt, sizeof(*tg->tgts), target_name_cmp);
		if (!tgt)
			continue;
		/* ks->syms is sorted by address: the first one is the lowest */
		if (!tgt->nr_addrs++)
			tgt->addr = ks->syms[i].addr;
	}

	addrs = load_ftrace_addrs(&nr_addrs);
	if (!addrs)
		return 0;	/* older kernel: let the kernel decide */
	tg->nr_syms = 0;
	for (i = 0; i < tg->cnt; i++) {
		struct target *tgt = &tg->tgts[i];

		if (!tgt->skip && tgt->nr_addrs > 1 && !ftrace_addr(addrs, nr_addrs, tgt->addr)) {
			tgt->skip = "ambiguous name, the kernel would pick a copy ftrace cannot patch";
			dropped++;
		}
		if (!tgt->skip)
			tg->syms[tg->nr_syms++] = tgt->name;
	}
	free(addrs);
	return dropped;
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

static int print_stats(struct funcstat_bpf *obj, const struct ksyms *ks, size_t max_rows)
{
	int fd = bpf_map__fd(obj->maps.stats);
	__u64 key, *prev = NULL, calls = 0, misses;
	struct row *rows;
	size_t n = 0, i;
	char addr[32];

	rows = calloc(max_rows, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	while (n < max_rows && !bpf_map_get_next_key(fd, prev, &key)) {
		if (!bpf_map_lookup_elem(fd, &key, &rows[n].st)) {
			rows[n].ip = key;
			calls += rows[n].st.count;
			n++;
		}
		prev = &key;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);

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
	free(rows);
	return 0;
}

/* ------------------------------------------------------------------------ */

static struct bpf_link *attach_multi(struct bpf_program *prog, const struct targets *tg)
{
	LIBBPF_OPTS(bpf_trace_multi_opts, opts,
		.syms = tg->syms,
		.cnt = tg->nr_syms,
		/* drop what the kernel cannot trace, as libbpf knows it */
		.skip_invalid = true,
	);
	struct bpf_link *link;

	link = bpf_program__attach_trace_multi_opts(prog, &opts);
	if (!link) {
		int err = -errno;

		fprintf(stderr, "funcstat: failed to attach %s to %zu functions: %s\n",
			bpf_program__name(prog), tg->nr_syms, strerror(-err));
		if (err == -EBUSY)
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
	const char *exit_target = NULL;
	struct targets tg = {};
	struct name_set avail = {};
	struct ksyms ks = {};
	struct btf *btf = NULL;
	double t0, attach_ms, exit_ms, load_ms, deadline, u0, s0, u1, s1;
	__u32 nr_attached = 0, nr_timed = 0;
	size_t i;
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;

	if (geteuid() != 0) {
		fprintf(stderr, "funcstat: must be run as root (BPF tracing programs, tracefs, kallsyms)\n");
		return 1;
	}

	libbpf_set_print(libbpf_print_fn);

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "funcstat: failed to load the kernel BTF: %s\n"
			"  (it needs CONFIG_DEBUG_INFO_BTF and /sys/kernel/btf/vmlinux)\n",
			strerror(errno));
		err = 1;
		goto cleanup;
	}
	err = load_avail(&avail);
	if (err)
		goto cleanup;
	err = find_targets(btf, &avail, &tg);
	if (err) {
		fprintf(stderr, "funcstat: failed to expand '%s': %s\n", env.globs, strerror(-err));
		goto cleanup;
	}
	if (!tg.cnt) {
		fprintf(stderr, "funcstat: no kernel function matches '%s'\n", env.globs);
		err = 1;
		goto cleanup;
	}
	/* Addresses of the candidates, to drop ambiguous names and print names */
	err = load_ksyms(&ks, tg.syms, tg.nr_syms);
	if (err)
		goto cleanup;
	drop_ambiguous(&tg, &ks);

	if (env.verbose) {
		for (i = 0; i < tg.cnt; i++) {
			if (tg.tgts[i].skip)
				fprintf(stderr, "funcstat: skipping %s: %s\n", tg.tgts[i].name,
					tg.tgts[i].skip);
		}
	}
	if (!tg.nr_syms) {
		fprintf(stderr, "funcstat: none of the %zu functions matching '%s' can be traced%s\n",
			tg.cnt, env.globs, env.verbose ? "" : " (-v tells why)");
		err = 1;
		goto cleanup;
	}
	if (tg.nr_syms > FUNCSTAT_MAX_FUNCS) {
		fprintf(stderr, "funcstat: '%s' matches %zu traceable functions, one link takes at most %d\n",
			env.globs, tg.nr_syms, FUNCSTAT_MAX_FUNCS);
		err = 1;
		goto cleanup;
	}

	/* The fexit program needs a load-time target that returns */
	for (i = 0; i < tg.nr_syms && !exit_target; i++) {
		if (!in_list(tg.syms[i], noreturn_list, ARRAY_SIZE(noreturn_list)))
			exit_target = tg.syms[i];
	}

	obj = funcstat_bpf__open();
	if (!obj) {
		fprintf(stderr, "funcstat: failed to open the BPF object: %s\n", strerror(errno));
		err = 1;
		goto cleanup;
	}
	bpf_map__set_max_entries(obj->maps.stats, tg.nr_syms);
	/* Verified against the first match; the others are checked at attach */
	err = bpf_program__set_attach_target(obj->progs.funcstat_entry, 0, tg.syms[0]);
	if (!err && exit_target)
		err = bpf_program__set_attach_target(obj->progs.funcstat_exit, 0, exit_target);
	if (!err && !exit_target)
		err = bpf_program__set_autoload(obj->progs.funcstat_exit, false);
	if (err) {
		fprintf(stderr, "funcstat: failed to set the load-time target: %s\n", strerror(-err));
		goto cleanup;
	}

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
	if (exit_target) {
		exit_link = attach_multi(obj->progs.funcstat_exit, &tg);
		if (!exit_link) {
			err = -errno;
			goto cleanup;
		}
	}
	exit_ms = now_ms() - t0;
	entry_link = attach_multi(obj->progs.funcstat_entry, &tg);
	if (!entry_link) {
		err = -errno;
		goto cleanup;
	}
	attach_ms = now_ms() - t0;
	cpu_ms(&u1, &s1);

	err = link_func_cnt(entry_link, &nr_attached);
	if (!err && exit_link)
		err = link_func_cnt(exit_link, &nr_timed);
	if (err) {
		fprintf(stderr, "funcstat: failed to read the links' info: %s\n", strerror(-err));
		goto cleanup;
	}
	if (env.verbose) {
		fprintf(stderr, "funcstat: %zu names matched, %zu passed to libbpf; load %.0f ms, attach %.0f ms (fexit.multi %.0f ms, fentry.multi %.0f ms; CPU user %.0f ms, sys %.0f ms)\n",
			tg.cnt, tg.nr_syms, load_ms, attach_ms, exit_ms, attach_ms - exit_ms,
			u1 - u0, s1 - s0);
		fprintf(stderr, "funcstat: fentry.multi link: %u functions, fexit.multi link: %u functions\n",
			nr_attached, nr_timed);
	}

	if (signal(SIGINT, sig_handler) == SIG_ERR || signal(SIGTERM, sig_handler) == SIG_ERR) {
		fprintf(stderr, "funcstat: can't set the signal handler: %s\n", strerror(errno));
		err = 1;
		goto cleanup;
	}

	printf("Tracing %u functions matching '%s' (%zu skipped) in %.0f ms... Hit Ctrl-C to end.\n",
	       nr_attached, env.globs, tg.cnt - nr_attached, attach_ms);
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

	err = print_stats(obj, &ks, tg.nr_syms);

cleanup:
	bpf_link__destroy(entry_link);
	bpf_link__destroy(exit_link);
	funcstat_bpf__destroy(obj);
	ksyms_free(&ks);
	targets_free(&tg);
	name_set_free(&avail);
	btf__free(btf);
	free(env.globs);
	return err != 0;
}
