"""The virtual clock explains itself (docs/virtual-clock.md).

Under `--clock virtual` nothing happens by itself: idle tasks (pool warm-ups) wait for `tasks.drain`, timers
(animation ends, a memory warning's cool-down) for `clock.advance`. The replies of the methods that can
leave such work behind carry a `note` saying what waits and which call runs it — only under the virtual
clock, and only when the request left something waiting. `clock.advance` names the new time `now`
(keeping `ms`, the same value, for older clients).
"""

from __future__ import annotations

import pytest


def test_clock_advance_names_the_new_time_now_and_keeps_ms(vhost):
    c = vhost.connect()
    first = c.result("clock.advance", {"ms": 300})
    assert first == {"now": 300.0, "ms": 300.0, "fired": 0}
    second = c.result("clock.advance", {"ms": 12.5})
    # `now` is the time after advancing, not the amount advanced (the param `ms` is the amount).
    assert second["now"] == 312.5 and second["ms"] == second["now"]
    assert c.result("clock.now")["ms"] == second["now"]


def test_a_cold_pool_says_it_waits_for_tasks_drain(vhost):
    c = vhost.connect()
    s = c.result("stack.create", {"width": 375, "height": 667})["stack"]
    miss = c.result("showRendered", {"class": "Container", "stack": s})
    assert miss["warm"] is False
    assert "tasks.drain" in miss["note"] and "1 idle task" in miss["note"], miss
    # Nothing ran by itself: the pool is still cold, exactly as the note said.
    assert c.result("pool.status", {"class": "Container"})["pools"][0]["idle"] == 0
    assert c.result("tasks.drain") == {"ran": 1, "pending": 0}
    hit = c.result("showRendered", {"class": "Container", "stack": s})
    assert hit["warm"] is True and "tasks.drain" in hit["note"]  # the replacement is queued in turn


def test_eager_pool_configure_and_pool_warm_say_so_too(vhost):
    c = vhost.connect()
    eager = c.result("pool.configure", {"class": "Container", "depth": 2, "policy": "eager"})
    assert eager["warming"] == 2 and "2 idle tasks" in eager["note"], eager
    c.result("tasks.drain")
    warm = c.result("pool.warm", {"class": "Container", "count": 1})
    assert "tasks.drain" in warm["note"]


def test_nothing_waiting_means_no_note(vhost):
    c = vhost.connect()
    lazy = c.result("pool.configure", {"class": "Container", "depth": 1})  # lazy: nothing queued yet
    assert "note" not in lazy
    s = c.result("stack.create", {"width": 320, "height": 480})["stack"]
    box = c.result("container.create", {"class": "Container"})["container"]
    assert "note" not in c.result("stack.push", {"stack": s, "container": box})  # not animated
    p = c.result("page.create", {"class": "Container", "count": 3, "width": 320, "height": 480})["session"]
    assert "note" not in c.result("page.show", {"session": p, "index": 1, "animated": False})


def test_page_show_says_didappear_waits_for_clock_advance(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    p = c.result("page.create", {"class": "Container", "count": 3, "width": 320, "height": 480})["session"]
    shown = c.result("page.show", {"session": p, "index": 1})  # animated by default
    assert shown["phase"] == "animating"
    assert 'clock.advance {"ms": 300}' in shown["note"] and "t=300 ms" in shown["note"], shown
    c.events.clear()
    c.result("clock.advance", {"ms": 300})
    hooks = [(e["params"]["event"], e["params"]["page"]["index"]) for e in c.events if e["method"] == "lifecycle"]
    assert ("viewDidAppear", 1) in hooks and ("viewDidDisappear", 0) in hooks


def test_animated_push_pop_and_cool_down_name_their_timers(vhost):
    c = vhost.connect()
    s = c.result("stack.create", {"width": 320, "height": 480})["stack"]
    a = c.result("container.create", {"class": "Container"})["container"]
    push = c.result("stack.push", {"stack": s, "container": a, "animated": True})
    assert 'clock.advance {"ms": 300}' in push["note"]
    c.result("clock.advance", {"ms": 300})
    pop = c.result("stack.pop", {"stack": s, "animated": True})
    assert pop["container"] == a and 'clock.advance {"ms": 300}' in pop["note"]
    c.result("clock.advance", {"ms": 300})
    c.result("pool.configure", {"class": "Container", "depth": 1, "policy": "eager"})
    c.result("tasks.drain")
    warning = c.result("host.memoryWarning")
    assert 'clock.advance {"ms": 5000}' in warning["note"], warning  # the pools' cool-down


def test_a_real_clock_never_adds_a_note(start_host):
    real = start_host()
    c = real.connect()
    s = c.result("stack.create", {"width": 375, "height": 667})["stack"]
    assert "note" not in c.result("showRendered", {"class": "Container", "stack": s})
    p = c.result("page.create", {"class": "Container", "count": 2, "width": 320, "height": 480})["session"]
    assert "note" not in c.result("page.show", {"session": p, "index": 1})


@pytest.mark.parametrize("params", [{"ms": -1}, {"ms": "300"}])
def test_clock_advance_bad_input_still_names_the_field(vhost, params):
    c = vhost.connect()
    reply = c.call("clock.advance", params)
    assert reply["error"]["code"] == -32602 and reply["error"]["data"]["path"] == "ms"
    c.ping()
