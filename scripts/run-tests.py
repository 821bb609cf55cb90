#!/usr/bin/env python3
"""Count test_progs results from its output.

Usage: run-tests.py RESULTS_TXT TESTS_TXT OUT_LOG
Reads test_progs' stdout (OUT_LOG) and the list of tests that should have run;
prints per-test results and appends 'name PASS|FAIL|SKIP' lines to RESULTS_TXT.
"""
import re
import sys

results_txt, tests_txt, out_log = sys.argv[1:4]
want = []
for line in open(tests_txt):
    w = line.split("#", 1)[0].split()
    if w and not w[0].startswith(("!", "~")):
        want.append(w[0])

line_re = re.compile(r"^#(\d+)(?:/(\d+))?\s+(\S+?):(OK|FAIL|SKIP)\b")
tests = {}      # name -> result
subtests = {}   # test name -> [(sub, result)]
summary = False
seen_all = False
for line in open(out_log, errors="replace"):
    if line.startswith("All error logs:"):
        # test_progs repeats the failed results below; count each once.
        seen_all = True
        continue
    if line.startswith("Summary:"):
        summary = True
    m = line_re.match(line)
    if not m or seen_all:
        continue
    num, sub, name, res = m.groups()
    if sub:
        t, _, s = name.partition("/")
        subtests.setdefault(t, []).append((s, res))
    else:
        tests[name] = res

rows = []
for t in want:
    if t not in tests:
        rows.append((t, "FAIL", "did not run (crash, or no such test in test_progs)"))
        continue
    subs = subtests.get(t)
    if subs:
        for s, res in subs:
            rows.append(("%s/%s" % (t, s), res, ""))
        if tests[t] == "FAIL" and not any(r == "FAIL" for _, r in subs):
            rows.append((t, "FAIL", "the test failed outside its subtests"))
    else:
        rows.append((t, tests[t], ""))
if not summary:
    rows.append(("test_progs", "FAIL", "no Summary line: test_progs did not finish"))

word = {"OK": "PASS", "FAIL": "FAIL", "SKIP": "SKIP", "PASS": "PASS"}
with open(results_txt, "a") as f:
    for name, res, why in rows:
        f.write("%s %s%s\n" % (word[res], name, (" (" + why + ")") if why else ""))
