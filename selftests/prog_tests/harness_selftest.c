// SPDX-License-Identifier: GPL-2.0
/*
 * A test that always fails, used only by scripts/harness-selftest.sh to
 * prove that a failing selftest makes `make check` fail. It is not in
 * selftests/tests.txt.
 */
#include <test_progs.h>

void test_harness_selftest_fail(void)
{
	int one = 1;

	ASSERT_EQ(one, 2, "deliberate failure");
}
