"""`greenroom bench` as a user runs it: --repeat N runs the table N times and shows each ratio's spread.
(The numbers are not judged here — benchmarks report them; the table's verdict logic has Swift tests.)"""

from __future__ import annotations

import re
import subprocess


def test_bench_repeat_reports_every_run_and_the_spread(greenroom_bin, tmp_short):
    done = subprocess.run([greenroom_bin, "bench", "--quick", "--only", "memory", "--repeat", "2"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_short, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "2 runs of the table" in out and "run 1 of 2" in out and "run 2 of 2" in out, out
    rows = [line for line in out.splitlines() if line.startswith(("idle host", "host bytes", "purge gives"))]
    assert len(rows) == 3, out
    for line in rows:
        assert re.search(r"\[\d+\.\d+-\d+\.\d+\]", line), f"no spread on: {line}"
        assert re.search(r"(yes|NO|no, by less than the run-to-run noise .*)$", line), line
