"""Page sessions as objects: page.create (the initial page shown during create, sized by pages or data),
page.info's shape, bad inputs rejected with data and nothing changed, page.destroy mid drag or mid animation,
a disconnect mid drag, and who receives page events.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import json
import subprocess

import jsonschema
import pytest
from grhost import tag
from lifecyclemodel import (APPEARANCE, DOC_URI, REGISTRY, W, assert_settled, drag, lifecycle, load, page_peer,
                            page_session, peer, sessions)
from openrpcdoc import Host, TIMEOUT, check_error, check_params


def test_page_create_without_stack_shows_the_initial_page_during_create(vhost):
    """docs/pages.md: a session created without `stack` is on screen at once: its initial page is created, attached,
    loads,
    lays out at the page size and appears (not animated) before the reply."""
    p = peer(vhost)
    s, info = sessions(p, initialIndex=2, width=320, height=480)
    events = p.events()
    c = info["children"][0]["container"]
    assert [tag(e) for e in events] == [f"{c}:init", f"{c}:willMoveToParent", f"{c}:didMoveToParent", *load(c),
                                        f"{c}:viewWillAppear", f"{c}:viewIsAppearing", f"{c}:viewDidAppear"]
    assert all(e["page"] == {"session": s, "index": 2} for e in lifecycle(events))
    assert lifecycle(events, c, "willMoveToParent")[0]["parent"] == s
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 320, "height": 480}
    assert all(e["animated"] is False for e in lifecycle(events) if e["event"] in APPEARANCE)
    assert (info["index"], info["offset"], info["visible"], info["phase"]) == (2, 640, True, "idle"), info
    assert info["children"] == [{"index": 2, "container": c, "state": "appeared"}]
    assert p.info(c)["parent"] == {"kind": "page", "id": s, "index": 2}
    p.assert_balanced()


def test_page_create_with_pages_or_data_sizes_the_session(vhost):
    """rpc-schema/openrpc.json: page.create {pages: [{class, data?}]} gives each page its class; with `class`, count
    defaults to
    data's length."""
    p = peer(vhost)
    p("classes.define", {"name": "Cover"})
    s, info = sessions(p, **{"class": None, "count": None}, initialIndex=0, pages=[{"class": "Cover", "data": 1}, {"class": "Container"}])
    assert info["count"] == 2
    p("page.show", {"session": s, "index": 1, "animated": False})
    classes = {e["params"]["page"]["index"]: e["params"]["class"] for e in p.events()
               if e["method"] == "lifecycle" and e["params"]["event"] == "init"}
    assert classes == {0: "Cover", 1: "Container"}
    s2 = p("page.create", {"class": "Container", "data": [1, 2, 3, 4], "width": W, "height": 200})
    assert s2["count"] == 4 and s2["index"] == 0


def test_page_info_shape(vhost):
    """rpc-schema/openrpc.json: page.info -> {index, count, children: [{index, container, state}], ...} (rpc-schema
    PageInfo)."""
    p = peer(vhost)
    s, _ = sessions(p)
    p("page.show", {"session": s, "index": 3})
    info = p.page(s)
    assert set(info) == {"session", "index", "count", "width", "height", "phase", "offset", "guess", "visible",
                         "cache", "container", "children", "deferred", "reuseQueue"}, info
    assert (info["index"], info["count"], info["phase"], info["cache"], info["container"]) == (1, 5, "animating",
                                                                                             {"limit": 3}, None)
    assert [(c["index"], c["state"]) for c in info["children"]] == [(1, "disappearing"), (3, "appearing")]
    assert all(set(c) == {"index", "container", "state"} for c in info["children"])
    jsonschema.Draft7Validator({"$ref": DOC_URI + "#/components/schemas/PageInfo"}, registry=REGISTRY).validate(info)


def test_bad_page_inputs_are_rejected_with_data_and_change_nothing(vhost):
    """docs/protocol.md/rpc-schema/openrpc.json: bad params -> -32602 naming the field (offset bounds are -w and count*w
    inclusive), an unknown or
    another connection's session -> -32002, NaN is not JSON (-32700); nothing is created or changed."""
    p, other = peer(vhost), peer(vhost)
    s, _ = sessions(p)
    S = {"session": s}
    before_stats = p.stats()
    before = p.page(s)
    p.skip()
    bad = [
        ("page.create", {"class": "Container", "count": 3, "width": 0, "height": 10}, -32602, "width"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": -1}, -32602, "height"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": 10, "initialIndex": 3}, -32602,
         "initialIndex"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": 10, "cache": {"limit": 0}},
         -32602, "cache.limit"),
        ("page.create", {"class": "Nope", "count": 3, "width": 10, "height": 10}, -32001, "class"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": 10, "stack": "s-404"}, -32002,
         "stack"),
        ("page.show", {**S, "index": 5}, -32602, "index"),
        ("page.show", {**S, "index": -1}, -32602, "index"),
        ("page.willBeginDragging", {**S, "offset": -100.5}, -32602, "offset"),
        ("page.willBeginDragging", {**S, "offset": 500.5}, -32602, "offset"),
        ("page.didScroll", {**S, "offset": -1e9}, -32602, "offset"),
        ("page.show", {"session": "p-404", "index": 0}, -32002, "session"),
        ("page.info", {"session": "p-404"}, -32002, "session"),
    ]
    wrong = []
    for method, params, code, path in bad:
        reply = p.conn.call(method, params)
        err = reply.get("error")
        if not err or err["code"] != code or err["data"].get("path") != path or "kind" not in err["data"]:
            wrong.append(f"{method} {params}: expected {code} at {path}, got {reply}")
    assert not wrong, "\n".join(wrong)
    err = other.error("page.show", {"session": s, "index": 0})
    assert err["code"] == -32002 and err["data"]["id"] == s, err
    p.conn.send_raw(b'{"jsonrpc":"2.0","id":9001,"method":"page.didScroll","params":{"session":"' + s.encode()
                    + b'","offset":NaN}}\n')
    reply = p.conn.read_reply(9001)
    assert reply.get("error", {}).get("code") == -32700, reply
    p("page.didScroll", {**S, "offset": -100})  # the bounds themselves are accepted (recorded at rest)
    p("page.didScroll", {**S, "offset": 500})
    p("page.didScroll", {**S, "offset": 100})
    assert p.events() == []
    assert p.page(s) == before
    after = p.stats()
    assert after["sessions"] == before_stats["sessions"] and after["containers"] == before_stats["containers"]


def test_page_destroy_mid_drag_tears_every_child_down_balanced(vhost):
    """rpc-schema page.destroy: every attached child disappears if on screen and is released
    (willMoveToParent(null), didMoveToParent(null), deinit); tracking ends; the id is unknown afterwards."""
    p = peer(vhost)
    s, _ = sessions(p)
    S = {"session": s}
    p("page.willBeginDragging", {**S, "offset": 100})
    p("page.didScroll", {**S, "offset": 130})
    kids = {c["index"]: c["container"] for c in p.page(s)["children"]}
    p.skip()
    assert p("page.destroy", S) == {"session": s, "destroyed": True}
    events = p.events()
    assert [e["event"] for e in lifecycle(events, kids[1])] == ["viewDidDisappear", "willMoveToParent",
                                                                "didMoveToParent", "deinit"]
    assert [e["event"] for e in lifecycle(events, kids[2])] == ["viewWillDisappear", "viewDidDisappear",
                                                                "willMoveToParent", "didMoveToParent", "deinit"]
    stats = p.stats()
    assert stats["sessions"]["page"] == 0 and stats["sessions"]["pageTracking"] == 0 and stats["containers"]["total"] == 0
    assert p("tasks.status")["paused"] is False
    assert p.error("page.info", S)["code"] == -32002
    p.assert_balanced()


def test_page_destroy_mid_animation_delivers_the_animation_first(vhost):
    """rpc-schema page.destroy: a running animation completes (its end calls are delivered), then every child
    disappears if on screen and is released."""
    p = peer(vhost)
    s, _ = sessions(p)
    p("page.show", {"session": s, "index": 2})
    kids = {c["index"]: c["container"] for c in p.page(s)["children"]}
    p.skip()
    p("page.destroy", {"session": s})
    tags = p.tags()
    one, two = kids[1], kids[2]
    assert tags[:3] == [f"{two}:viewDidAppear", f"{one}:viewDidDisappear", "page:didTransition:1->2:True"], tags
    assert [t for t in tags if t.startswith(two + ":")][1:] == [f"{two}:viewWillDisappear", f"{two}:viewDidDisappear",
                                                               f"{two}:willMoveToParent", f"{two}:didMoveToParent",
                                                               f"{two}:deinit"], tags
    assert p("host.stats")["timers"] == 0
    p("clock.advance", {"ms": 1000})
    assert p.tags() == []
    p.assert_balanced()


def test_disconnect_mid_drag_tears_down_balanced_and_ends_the_pause(vhost):
    """docs/protocol.md: when a connection goes, its objects are torn down with correct lifecycle (disappear, then
    deinit) and
    nothing else is affected: an observer sees each child of the dragging session finish disappearing before its
    deinit; another connection's session keeps working, and its `default` idle task, paused while the drag
    tracked (docs/tasks.md), becomes runnable."""
    a = page_peer(vhost)
    b = page_peer(vhost)
    watcher = page_peer(vhost, scope="all")
    sa = page_session(a, count=3, initialIndex=0)
    sb = page_session(b, count=3, initialIndex=0)
    kids = a.kids(sa)
    drag(a, sa, [0, 40])  # page 1 appearing, page 0 disappearing
    kids.update(a.kids(sa))
    assert b("showRendered", {"class": "Container"})["warm"] is False  # one warm-up queued, paused
    assert b("tasks.status")["runnable"] == 0 and b("tasks.drain")["ran"] == 0
    watcher("host.ping")  # everything so far is read
    watcher.skip()
    a.conn.close()
    vhost.wait_stats(lambda st: st["connections"]["open"] == 2 and st["sessions"]["page"] == 1, conn=b.conn)
    watcher("host.ping")
    events = [e["params"] for e in watcher.events() if e["method"] == "lifecycle"]
    for index, expected in ((0, ["viewDidDisappear"]), (1, ["viewWillDisappear", "viewDidDisappear"])):
        mine = [e["event"] for e in events if e["container"] == kids[index]]
        assert mine == [*expected, "willMoveToParent", "didMoveToParent", "deinit"], (index, mine)
    assert b("tasks.status")["runnable"] == 1
    assert b("tasks.drain")["ran"] == 1
    b("page.show", {"session": sb, "index": 2, "animated": False})
    assert_settled(b, sb, 2)
    b.assert_balanced()
    watcher.assert_balanced()


def test_page_events_go_to_the_owner_and_observers_only(vhost):
    """docs/protocol.md/docs/pages.md: page events go to the session's owner (subscribed) and `scope: all` observers,
    not to other
    connections."""
    owner, stranger = peer(vhost), peer(vhost)
    observer = peer(vhost, scope="all")
    s, _ = sessions(owner)
    owner("page.show", {"session": s, "index": 2, "animated": False})
    stranger("host.ping")
    observer("host.ping")
    assert [t for t in owner.tags() if t.startswith("page:")] == ["page:willTransition:1->2",
                                                                   "page:didTransition:1->2:True"]
    assert stranger.tags() == []
    assert [t for t in observer.tags() if t.startswith("page:")] == ["page:willTransition:1->2",
                                                                      "page:didTransition:1->2:True"]


def test_session_container_events_all_name_their_session(vhost):
    """rpc-schema LifecycleEvent.page: "Set when the container belongs to a page session: ... or the session's own
    container in a stack (`session` only)". Every lifecycle event of the session's own container (class
    PageViewController), from its `init` (page.create) to its final willMoveToParent / didMoveToParent / deinit
    (page.destroy), carries `page: {session}`, so a client can tell they belong to the session."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, info = sessions(p, stack=stack)
    own = info["container"]
    p("page.destroy", {"session": s})
    mine = [e for e in lifecycle(p.events(), own)]
    assert mine and mine[0]["event"] == "init" and mine[-1]["event"] == "deinit"
    missing = [e["event"] for e in mine if e.get("page") != {"session": s}]
    assert not missing, f"events of {own} without page {{session: {s}}}: {missing}"


@pytest.mark.parametrize("count", [-1, 10**15])
def test_page_create_count_out_of_range_is_invalid_params(count: int) -> None:
    """docs/protocol.md: invalid params are -32602 naming the field, and one bad request affects nothing else.
    `page.create {class, count}` with a negative count (or an enormous one) crashes the whole host: the pages
    array is built (`Array(repeating:count:)`) before the 1...1000000 range check, and every connection is lost."""
    params = {"class": "Container", "count": count, "width": 100, "height": 200}
    assert check_params("page.create", params), "the document rejects the count"
    host = Host()
    try:
        c = host.connect()
        c.send_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "page.create", "params": params}).encode())
        try:
            reply = c.read_reply()
        except pytest.fail.Exception:
            try:
                code = host.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                code = None
            pytest.fail(f"page.create with count {count} brought the host down (exit {code}) instead of answering "
                        "-32602 with data.path count", pytrace=False)
        error = check_error(reply, "page.create", -32602, f"count {count}")
        assert error["data"]["path"] == "count", error
        assert c.call("host.ping") == {"pong": True}
        c.close()
    finally:
        host.cleanup()
