"""Shared by the bench report scripts: draw a PNG with gnuplot."""
import os
import subprocess


def gnuplot(script, base, dat):
    """Run the gnuplot SCRIPT that draws BASE.png from the data file DAT,
    then remove DAT; say what was written next to BASE.{txt,csv}."""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        print("bench: wrote %s.{txt,csv,png}" % base)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench: WARNING: gnuplot failed (%s); wrote %s.{txt,csv}" % (e, base))
    os.unlink(dat)
