"""Page curl (`page.create {transitionStyle: "pageCurl"}`) against the independent UIKit model (uikitmodel.py):
a completed curl ends with the leaving page's viewDidDisappear before the new page's viewDidAppear (a scroll's
order is the reverse), a cancelled curl runs New WD, Current WA, New DD, Current DA; then random sequences of
curl gestures, page.show and clock advances, equal to the model's appearance and layout calls, balanced.
"""

from __future__ import annotations

import os
import random

import pytest

from grhost import EventCursor
from uikitmodel import APPEARANCE, LAYOUT, Model, ModelError, assert_balanced, from_wire

W, H = 390.0, 844.0
COMPARED = set(APPEARANCE) | set(LAYOUT) | {"loadView", "viewDidLoad"}


class CurlPair:
    """A pageCurl session on the host and the model's Pages, driven together. Page children are named by page
    index (`P0`, `P1`, ...) on both sides: the host makes them on demand."""

    def __init__(self, conn, count: int = 4, initial: int = 1):
        self.p = EventCursor(conn).subscribe(["lifecycle", "page"])
        self.m = Model()
        self.m.now = float(self.p("clock.now")["ms"])
        names = [f"P{i}" for i in range(count)]
        for n in names:
            self.m.create(n)
        self.m._take()
        reply = self.p("page.create", {"class": "Container", "count": count, "width": W, "height": H,
                                       "initialIndex": initial, "transitionStyle": "pageCurl",
                                       # Every page kept once made, as the model keeps them (no cache eviction).
                                       "cache": {"limit": count}})
        self.session = reply["session"]
        self.log: list = []
        self.all: list = []
        self.compare(self.m.pages_create(self.session, W, H, names, initial, "pageCurl"), "create")

    def host(self) -> list:
        out = []
        for e in self.p.events():
            if e["method"] != "lifecycle" or e["params"]["event"] not in COMPARED:
                continue
            p = dict(e["params"])
            p["container"] = f"P{p['page']['index']}"
            out.append(from_wire("lifecycle", p))
        return out

    def compare(self, expected, where) -> None:
        got = self.host()
        self.all += got
        expected = [e for e in expected if e.hook in COMPARED]
        assert [str(e) for e in got] == [str(e) for e in expected], where

    def both(self, method, params, model_call):
        self.log.append((method, params))
        try:
            expected, error = model_call(), None
        except ModelError as e:
            expected, error = self.m._take(), e
        if isinstance(expected, tuple):
            expected = expected[0]
        reply = self.p.conn.call(method, params)
        where = f"after {self.log[-8:]}"
        if error is not None:
            assert "error" in reply and reply["error"]["code"] == error.code, (reply, str(error), where)
        else:
            assert "result" in reply, (reply, where)
        self.compare(expected, where)
        return reply

    def begin(self, to):
        return self.both("page.beginInteractiveCurl", {"session": self.session, "index": to},
                         lambda: self.m.page_begin(self.session, to))

    def update(self, progress):
        return self.both("page.updateInteractiveCurl", {"session": self.session, "progress": progress},
                         lambda: self.m.page_update(self.session, progress))

    def finish(self, duration=None):
        params = {"session": self.session} | ({"duration": duration} if duration is not None else {})
        return self.both("page.finishInteractiveCurl", params, lambda: self.m.page_finish(self.session, duration))

    def cancel(self, duration=None):
        params = {"session": self.session} | ({"duration": duration} if duration is not None else {})
        return self.both("page.cancelInteractiveCurl", params, lambda: self.m.page_cancel(self.session, duration))

    def show(self, to, animated=True, duration=None):
        params = {"session": self.session, "index": to, "animated": animated} | (
            {"duration": duration} if duration is not None else {})
        return self.both("page.show", params, lambda: self.m.page_show(self.session, to, animated, duration))

    def advance(self, ms):
        return self.both("clock.advance", {"ms": ms}, lambda: self.m.advance(ms))


@pytest.fixture
def curl(vhost) -> CurlPair:
    return CurlPair(vhost.connect())


def tags(events) -> list[str]:
    return [f"{e.container}:{e.hook}" for e in events if e.hook in APPEARANCE]


def test_a_completed_curl_ends_with_the_leaving_pages_did_disappear_first(curl):
    mark = len(curl.all)
    curl.begin(2)
    curl.update(0.5)
    info = curl.p("page.info", {"session": curl.session})
    assert info["transitionStyle"] == "pageCurl" and info["interactiveCurl"] == {"to": 2, "progress": 0.5}
    reply = curl.finish()
    assert reply["result"]["interactiveCurl"] is None and reply["result"]["phase"] == "animating"
    curl.advance(150)
    assert tags(curl.all[mark:]) == ["P2:viewWillAppear", "P2:viewIsAppearing", "P1:viewWillDisappear",
                                     "P1:viewDidDisappear", "P2:viewDidAppear"]
    assert curl.p("page.info", {"session": curl.session})["index"] == 2


def test_a_cancelled_curl_runs_uikits_cancelled_order_and_stays(curl):
    mark = len(curl.all)
    curl.begin(0)
    curl.update(0.4)
    curl.cancel(duration=500)
    curl.advance(200)
    assert tags(curl.all[mark:]) == ["P0:viewWillAppear", "P0:viewIsAppearing", "P1:viewWillDisappear",
                                     "P0:viewWillDisappear", "P1:viewWillAppear", "P1:viewIsAppearing",
                                     "P0:viewDidDisappear", "P1:viewDidAppear"]
    info = curl.p("page.info", {"session": curl.session})
    assert info["index"] == 1 and info["phase"] == "idle"
    events = [e["params"] for e in curl.p.conn.events if e["method"] == "page"]
    assert events[-1]["kind"] == "didTransition" and events[-1]["completed"] is False


def test_page_show_on_a_curl_session_ends_in_the_curl_order(curl):
    mark = len(curl.all)
    curl.show(3)
    curl.advance(300)
    assert tags(curl.all[mark:])[-2:] == ["P1:viewDidDisappear", "P3:viewDidAppear"]


def test_a_curl_session_has_no_scroll_stream_and_a_live_curl_holds_the_session(curl):
    e = curl.p.error("page.willBeginDragging", {"session": curl.session, "offset": 390})
    assert e["code"] == -32003 and e["data"]["transitionStyle"] == "pageCurl"
    curl.begin(2)
    for method, params in [("page.show", {"index": 0}), ("page.beginInteractiveCurl", {"index": 0}),
                           ("page.reloadPage", {"index": 1, "data": {}})]:
        e = curl.p.error(method, {"session": curl.session, **params})
        assert e["code"] == -32003, (method, e)
    e = curl.p.error("page.updateInteractiveCurl", {"session": curl.session, "progress": 1.5})
    assert e["code"] == -32602 and e["data"]["path"] == "progress"
    curl.cancel(duration=0)
    e = curl.p.error("page.beginInteractiveCurl", {"session": curl.session, "index": 1})
    assert e["code"] == -32602 and e["data"]["path"] == "index"


def test_a_scroll_session_has_no_curl_gesture(vhost):
    p = EventCursor(vhost.connect())
    s = p("page.create", {"class": "Container", "count": 3, "width": W, "height": H})["session"]
    assert "transitionStyle" not in p("page.info", {"session": s})  # a scroll session says nothing new
    e = p.error("page.beginInteractiveCurl", {"session": s, "index": 1})
    assert e["code"] == -32003 and e["data"]["transitionStyle"] == "scroll"
    e = p.error("page.create", {"class": "Container", "count": 3, "width": W, "height": H, "transitionStyle": "flip"})
    assert e["code"] == -32602 and e["data"]["path"] == "transitionStyle"


def test_destroying_a_session_mid_curl_cancels_it_balanced(vhost):
    p = EventCursor(vhost.connect()).subscribe(["lifecycle"])
    s = p("page.create", {"class": "Container", "count": 3, "width": W, "height": H, "transitionStyle": "pageCurl"})["session"]
    p("page.beginInteractiveCurl", {"session": s, "index": 1})
    p("page.destroy", {"session": s})
    events = [from_wire("lifecycle", e["params"]) for e in p.events() if e["method"] == "lifecycle"]
    assert_balanced(events)


def random_run(pair: CurlPair, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        op = rng.random()
        live = pair.m.nodes[pair.session].gesture is not None
        if op < 0.3 and not live:
            pair.begin(rng.randrange(4))
        elif op < 0.4 and live:
            pair.update(rng.choice([0, 0.25, 0.5, 1]))
        elif op < 0.55 and live:
            pair.finish(rng.choice([None, 0, 400]))
        elif op < 0.7 and live:
            pair.cancel(rng.choice([None, 0, 400]))
        elif op < 0.8 and not live:
            pair.show(rng.randrange(4), rng.random() < 0.7, rng.choice([None, 0, 200]))
        else:
            pair.advance(rng.choice([0, 100, 300]))
    if pair.m.nodes[pair.session].gesture is not None:
        pair.cancel()
    pair.advance(5000)
    assert_balanced(pair.all, complete=True)


@pytest.mark.parametrize("seed", range(int(os.environ.get("GREENROOM_MODEL_SEEDS", 30))))
def test_random_sequences_match_the_model(vhost, seed):
    random_run(CurlPair(vhost.connect()), random.Random(seed), 50)
