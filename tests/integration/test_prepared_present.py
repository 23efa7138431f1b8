"""What the prerendering article (docs/pools.md, "Passive pop-ups") does beyond the pool itself:

- `showRendered {data, present: "onSuccess"}` configures the container in the green room, offscreen, and
  presents it only when that configure succeeded; a failure reaches no stack, answers -32004 naming the hook,
  and the pool warms a replacement;
- `reply: "afterAppear"` (on `showRendered` and `stack.push`) answers after the incoming container's
  `viewDidAppear`, with `transitionMs`, as the article's `showRenderedViewController:completion:` does;
- graded memory warnings: `warning` trims each pool to one idle container, `critical` purges them all;
- `--pool-cooldown-ms` and `--pool-budget-bytes`, shown by `host.info`.
"""

from __future__ import annotations

import pytest
from grhost import tag
from lifecyclemodel import session
from test_plugin_lane import Gate, events_until, tags
from test_plugins import lib


def stack(s, **extra) -> str:
    return s("stack.create", dict({"width": 375, "height": 667}, **extra))["stack"]


def warm(s, cls: str, count: int = 1) -> None:
    s("pool.warm", {"class": cls, "count": count})
    s("tasks.drain")
    s.skip()


def read_until(conn, rid) -> tuple[list[dict], dict]:
    """Reads what arrives until the reply to `rid` (replies to other ids included): (messages before it, it)."""
    before = []
    while True:
        msg = conn.read_json()
        if msg.get("id") == rid:
            return before, msg
        before.append(msg)


# --- present: "onSuccess" ---------------------------------------------------------------------------------

def test_a_hit_is_configured_in_the_green_room_before_it_moves(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card", "hooks": {"configure": {"output": {"loaded": True}}}})
    st = stack(s)
    warm(s, "Card")
    shown = s("showRendered", {"class": "Card", "stack": st, "data": {"order": 7}, "present": "onSuccess"})
    c = shown["container"]
    assert (shown["warm"], shown["output"]) == (True, {"loaded": True}), shown
    seq = s.tags()
    # The article's passive pop-up: loaded with its data offscreen, then handed over and pushed.
    assert seq[0] == f"{c}:configure~", seq
    assert seq.index(f"{c}:configure~") < seq.index(f"{c}:willMoveToParent~") < seq.index(f"pool:hit:{c}") \
        < seq.index(f"{c}:willMoveToParent") < seq.index(f"{c}:viewDidAppear"), seq
    assert f"{c}:configure" not in seq, "configured once, in the green room"
    assert s("stack.info", {"stack": st})["top"] == c
    s.assert_balanced()


def test_a_miss_loads_in_the_green_room_first(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    st = stack(s)
    shown = s("showRendered", {"class": "Card", "stack": st, "data": {}, "present": "onSuccess"})
    c = shown["container"]
    assert shown["warm"] is False
    seq = s.tags()
    on_screen = [t for t in seq if t.startswith(f"{c}:") and not t.endswith("~")]
    offscreen = [t for t in seq if t.endswith("~")]
    assert f"{c}:viewDidLoad~" in offscreen and f"{c}:configure~" in offscreen, seq
    # On the user's stack it only moves and appears: no load, no configure there.
    assert on_screen == [f"{c}:willMoveToParent", f"{c}:viewWillAppear", f"{c}:viewIsAppearing", f"{c}:viewDidAppear",
                         f"{c}:didMoveToParent"], seq
    pool = s.pool("Card")
    assert (pool["misses"], pool["hits"], pool["warming"]) == (1, 0, 1), pool
    s.assert_balanced()


@pytest.mark.parametrize("warm_first", [True, False], ids=["hit", "miss"])
def test_a_configure_that_fails_in_the_green_room_never_reaches_the_stack(vhost, warm_first):
    s = session(vhost)
    s("classes.define", {"name": "Bad", "hooks": {"configure": {"fail": True}}})
    st = stack(s)
    below = s("container.create", {"class": "Bad"})["container"]
    s("stack.push", {"stack": st, "container": below})
    if warm_first:
        warm(s, "Bad")
    s.skip()
    err = s.error("showRendered", {"class": "Bad", "stack": st, "data": {"id": 1}, "present": "onSuccess"})
    assert err["code"] == -32004 and err["data"]["hook"] == "configure" and err["data"]["class"] == "Bad", err
    failed = err["data"]["container"]
    seq = s.tags()
    # Torn down where it was, offscreen; the stack and what is on it never heard of it.
    assert f"{failed}:configure~!" in seq and seq[-1] == f"{failed}:deinit~", seq
    assert not [t for t in seq if not t.endswith(("~", "~!")) and not t.startswith("pool:")], seq
    assert s("stack.info", {"stack": st})["containers"] == [below]
    err = s.error("container.info", {"container": failed})
    assert err["code"] == -32002
    # The pool warms a replacement.
    assert s.pool("Bad")["warming"] == 1
    s("tasks.drain")
    assert s.pool("Bad")["idle"] == 1
    s.assert_balanced()


def test_present_on_success_needs_data(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    err = s.error("showRendered", {"class": "Card", "present": "onSuccess"})
    assert err["code"] == -32602 and err["data"]["path"] == "present", err
    err = s.error("showRendered", {"class": "Card", "data": {}, "present": "later"})
    assert err["code"] == -32602 and err["data"]["path"] == "present", err
    assert s("host.stats")["containers"]["total"] == 0


def test_a_container_configured_for_one_client_is_never_handed_to_another(vhost):
    a, b = session(vhost), session(vhost)
    a("classes.define", {"name": "Card", "hooks": {"configure": {"output": {"ok": True}}}})
    a("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    a("tasks.drain")
    mine = a("showRendered", {"class": "Card", "data": {"user": "a"}, "present": "onSuccess"})["container"]
    theirs = b("showRendered", {"class": "Card", "data": {"user": "b"}, "present": "onSuccess"})["container"]
    assert mine != theirs
    assert b.error("container.info", {"container": mine})["code"] == -32002
    assert a("container.info", {"container": mine})["state"] == "disappeared"


def test_a_client_that_closes_while_its_prepared_container_loads(start_host, tmp_short):
    """The configure runs in a plugin's worker and takes its time; the client goes away meanwhile. The call
    ends (the container was the client's from its configure), then the connection's teardown takes the
    container down: balanced, nothing left, and the other clients never stopped."""
    host = start_host("--plugin", lib("CrashyPlugin"), "--hook-timeout-ms", "20000")
    gate = Gate(tmp_short)
    observer = host.connect()
    observer.result("events.subscribe", {"topics": ["lifecycle", "host", "pool"], "scope": "all"})
    client = host.connect()
    st = client.result("stack.create", {"width": 375, "height": 667})["stack"]
    client.result("pool.warm", {"class": "Crashy"})
    host.wait_stats(lambda s: s["pools"]["idle"] == 1, observer)
    client.request("showRendered", {"class": "Crashy", "stack": st, "data": gate.data(), "present": "onSuccess"})
    gate.wait_entered()
    client.close()
    observer.ping()
    gate.release()
    seen = events_until(observer, lambda evs: any(
        e["method"] == "host" and e["params"]["kind"] == "connectionClosed" for e in evs))
    order = tags(seen)
    [c] = {cid for cid, ev in order if ev == "configure"}
    assert order.index((c, "configure")) < order.index((c, "deinit")), order
    stats = host.wait_stats(lambda s: s["containers"]["total"] == s["containers"]["pooled"], observer)
    assert stats["unbalancedTransitions"] == 0 and stats["stacks"] == 0, stats


# --- reply: "afterAppear" -----------------------------------------------------------------------------------

def test_show_rendered_answers_after_the_animated_push_ends(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    st = stack(s)
    warm(s, "Card")
    rid = s.conn.request("showRendered", {"class": "Card", "stack": st, "animated": True, "duration": 250,
                                          "reply": "afterAppear"})
    advance = s.conn.request("clock.advance", {"ms": 249})
    before, reply = read_until(s.conn, advance)
    assert not [m for m in before if m.get("id") == rid], "not before the transition ends"
    s.conn.events.extend(m for m in before if "method" in m)
    advance = s.conn.request("clock.advance", {"ms": 1})
    before, held = read_until(s.conn, rid)
    assert held["result"]["transitionMs"] == 250 and held["result"]["warm"] is True, held
    c = held["result"]["container"]
    lifecycle_before = [tag(m) for m in before if m.get("method") == "lifecycle"]
    assert lifecycle_before[-1] == f"{c}:viewDidAppear", f"the reply follows viewDidAppear: {lifecycle_before}"
    assert "note" not in held["result"] or "clock.advance" not in held["result"]["note"], held
    _, done = read_until(s.conn, advance)
    assert done["result"]["now"] == 250


def test_an_unanimated_push_answers_at_once_with_no_transition_time(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    st = stack(s)
    shown = s("showRendered", {"class": "Card", "stack": st, "reply": "afterAppear"})
    assert shown["transitionMs"] == 0
    assert s("container.info", {"container": shown["container"]})["state"] == "appeared"
    c = s("container.create", {"class": "Card"})["container"]
    assert s("stack.push", {"stack": st, "container": c, "reply": "afterAppear"})["transitionMs"] == 0


def test_stack_push_answers_after_appear_and_the_connection_keeps_working_meanwhile(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    st = stack(s)
    c = s("container.create", {"class": "Card"})["container"]
    rid = s.conn.request("stack.push", {"stack": st, "container": c, "animated": True, "reply": "afterAppear"})
    # Later lines run while the reply waits.
    ping = s.conn.request("host.ping")
    before, pong = read_until(s.conn, ping)
    assert pong["result"] == {"pong": True} and not [m for m in before if m.get("id") == rid]
    info = s.conn.request("container.info", {"container": c})
    _, state = read_until(s.conn, info)
    assert state["result"]["state"] == "appearing"
    s.conn.request("clock.advance", {"ms": 300})
    _, held = read_until(s.conn, rid)
    assert held["result"]["top"] == c and held["result"]["transitionMs"] == 300, held


def test_an_interrupting_pop_completes_the_push_first_so_the_reply_comes(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    st = stack(s)
    root = s("container.create", {"class": "Card"})["container"]
    s("stack.push", {"stack": st, "container": root})
    c = s("container.create", {"class": "Card"})["container"]
    s("clock.advance", {"ms": 40})
    rid = s.conn.request("stack.push", {"stack": st, "container": c, "animated": True, "reply": "afterAppear"})
    s.conn.request("clock.advance", {"ms": 100})
    pop = s.conn.request("stack.pop", {"stack": st})
    before, held = read_until(s.conn, rid)
    assert held["result"]["transitionMs"] == 100, held
    _, popped = read_until(s.conn, pop)
    assert "result" in popped, popped


def test_after_appear_is_refused_in_a_batch_on_a_hidden_stack_and_without_a_stack(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    st = stack(s)
    hidden = stack(s, hidden=True)
    err = s.error("showRendered", {"class": "Card", "reply": "afterAppear"})
    assert err["code"] == -32602 and err["data"]["path"] == "reply", err
    err = s.error("showRendered", {"class": "Card", "stack": hidden, "reply": "afterAppear"})
    assert err["code"] == -32003 and err["data"]["stack"] == hidden, err
    c = s("container.create", {"class": "Card"})["container"]
    err = s.error("stack.push", {"stack": hidden, "container": c, "reply": "afterAppear"})
    assert err["code"] == -32003, err
    s.conn.send([{"jsonrpc": "2.0", "id": "a", "method": "stack.push",
                  "params": {"stack": st, "container": c, "reply": "afterAppear"}},
                 {"jsonrpc": "2.0", "id": "b", "method": "host.ping"}])
    batch = s.conn.read_json()
    assert batch[0]["error"]["code"] == -32602 and batch[0]["error"]["data"]["path"] == "reply", batch
    assert batch[1]["result"] == {"pong": True}
    assert s("stack.info", {"stack": st})["containers"] == [], "nothing was pushed"
    assert s("host.stats")["containers"]["total"] == 1, "nothing was made"


def test_a_container_torn_down_before_it_appears_answers_its_held_reply_with_the_failure(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Shy", "hooks": {"viewDidAppear": {"fail": True}}})
    st = stack(s)
    c = s("container.create", {"class": "Shy"})["container"]
    rid = s.conn.request("stack.push", {"stack": st, "container": c, "animated": True, "reply": "afterAppear"})
    s.conn.request("clock.advance", {"ms": 300})
    _, held = read_until(s.conn, rid)
    err = held["error"]
    assert err["code"] == -32004 and err["data"]["hook"] == "viewDidAppear" and err["data"]["container"] == c, err


def test_a_client_that_closes_while_its_reply_waits_loses_nothing_else(vhost):
    a, b = session(vhost), session(vhost, scope="all")
    a("classes.define", {"name": "Card"})
    st = stack(a)
    c = a("container.create", {"class": "Card"})["container"]
    a.conn.request("stack.push", {"stack": st, "container": c, "animated": True, "reply": "afterAppear"})
    a.conn.request("host.ping")
    a.conn.read_json()  # the ping's reply: the push ran
    a.conn.close()
    b("clock.advance", {"ms": 300})
    stats = b.stats()
    assert stats["containers"]["total"] == 0 and stats["unbalancedTransitions"] == 0, stats


# --- graded memory warnings ------------------------------------------------------------------------------

def test_a_warning_keeps_the_next_hit_and_a_critical_one_purges_everything(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card", "memoryBytes": 1000})
    s("pool.configure", {"class": "Card", "depth": 3, "policy": "eager"})
    s("tasks.drain")
    top = s("pool.status", {"class": "Card"})["pools"][0]
    s.skip()
    warning = s("host.memoryWarning", {"level": "warning"})
    assert warning["purged"]["pooledContainers"] == 2 and warning["purged"]["pooledBytes"] == 2000, warning
    events = [e["params"] for e in s.events() if e["method"] == "pool"]
    assert [(e["kind"], e["kept"]) for e in events] == [("purged", 1)], events
    assert s.pool("Card")["idle"] == 1
    hit = s("showRendered", {"class": "Card"})
    assert hit["warm"] is True, "the one kept is the next hit"
    assert s("host.memoryWarning", {"level": "critical"})["purged"]["pooledContainers"] == 0
    assert top["idle"] == 3


def test_the_cool_down_and_the_budget_are_flags_and_host_info_shows_them(start_host):
    host = start_host("--clock", "virtual", "--pool-cooldown-ms", "1200", "--pool-budget-bytes", "5000")
    s = session(host)
    assert s("host.info")["pools"] == {"coolDownMs": 1200, "budgetBytes": 5000}
    s("classes.define", {"name": "Card", "memoryBytes": 2000})
    s("pool.configure", {"class": "Card", "depth": 4, "policy": "eager"})
    s("tasks.drain")
    assert s.pool("Card")["idle"] == 2, "the budget holds two of 2000 bytes"
    s("host.memoryWarning", {"level": "critical"})
    s("clock.advance", {"ms": 1199})
    assert s("tasks.status")["pending"] == 0
    s("clock.advance", {"ms": 1})
    assert s("tasks.status")["pending"] > 0


@pytest.mark.parametrize("flag,value", [("--pool-cooldown-ms", "-1"), ("--pool-cooldown-ms", "soon"),
                                        ("--pool-budget-bytes", "-5"), ("--pool-budget-bytes", "1.5")])
def test_bad_pool_flags_are_refused_at_start(start_host, flag, value):
    err = start_host.fail(flag, value)
    assert flag.lstrip("-") in err.stderr or flag in err.stderr, err.stderr
