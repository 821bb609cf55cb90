// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * funcstat-workload: make system calls that nothing else in a quiet test VM
 * makes, an exact number of times each, so that scripts/funcstat-test.sh can
 * check the counts funcstat reports for their handlers.
 *
 *   funcstat-workload MAX MIN SYSINFO
 *
 * calls sched_get_priority_max() MAX times, sched_get_priority_min() MIN
 * times and sysinfo() SYSINFO times, through syscall(2) so that no C library
 * caching or vDSO gets in the way.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static long parse_count(const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 0) {
		fprintf(stderr, "funcstat-workload: invalid count '%s'\n", arg);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	long nmax, nmin, ninfo, i;
	struct sysinfo si;

	if (argc != 4) {
		fprintf(stderr, "usage: funcstat-workload MAX MIN SYSINFO\n");
		return 2;
	}
	nmax = parse_count(argv[1]);
	nmin = parse_count(argv[2]);
	ninfo = parse_count(argv[3]);

	for (i = 0; i < nmax; i++) {
		if (syscall(SYS_sched_get_priority_max, SCHED_OTHER) < 0)
			goto fail;
	}
	for (i = 0; i < nmin; i++) {
		if (syscall(SYS_sched_get_priority_min, SCHED_OTHER) < 0)
			goto fail;
	}
	for (i = 0; i < ninfo; i++) {
		if (syscall(SYS_sysinfo, &si) < 0)
			goto fail;
	}
	return 0;
fail:
	perror("funcstat-workload: syscall");
	return 1;
}
