// SPDX-License-Identifier: GPL-2.0
/*
 * branchcost: a QEMU TCG plugin that models what an instruction count does
 * not see, for guest code in given address ranges:
 *
 *   insns       instructions executed
 *   calls       near calls (direct and indirect)
 *   rets        near returns
 *   ret_miss    returns whose target is not what a 32-entry return stack
 *               buffer predicts (a call pushes its return address, a
 *               return pops; a return with the buffer empty is a miss)
 *   ind_calls   indirect near calls
 *   ind_jmps    indirect near jumps
 *   ind_miss    indirect calls and jumps whose target differs from the last
 *               target seen at the same site (the first one at a site too)
 *
 * One model for all vCPUs (use it with one vCPU), fed only by instructions
 * in the ranges: a call from outside a range into it pushes nothing.
 *
 * Arguments: out=FILE (counts written there at exit, one "name range value"
 * line per counter and range, or to stderr), range=LO:HI (hex, may repeat:
 * one set of counters per range, in order), mark=ADDR (hex: every time a
 * block starting at ADDR runs, the counts so far are written as a
 * "mark N" section, so that a guest program at a fixed address, such as
 * bench/plugin/bcm-mark.c, can cut a run into parts), prof=1 (a mark, and
 * the exit, also write "prof VADDR INSNS" lines: the instructions run so far by each
 * translated block of the ranges that ran, by the block's start address, for
 * scripts/profile-report.py to bucket by symbol; a block translated again
 * has a line per translation).
 *
 * Built against QEMU 7.2's plugin API (version 1); the few declarations it
 * needs are below, as Debian does not ship qemu-plugin.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU 7.2 plugin API, the parts used here ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int, void *);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *, qemu_plugin_vcpu_udata_cb_t,
					  enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *, enum qemu_plugin_op,
					      void *, uint64_t);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, qemu_plugin_vcpu_udata_cb_t,
					    enum qemu_plugin_cb_flags, void *);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *);
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
/* ---- end of the API ---- */

#define MAX_RANGES	16
#define RSB_SIZE	32
#define BTB_BITS	16

enum { C_INSNS, C_CALLS, C_RETS, C_RET_MISS, C_IND_CALLS, C_IND_JMPS, C_IND_MISS, NR_C };
static const char * const names[NR_C] = {
	"insns", "calls", "rets", "ret_miss", "ind_calls", "ind_jmps", "ind_miss",
};

struct range {
	uint64_t lo, hi;
	uint64_t c[NR_C];
};

static struct range ranges[MAX_RANGES];
static int nr_ranges;
static char *out_path;
static FILE *out;
static uint64_t mark_addr;
static unsigned int nr_marks;

/* prof=1: the blocks of the ranges, each with the times it ran */
struct prof {
	uint64_t vaddr, n, count;
};
static bool prof_on;
static struct prof **profs;
static size_t nr_profs, max_profs;

/* The return stack buffer: a ring of the last RSB_SIZE return addresses */
static uint64_t rsb[RSB_SIZE];
static unsigned int rsb_top, rsb_depth;

/* The last target of each indirect branch site, by a hash of the site */
static struct { uint64_t site, target; } btb[1 << BTB_BITS];

/* A branch executed, whose target the next block's start tells */
enum kind { K_NONE, K_RET, K_IND };
static struct {
	enum kind kind;
	struct range *r;
	uint64_t site, predicted;
} pending;

/* What a branch instruction is, decoded at translation */
enum op { OP_CALL, OP_IND_CALL, OP_IND_JMP, OP_RET };
struct insn_info {
	enum op op;
	struct range *r;
	uint64_t vaddr, next;
};

static struct range *range_of(uint64_t vaddr)
{
	int i;

	for (i = 0; i < nr_ranges; i++) {
		if (vaddr >= ranges[i].lo && vaddr < ranges[i].hi)
			return &ranges[i];
	}
	return NULL;
}

static void rsb_push(uint64_t addr)
{
	rsb_top = (rsb_top + 1) % RSB_SIZE;
	rsb[rsb_top] = addr;
	if (rsb_depth < RSB_SIZE)
		rsb_depth++;
}

/* The predicted return address, 0 if the buffer is empty */
static uint64_t rsb_pop(void)
{
	uint64_t addr;

	if (!rsb_depth)
		return 0;
	addr = rsb[rsb_top];
	rsb_top = (rsb_top + RSB_SIZE - 1) % RSB_SIZE;
	rsb_depth--;
	return addr;
}

static void dump(FILE *f)
{
	int i, c;

	for (i = 0; i < nr_ranges; i++) {
		fprintf(f, "range %d 0x%llx 0x%llx\n", i, (unsigned long long)ranges[i].lo,
			(unsigned long long)ranges[i].hi);
		for (c = 0; c < NR_C; c++)
			fprintf(f, "%s %d %llu\n", names[c], i, (unsigned long long)ranges[i].c[c]);
	}
	fflush(f);
}

static void prof_dump(FILE *f)
{
	size_t i;

	for (i = 0; i < nr_profs; i++) {
		if (profs[i]->count)
			fprintf(f, "prof %llx %llu\n", (unsigned long long)profs[i]->vaddr,
				(unsigned long long)(profs[i]->count * profs[i]->n));
	}
	fflush(f);
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	fprintf(out, "mark %u\n", nr_marks++);
	dump(out);
	prof_dump(out);
}

static void prof_add(struct qemu_plugin_tb *tb, uint64_t start, size_t n)
{
	struct prof *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	if (nr_profs == max_profs) {
		max_profs = max_profs ? 2 * max_profs : 4096;
		profs = realloc(profs, max_profs * sizeof(*profs));
		if (!profs)
			abort();
	}
	p->vaddr = start;
	p->n = n;
	profs[nr_profs++] = p;
	/* Kept for as long as the translation may run: never freed */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &p->count, 1);
}

/* Start of a block: the target of the branch before it, if one is pending */
static void tb_exec(unsigned int vcpu, void *udata)
{
	uint64_t target = (uintptr_t)udata;
	unsigned int h;

	(void)vcpu;
	switch (pending.kind) {
	case K_RET:
		if (target != pending.predicted)
			pending.r->c[C_RET_MISS]++;
		break;
	case K_IND:
		h = (pending.site ^ (pending.site >> BTB_BITS)) & ((1 << BTB_BITS) - 1);
		if (btb[h].site != pending.site || btb[h].target != target)
			pending.r->c[C_IND_MISS]++;
		btb[h].site = pending.site;
		btb[h].target = target;
		break;
	case K_NONE:
		break;
	}
	pending.kind = K_NONE;
}

static void insn_exec(unsigned int vcpu, void *udata)
{
	struct insn_info *ii = udata;

	(void)vcpu;
	switch (ii->op) {
	case OP_CALL:
		ii->r->c[C_CALLS]++;
		rsb_push(ii->next);
		break;
	case OP_IND_CALL:
		ii->r->c[C_CALLS]++;
		ii->r->c[C_IND_CALLS]++;
		rsb_push(ii->next);
		pending.kind = K_IND;
		pending.r = ii->r;
		pending.site = ii->vaddr;
		break;
	case OP_IND_JMP:
		ii->r->c[C_IND_JMPS]++;
		pending.kind = K_IND;
		pending.r = ii->r;
		pending.site = ii->vaddr;
		break;
	case OP_RET:
		ii->r->c[C_RETS]++;
		pending.kind = K_RET;
		pending.r = ii->r;
		pending.predicted = rsb_pop();
		if (!pending.predicted) {
			/* Underflow: a miss whatever the target */
			ii->r->c[C_RET_MISS]++;
			pending.kind = K_NONE;
		}
		break;
	}
}

/* Decode the near branches of interest; -1 for anything else */
static int decode(const uint8_t *p, size_t size)
{
	size_t i = 0;

	/* Legacy prefixes, then REX */
	while (i < size && strchr("\x66\x67\xf0\xf2\xf3\x2e\x36\x3e\x26\x64\x65", p[i]) && p[i])
		i++;
	if (i < size && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= size)
		return -1;
	switch (p[i]) {
	case 0xe8:
		return OP_CALL;
	case 0xc3:
	case 0xc2:
		return OP_RET;
	case 0xff:
		if (i + 1 >= size)
			return -1;
		switch ((p[i + 1] >> 3) & 7) {
		case 2:
			return OP_IND_CALL;
		case 4:
			return OP_IND_JMP;
		}
		return -1;
	}
	return -1;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	struct range *r = range_of(start);

	(void)id;
	/* Every block resolves a pending branch, in a range or not */
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)start);
	if (mark_addr && start == mark_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, mark_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (r)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &r->c[C_INSNS], n);
	if (r && prof_on)
		prof_add(tb, start, n);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		size_t size = qemu_plugin_insn_size(insn);
		struct range *ir = range_of(va);
		struct insn_info *ii;
		int op;

		if (!ir)
			continue;
		op = decode(qemu_plugin_insn_data(insn), size);
		if (op < 0)
			continue;
		/* Kept for as long as the translation may run */
		ii = malloc(sizeof(*ii));
		if (!ii)
			abort();
		ii->op = op;
		ii->r = ir;
		ii->vaddr = va;
		ii->next = va + size;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec, QEMU_PLUGIN_CB_NO_REGS, ii);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	fprintf(out, "exit\n");
	dump(out);
	prof_dump(out);
	if (out != stderr)
		fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		char *a = argv[i];

		if (!strncmp(a, "out=", 4)) {
			out_path = strdup(a + 4);
		} else if (!strcmp(a, "prof=1")) {
			prof_on = true;
		} else if (!strncmp(a, "mark=", 5)) {
			mark_addr = strtoull(a + 5, NULL, 16);
		} else if (!strncmp(a, "range=", 6)) {
			char *colon = strchr(a + 6, ':');

			if (!colon || nr_ranges == MAX_RANGES) {
				fprintf(stderr, "branchcost: bad or too many ranges: %s\n", a);
				return -1;
			}
			ranges[nr_ranges].lo = strtoull(a + 6, NULL, 16);
			ranges[nr_ranges].hi = strtoull(colon + 1, NULL, 16);
			nr_ranges++;
		} else {
			fprintf(stderr, "branchcost: unknown argument %s (out=FILE, range=LO:HI, mark=ADDR, prof=1)\n",
				a);
			return -1;
		}
	}
	if (!nr_ranges) {
		fprintf(stderr, "branchcost: no range=LO:HI given\n");
		return -1;
	}
	out = stderr;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			perror(out_path);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
