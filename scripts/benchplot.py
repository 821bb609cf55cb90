"""Shared by the bench report scripts: draw a PNG with gnuplot, name the
kernel a table was measured on."""
import os
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
