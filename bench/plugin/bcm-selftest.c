// SPDX-License-Identifier: GPL-2.0
/*
 * Known branch sequences for the branchcost plugin's own test
 * (scripts/bcm-selftest.sh). Each case is a loop of N iterations in a
 * section of its own, linked at a fixed address so that the plugin can
 * count it alone; main() calls each once. The counts each case must give
 * are worked out by hand in scripts/bcm-selftest.sh.
 *
 * Built static and not position-independent: the addresses in the binary
 * are those it runs at.
 */
#include <stdio.h>

#define N "1000"

/*
 * callret: call f; f: ret.
 */
asm(".pushsection bcm_callret, \"ax\"\n"
    ".globl case_callret\n"
    "case_callret:\n"
    "	mov $" N ", %ecx\n"
    "1:	call 2f\n"
    "	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    "2:	ret\n"
    ".popsection\n");

/*
 * retpoline: call a retpoline thunk with the target in rax, as
 * __x86_indirect_thunk_rax does; the target returns to the caller.
 */
asm(".pushsection bcm_retpoline, \"ax\"\n"
    ".globl case_retpoline\n"
    "case_retpoline:\n"
    "	mov $" N ", %ecx\n"
    "	lea 3f(%rip), %rax\n"
    "1:	call 2f\n"
    "	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    "2:	call 4f\n"		/* the thunk */
    "5:	pause\n"
    "	lfence\n"
    "	jmp 5b\n"
    "4:	mov %rax, (%rsp)\n"
    "	ret\n"
    "3:	ret\n"			/* the target */
    ".popsection\n");

/*
 * gtramp: the global trampoline calling the original by a RET into its
 * body (fexit path): parent -> func, whose fentry site calls tramp; tramp
 * calls call_orig, which pushes the body's address and returns into it;
 * the body returns to tramp, which drops its return address into the body
 * and returns to the parent, which returns to the loop.
 */
asm(".pushsection bcm_gtramp, \"ax\"\n"
    ".globl case_gtramp\n"
    "case_gtramp:\n"
    "	mov $" N ", %ecx\n"
    "1:	call 2f\n"		/* the loop calls the parent */
    "	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    "2:	call 3f\n"		/* parent: calls func */
    "	ret\n"
    "3:	call 4f\n"		/* func: fentry site calls tramp */
    "	ret\n"			/* the body */
    "4:	call 5f\n"		/* tramp: calls call_orig */
    "	add $8, %rsp\n"		/* drop the return address into the body */
    "	ret\n"			/* to the parent */
    "5:	pushq 8(%rsp)\n"	/* call_orig: the body's address */
    "	ret\n"			/* into the body */
    ".popsection\n");

/*
 * ptramp: the per-function trampoline (fexit path): parent -> func, whose
 * fentry site calls tramp; tramp calls the body directly, which returns to
 * tramp, which drops its return address into the body and returns to the
 * parent, one return stack entry off.
 */
asm(".pushsection bcm_ptramp, \"ax\"\n"
    ".globl case_ptramp\n"
    "case_ptramp:\n"
    "	mov $" N ", %ecx\n"
    "1:	call 2f\n"
    "	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    "2:	call 3f\n"		/* parent */
    "	ret\n"
    "3:	call 4f\n"		/* func: fentry site */
    "6:	ret\n"			/* the body */
    "4:	call 6b\n"		/* tramp: direct call of the body */
    "	add $8, %rsp\n"
    "	ret\n"
    ".popsection\n");

/*
 * indirect1: an indirect call with one target.
 */
asm(".pushsection bcm_indirect1, \"ax\"\n"
    ".globl case_indirect1\n"
    "case_indirect1:\n"
    "	mov $" N ", %ecx\n"
    "	lea 2f(%rip), %rax\n"
    "1:	call *%rax\n"
    "	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    "2:	ret\n"
    ".popsection\n");

/*
 * indirect2: an indirect call with two targets in turn.
 */
asm(".pushsection bcm_indirect2, \"ax\"\n"
    ".globl case_indirect2\n"
    "case_indirect2:\n"
    "	mov $" N ", %ecx\n"
    "	lea 2f(%rip), %rax\n"
    "	lea 3f(%rip), %rdx\n"
    "1:	call *%rax\n"
    "	xchg %rax, %rdx\n"
    "	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    "2:	ret\n"
    "3:	ret\n"
    ".popsection\n");

/*
 * jmp1: an indirect jump with one target.
 */
asm(".pushsection bcm_jmp1, \"ax\"\n"
    ".globl case_jmp1\n"
    "case_jmp1:\n"
    "	mov $" N ", %ecx\n"
    "	lea 2f(%rip), %rax\n"
    "1:	jmp *%rax\n"
    "2:	dec %ecx\n"
    "	jnz 1b\n"
    "	ret\n"
    ".popsection\n");

void case_callret(void);
void case_retpoline(void);
void case_gtramp(void);
void case_ptramp(void);
void case_indirect1(void);
void case_indirect2(void);
void case_jmp1(void);

int main(void)
{
	case_callret();
	case_retpoline();
	case_gtramp();
	case_ptramp();
	case_indirect1();
	case_indirect2();
	case_jmp1();
	printf("bcm-selftest: done\n");
	return 0;
}
