"""Shared by the bench report scripts: draw a PNG with gnuplot, name the
kernel a table was measured on."""
import os
import re
import subprocess


def kernel_lines():
    """The lines that head a table: which bench kernel (scripts/bench.sh
    sets BENCH_KERNEL to its config's preemption model and mitigations,
    and what the guest CPU turned on at boot)."""
    k = os.environ.get("BENCH_KERNEL")
    return ["kernel: " + line for line in k.splitlines()] + [""] if k else []


def gnuplot(script, base, dat):
    """Run the gnuplot SCRIPT that draws BASE.png from the data file DAT,
    then remove DAT; say what was written next to BASE.{txt,csv}."""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        print("bench: wrote %s.{txt,csv,png}" % base)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench: WARNING: gnuplot failed (%s); wrote %s.{txt,csv}" % (e, base))
    os.unlink(dat)


class CaseRates:
    """The bench's rates per case, from a guest's output fed line by line:
    '== CASE' starts a case, each 'hits N' line of its bench summaries is
    one run's rate in M/s (the 1 s run's, then the 3 s run's)."""

    def __init__(self):
        self.cases, self.rates, self.cur = [], {}, None

    def feed(self, line):
        """Take LINE; True if it started a case or gave a rate."""
        m = re.match(r"== (\S+)", line)
        if m:
            self.cur = m.group(1)
            self.cases.append(self.cur)
            self.rates[self.cur] = []
            return True
        m = re.search(r"hits\s+([0-9.]+)", line)
        if m and self.cur:
            self.rates[self.cur].append(float(m.group(1)))
            return True
        return False
