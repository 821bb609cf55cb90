// SPDX-License-Identifier: GPL-2.0
/*
 * Proof that the CFI=1 kernel checks indirect calls in the VM: loading this
 * module calls a function through a pointer of another type. Under kCFI the
 * call traps ("CFI failure at cfi_mismatch_init"); a kernel that lets it
 * through prints "cfi_mismatch: not caught" and the load fails with -EINVAL.
 * scripts/check.sh (CFI=1) expects the trap.
 */
#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/module.h>

static noinline int cfi_mismatch_target(int x)
{
	return x + 1;
}

static int __init cfi_mismatch_init(void)
{
	long (*fn)(long, long) = (void *)cfi_mismatch_target;

	OPTIMIZER_HIDE_VAR(fn);
	pr_info("cfi_mismatch: calling through a pointer of another type\n");
	fn(1, 2);
	pr_err("cfi_mismatch: not caught\n");
	return -EINVAL;
}
module_init(cfi_mismatch_init);

MODULE_DESCRIPTION("An indirect call that kCFI must refuse");
MODULE_LICENSE("GPL");
