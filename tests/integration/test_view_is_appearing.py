"""viewIsAppearing and the UIKit a host models (docs/lifecycle.md, "viewIsAppearing and the UIKit a host
models"): right after every viewWillAppear, with its `animated`, before the container's layout and its
viewDidAppear, wherever a container appears; none on a host started with `--uikit 16`; transcripts say
which UIKit they were recorded on, and one recorded before the setting existed replays unchanged.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from grhost import EventCursor, tag

OLD_TRANSCRIPT = Path(__file__).parent / "transcripts" / "page_switching_uikit16.ndjson"


class P(EventCursor):
    @staticmethod
    def tag(e: dict) -> str:
        return tag(e)


def lifecycle(conn) -> P:
    return P(conn).subscribe(["lifecycle"])


def appearing_pairs(events: list[dict]) -> None:
    """Every viewWillAppear is followed at once by the same container's viewIsAppearing, with the same
    `animated` and `offscreen`, and every viewIsAppearing follows one."""
    life = [e["params"] for e in events if e["method"] == "lifecycle"]
    for i, p in enumerate(life):
        if p["event"] == "viewWillAppear":
            nxt = life[i + 1]
            assert (nxt["event"], nxt["container"]) == ("viewIsAppearing", p["container"]), (p, nxt)
            assert (nxt["animated"], nxt["offscreen"]) == (p["animated"], p["offscreen"]), (p, nxt)
        if p["event"] == "viewIsAppearing":
            assert i > 0 and life[i - 1]["event"] == "viewWillAppear" and life[i - 1]["container"] == p["container"], p


def test_host_info_says_which_uikit_and_17_is_the_default(start_host):
    assert start_host("--clock", "virtual").call("host.info")["result"]["uikit"] == 17
    assert start_host("--clock", "virtual", "--uikit", "16").call("host.info")["result"]["uikit"] == 16


def test_a_uikit_the_host_does_not_know_is_refused_at_start(start_host):
    e = start_host.fail("--uikit", "15")
    assert "--uikit must be one of 16, 17" in e.stderr, e.stderr


def stack_of_one(p: P) -> tuple[str, str, str]:
    """A stack holding `a` (appeared), and `b` made but not pushed; the cursor past their events."""
    s = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": s, "container": a, "animated": False})
    p.skip()
    return s, a, b


def test_a_push_and_a_pop_run_it_after_will_appear_and_before_the_layout(vhost):
    p = lifecycle(vhost.connect())
    s, a, b = stack_of_one(p)
    p("stack.push", {"stack": s, "container": b, "animated": True})
    assert p.tags() == [f"{b}:willMoveToParent", f"{b}:loadView", f"{b}:viewDidLoad", f"{a}:viewWillDisappear",
                        f"{b}:viewWillAppear", f"{b}:viewIsAppearing", f"{b}:viewWillLayoutSubviews",
                        f"{b}:viewDidLayoutSubviews"]
    p("clock.advance", {"ms": 300})
    assert p.tags() == [f"{a}:viewDidDisappear", f"{b}:viewDidAppear", f"{b}:didMoveToParent"]
    p("stack.pop", {"stack": s, "animated": True})
    events = p.events()
    appearing_pairs(events)
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", f"{b}:viewWillDisappear", f"{a}:viewWillAppear",
                                        f"{a}:viewIsAppearing"]
    assert events[-1]["params"]["animated"] is True


def test_a_cancelled_interactive_pop_tells_the_top_again(vhost):
    p = lifecycle(vhost.connect())
    s, a, b = stack_of_one(p)
    p("stack.push", {"stack": s, "container": b, "animated": False})
    p.skip()
    p("stack.beginInteractivePop", {"stack": s})
    assert f"{a}:viewIsAppearing" in p.tags()
    p("stack.updateInteractivePop", {"stack": s, "progress": 0.5})
    p("stack.cancelInteractivePop", {"stack": s})
    p("clock.advance", {"ms": 1000})
    events = p.events()
    appearing_pairs(events)
    assert [tag(e) for e in events] == [f"{a}:viewWillDisappear", f"{a}:viewDidDisappear", f"{b}:viewWillAppear",
                                        f"{b}:viewIsAppearing", f"{b}:viewDidAppear", f"{b}:didMoveToParent"]


def test_the_green_rooms_warm_up_and_a_page_session_run_it_too(vhost):
    p = lifecycle(vhost.connect())
    p("pool.configure", {"class": "Container", "policy": "eager", "depth": 1, "width": 375, "height": 667})
    p("tasks.drain")
    warm = [e for e in p.events() if e["method"] == "lifecycle"]
    appearing_pairs(warm)
    assert [e["params"]["offscreen"] for e in warm if e["params"]["event"] == "viewIsAppearing"] == [True]
    p("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667})
    pages = [e for e in p.events() if e["method"] == "lifecycle"]
    appearing_pairs(pages)
    hooks = [e["params"]["event"] for e in pages if e["params"]["container"] == pages[-1]["params"]["container"]]
    # A page lays out before viewWillAppear; viewIsAppearing still follows viewWillAppear directly.
    assert hooks[-5:] == ["viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewWillAppear", "viewIsAppearing",
                          "viewDidAppear"], hooks


def test_a_uikit_16_host_sends_none(start_host):
    p = lifecycle(start_host("--clock", "virtual", "--uikit", "16").connect())
    s = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": s, "container": a})
    assert p.tags() == [f"{a}:init", f"{a}:willMoveToParent", f"{a}:loadView", f"{a}:viewDidLoad",
                        f"{a}:viewWillAppear", f"{a}:viewWillLayoutSubviews", f"{a}:viewDidLayoutSubviews",
                        f"{a}:viewDidAppear", f"{a}:didMoveToParent"]


def greenroom(bin_path: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([bin_path, *args], capture_output=True, text=True, timeout=60, check=False)


def test_a_transcript_recorded_before_the_setting_replays_unchanged(greenroom_bin):
    header = json.loads(OLD_TRANSCRIPT.read_text().splitlines()[0])
    assert "uikit" not in header
    assert '"viewIsAppearing"' not in OLD_TRANSCRIPT.read_text()
    done = greenroom(greenroom_bin, "replay", str(OLD_TRANSCRIPT))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the same" in done.stdout


def test_a_new_recording_says_its_uikit_and_replays(start_host, tmp_path):
    host = start_host("--clock", "virtual", "--record", str(tmp_path))
    p = lifecycle(host.connect())
    s = p("stack.create", {"width": 375, "height": 667})["stack"]
    p("stack.push", {"stack": s, "container": p("container.create", {"class": "Container"})["container"]})
    p.conn.close()
    host.stop()
    [recorded] = sorted(tmp_path.glob("*.ndjson"))
    text = recorded.read_text()
    assert json.loads(text.splitlines()[0])["uikit"] == 17
    assert '"viewIsAppearing"' in text
    done = greenroom(start_host.bin, "replay", str(recorded))
    assert done.returncode == 0, done.stdout + done.stderr


def test_replaying_against_a_host_of_another_uikit_is_refused_naming_the_flag(start_host):
    host = start_host("--clock", "virtual")
    done = greenroom(start_host.bin, "replay", str(OLD_TRANSCRIPT), "--socket", host.socket_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "start it with --uikit 16" in done.stdout + done.stderr
    old = start_host("--clock", "virtual", "--uikit", "16")
    done = greenroom(start_host.bin, "replay", str(OLD_TRANSCRIPT), "--socket", old.socket_path)
    assert done.returncode == 0, done.stdout + done.stderr
