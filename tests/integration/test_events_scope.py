"""Who receives events (docs/protocol.md): a connection receives the events of its topics for the objects it
owns; `scope: "all"` observes every connection's objects (its own once, not twice); `scope: "own"` goes
back; unsubscribed topics stay quiet.

Events are written as compact tags, in the order they arrive (grhost.tag):

    "c-2:viewDidLoad~"     lifecycle event `viewDidLoad` of c-2, offscreen (~), "!" when the hook failed
    "pool:warmed:c-2"      pool event of kind `warmed` about c-2 ("pool:purged" has no container)
    "willAppear 0"         (page sessions) an appearance hook of the child on page 0, as the GYPageViewController
                           article writes them
"""

from __future__ import annotations

from lifecyclemodel import W, page_peer


def test_scope_own_sees_only_own_objects_and_all_sees_every_connection_once(vhost):
    """docs/protocol.md: a connection receives events of its topics for objects it owns; `scope: "all"` observes every
    connection's objects (its own once, not twice); `scope: "own"` goes back; unsubscribed topics stay quiet."""
    a = page_peer(vhost, topics=("lifecycle",))
    b = page_peer(vhost, topics=("lifecycle",), scope="all")
    x = a("container.create", {"class": "Container"})["container"]
    y = b("container.create", {"class": "Container"})["container"]
    a("host.ping")
    assert a.tags() == [f"{x}:init"]
    assert b.tags() == [f"{x}:init", f"{y}:init"]
    assert b("events.subscribe", {"topics": ["lifecycle"], "scope": "own"})["scope"] == "own"
    z = a("container.create", {"class": "Container"})["container"]
    w = b("container.create", {"class": "Container"})["container"]
    a("host.ping")
    assert a.tags() == [f"{z}:init"] and b.tags() == [f"{w}:init"]
    s = a("page.create", {"class": "Container", "count": 2, "width": W, "height": 200})["session"]
    a("page.show", {"session": s, "index": 1, "animated": False})
    assert not [e for e in a.events() if e["method"] != "lifecycle"]  # `page` not subscribed
    a.assert_balanced()
    b.assert_balanced()
