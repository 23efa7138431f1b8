"""The examples run as a user runs them: examples/python/prerender_experiment.py (the prerendering article's
experiment, both of its figures), examples/python/predictive_prerender.py (warming the next screen's class on
this one) and examples/python/typed_tour.py (the client's typed API)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from grhost import REPO

SCRIPT = REPO / "examples" / "python" / "prerender_experiment.py"
ROW = re.compile(r"^(cold|prerendered)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", re.MULTILINE)


def run(*args, env_bin=None, timeout=180):
    env = dict(os.environ)
    env.pop("GREENROOM_SOCKET", None)
    if env_bin:
        env["GREENROOM_BIN"] = env_bin
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=str(REPO), check=False)


def rows(stdout: str, figure: str = "navigation start") -> dict[str, dict]:
    """The table of one figure ("navigation start" or "page loaded")."""
    assert figure in stdout, f"the {figure} table is printed:\n{stdout}"
    table = stdout.split(figure, 1)[1].split("\n\n", 1)[0]
    found = {m.group(1): {"runs": int(m.group(2)), "median": float(m.group(3)), "mean": float(m.group(4)),
                          "p90": float(m.group(5))} for m in ROW.finditer(table)}
    assert set(found) == {"cold", "prerendered"}, f"both rows are printed:\n{stdout}"
    return found


def test_prerender_experiment_starts_its_own_host(greenroom_bin):
    done = run("--runs", "3", "--load-ms", "20", "--configure-ms", "30", env_bin=greenroom_bin)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    table = rows(done.stdout)
    assert table["cold"]["runs"] == 3 and table["prerendered"]["runs"] == 3
    # A 20 ms viewDidLoad is paid by every cold run and by no prerendered one.
    assert table["prerendered"]["median"] < table["cold"]["median"], done.stdout
    assert table["cold"]["median"] >= 20, done.stdout
    assert "speed-up (median)" in done.stdout
    # Page loaded adds the page load (configure, 30 ms) to both; the pool takes the same viewDidLoad off it.
    loaded = rows(done.stdout, "page loaded")
    assert loaded["cold"]["median"] >= 50 and loaded["prerendered"]["median"] >= 30, done.stdout
    assert loaded["prerendered"]["median"] < loaded["cold"]["median"], done.stdout
    assert loaded["prerendered"]["median"] > table["prerendered"]["median"] + 25, done.stdout
    assert "443.14 ms -> 56.13 ms" in done.stdout and "2353 ms -> 2068 ms" in done.stdout, done.stdout


def test_prerender_experiment_json_prints_only_json(greenroom_bin):
    done = run("--runs", "2", "--load-ms", "20", "--configure-ms", "1", "--json", env_bin=greenroom_bin)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    lines = done.stdout.splitlines()
    assert len(lines) == 1, f"--json prints one JSON line and nothing else:\n{done.stdout}"
    summary = json.loads(lines[0])
    assert summary["speedup"] > 1 and len(summary["samples"]["prerendered"]) == 2
    assert summary["rows"]["cold"]["median"] >= 20 and summary["loadMs"] == 20
    loaded = summary["figures"]["pageLoaded"]
    assert loaded["article"] == {"cold": 2353, "prerendered": 2068} and len(loaded["samples"]["cold"]) == 2


def test_prerender_experiment_on_a_running_host(start_host):
    host = start_host()  # real clock
    done = run("--socket", host.socket_path, "--runs", "2", "--load-ms", "15", "--configure-ms", "5")
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    table = rows(done.stdout)
    assert table["prerendered"]["median"] < table["cold"]["median"], done.stdout
    # It cleans up after itself on a shared host: no stack, no pooled container left behind.
    stats = host.stats()
    assert stats["stacks"] == 0 and stats["containers"]["total"] == 0, stats
    assert stats["unbalancedTransitions"] == 0


def test_prerender_experiment_drains_a_virtual_clock_host(start_host):
    host = start_host("--clock", "virtual")
    done = run("--socket", host.socket_path, "--runs", "2", "--load-ms", "15", "--configure-ms", "5")
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert "virtual clock" in done.stdout
    table = rows(done.stdout)
    assert table["prerendered"]["median"] < table["cold"]["median"], done.stdout


def test_prerender_experiment_without_a_binary_says_so(tmp_short):
    done = run("--runs", "1", env_bin=os.path.join(tmp_short, "missing-greenroom"), timeout=60)
    assert done.returncode != 0
    assert "no greenroom binary" in done.stderr, done.stderr


TOUR = REPO / "examples" / "python" / "typed_tour.py"


def test_typed_tour_runs_sync_and_asyncio_on_its_own_host(greenroom_bin):
    env = {k: v for k, v in os.environ.items() if k != "GREENROOM_SOCKET"}
    done = subprocess.run([sys.executable, str(TOUR)], capture_output=True, text=True, timeout=120,
                          env={**env, "GREENROOM_BIN": greenroom_bin}, cwd=str(REPO), check=False)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    out = done.stdout
    # The swipe from page 0 to page 1 in UIPageViewController's order, seen through the typed handlers.
    assert "hooks: viewWillAppear 1, viewWillDisappear 0, viewDidAppear 1, viewDidDisappear 0" in out, out
    assert "page event: willTransition 0 -> 1" in out and "at rest on page 1" in out
    assert "clock.advance(ms=-1): -32602 ms" in out and "clock.advance(ms=16): now 16.0" in out
    prefetched = re.search(r"range r-\d+: (\d+) prefetch events", out)
    assert prefetched and int(prefetched.group(1)) >= 1, out


PREDICT = REPO / "examples" / "python" / "predictive_prerender.py"


def run_predict(*args, env_bin=None):
    env = {k: v for k, v in os.environ.items() if k != "GREENROOM_SOCKET"}
    if env_bin:
        env["GREENROOM_BIN"] = env_bin
    return subprocess.run([sys.executable, str(PREDICT), *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=str(REPO), check=False)


def test_predictive_prerender_makes_the_tap_a_hit(greenroom_bin):
    done = run_predict("--load-ms", "25", "--json", env_bin=greenroom_bin)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    result = json.loads(done.stdout)
    plain, predicted = result["withoutPrediction"], result["withPrediction"]
    assert (plain["warm"], predicted["warm"]) == (False, True), result
    # The miss pays viewDidLoad at the tap; the hit paid it while the list was read.
    assert plain["tapMs"] >= 25 > predicted["tapMs"], result


def test_predictive_prerender_on_a_virtual_clock_host_leaves_nothing_behind(start_host):
    host = start_host("--clock", "virtual")
    done = run_predict("--socket", host.socket_path, "--load-ms", "5")
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert re.search(r"without prediction\s+miss", done.stdout) and re.search(r"with pool.warm\s+hit", done.stdout)
    stats = host.stats()
    assert stats["stacks"] == 0 and stats["containers"]["total"] == 0 and stats["unbalancedTransitions"] == 0, stats


def run_script(name: str, *args, env_bin=None, timeout=180):
    env = {k: v for k, v in os.environ.items() if k != "GREENROOM_SOCKET"}
    if env_bin:
        env["GREENROOM_BIN"] = env_bin
    return subprocess.run([sys.executable, str(REPO / "examples" / "python" / name), *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=str(REPO), check=False)


def test_split_tasks_pauses_templates_during_a_drag_and_runs_every_part(greenroom_bin):
    done = run_script("split_tasks.py", "--load-ms", "2", "--heavy-ms", "12", "--parts", "4", "--json",
                      env_bin=greenroom_bin)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    result = json.loads(done.stdout)
    t = result["templates"]
    # Five row classes, five templates, all held while the other list was dragged, all warm after.
    assert t["queued"] == 5 and t["whileDragging"] == {"paused": True, "pending": 5, "runnable": 0}, t
    assert sorted(t["warmAfter"].values()) == [1] * 5, t
    assert result["whole"]["pings"] > 0 and result["split"]["pings"] > 0, result


def test_reuse_pager_keeps_current_and_neighbours_and_rebinds_from_the_queue(greenroom_bin):
    done = run_script("reuse_pager.py", "--pages", "12", "--page-kb", "64", "--json", env_bin=greenroom_bin)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    result = json.loads(done.stdout)
    keep, reuse = result["keepAll"], result["reuse"]
    assert (keep["made"], keep["rebound"], keep["alive"]) == (12, 0, 12), keep
    # Current +- 1 attached, the rest parked: never more than four made, every other page a re-bind.
    assert reuse["made"] <= 4 and reuse["alive"] == reuse["attached"] + reuse["parked"] <= 4, reuse
    assert reuse["rebound"] >= 12 - reuse["made"], reuse
