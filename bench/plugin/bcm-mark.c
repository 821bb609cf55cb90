// SPDX-License-Identifier: GPL-2.0
/*
 * A mark for the branchcost plugin (mark=0x20000000): running this program
 * makes the plugin write the counts so far. Static and not
 * position-independent, with bcm_mark() linked at 0x20000000
 * (-Wl,--section-start=bcm_mark_text=0x20000000).
 */
asm(".pushsection bcm_mark_text, \"ax\"\n"
    ".globl bcm_mark\n"
    "bcm_mark:\n"
    "	nop\n"
    "	ret\n"
    ".popsection\n");

void bcm_mark(void);

int main(void)
{
	bcm_mark();
	return 0;
}
