"""Hook batching (`--hook-batching`, on by default): the hooks one call runs in a plugin's worker go there in
one message. The host plans the call with every hook assumed to succeed, runs the plan's hooks as a batch
(the worker stops at the first failure), and when one failed or its worker died, undoes the plan and runs the
call again knowing those outcomes. So batching must be invisible: every reply and every event, in order, is
the same as with `--hook-batching off` (one message per hook), whichever hook of a `showRendered` hit fails,
and however (an error, an abort, an exit, output over the limit, a hook past its deadline).

The Crashy plugin's "next" mode arms the class: the next hook of a name, run by any container, misbehaves
once. That reaches the pooled containers of a hit, which no client can configure."""

from __future__ import annotations

import pytest

from test_plugins import lib

#: The hooks of a hit of a warm Crashy (with another warm one below it in the green room) into a stack whose
#: top is a Crashy too, in the order they run; (hook, n) is the n-th run of that hook name in the hit.
HIT_HOOKS = [
    ("willMoveToParent", 0),   # the taken container leaves the green room
    ("viewWillAppear", 0),     # the one below it appears again, offscreen
    ("viewWillDisappear", 0),  # the taken one
    ("viewDidAppear", 0),      # the one below
    ("viewDidDisappear", 0),   # the taken one
    ("didMoveToParent", 0),
    ("willMoveToParent", 1),   # pushed onto the stack
    ("viewWillAppear", 1),
    ("viewWillDisappear", 1),  # the stack's old top
    ("viewDidAppear", 1),
    ("didMoveToParent", 1),
    ("viewDidDisappear", 1),   # the old top
]

#: Values that differ between two hosts for reasons that are not the protocol: process ids, times, and the
#: causes' request ids (the two runs number their requests differently).
VARYING = {"pid", "t", "retryAfterMs", "cause"}


def normalized(value):
    if isinstance(value, dict):
        return {k: (None if k in VARYING else normalized(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def recorder(c, transcript: list):
    """A `call(method, params)` on `c` that appends the events it read, then its reply, to `transcript`
    (normalized) and returns the result."""
    def call(method, params=None):
        reply = c.call(method, params, timeout=10.0)
        transcript.extend(normalized(e) for e in c.events)
        c.events.clear()
        reply.pop("id", None)
        transcript.append(normalized(reply))
        return reply.get("result")
    return call


def hit_transcript(start_host, batching: str, arm: dict | None, old_data: dict | None = None,
                   timeout_ms: str = "2000") -> list:
    """Every reply and event of a scripted hit (with `arm` armed on the Crashy class first), then of the calls
    that check what it left, in the order the client read them."""
    host = start_host("--clock", "virtual", "--plugin", lib("CrashyPlugin"), "--hook-batching", batching,
                      "--hook-timeout-ms", timeout_ms)
    c = host.connect(timeout=10.0)
    transcript = []
    call = recorder(c, transcript)

    call("events.subscribe", {"topics": ["lifecycle", "pool", "host"]})
    stack = call("stack.create", {"width": 375, "height": 667})["stack"]
    old = call("container.create", {"class": "Crashy", "data": old_data} if old_data else {"class": "Crashy"})["container"]
    call("stack.push", {"stack": stack, "container": old})
    call("pool.warm", {"class": "Crashy", "count": 2})
    call("tasks.drain")
    if arm is not None:
        armer = call("container.create", {"class": "Crashy"})["container"]
        call("container.configure", {"container": armer, "data": dict(arm, next=True)})
    call("showRendered", {"class": "Crashy", "stack": stack})
    call("tasks.drain")
    call("stack.info", {"stack": stack})
    call("pool.status", {"class": "Crashy"})
    stats = c.call("host.stats", timeout=10.0)["result"]  # (its rss and timings differ from run to run)
    assert stats["unbalancedTransitions"] == 0
    transcript.append({"containers": stats["containers"], "pools": stats["pools"]})
    # The class works after whatever happened (a crashed worker is back).
    call("tasks.drain")
    call("showRendered", {"class": "Crashy", "stack": stack})
    call("tasks.drain")
    call("stack.info", {"stack": stack})
    batching = c.call("host.stats", timeout=10.0)["result"]["hookBatching"]
    host.stop()
    return transcript, batching


def assert_same(start_host, arm, old_data=None, timeout_ms="2000", replays=1):
    """The transcripts with batching on and off are equal; the first hit's plan met a failure (`replays`)."""
    on, batched = hit_transcript(start_host, "on", arm, old_data, timeout_ms)
    off, unbatched = hit_transcript(start_host, "off", arm, old_data, timeout_ms)
    assert on == off
    assert unbatched == {"enabled": False, "plans": 0, "spoiled": 0, "replays": 0, "batches": 0, "hooks": 0}
    assert batched["enabled"] and batched["spoiled"] == 0 and batched["replays"] == replays
    # The first push, the warm-ups and both hits (the second one a miss when a crash took the pool's warm
    # containers with the worker): one message each.
    assert batched["plans"] >= 4 and batched["batches"] >= batched["plans"]
    return on, batched


def test_a_hit_in_one_batch_says_what_one_hook_at_a_time_says(start_host):
    transcript, batched = assert_same(start_host, None, replays=0)
    # The first push, two warm-ups, the two hits and the warm-up after the first: one message each.
    assert batched["plans"] == batched["batches"] == 6
    hooks = [e["params"]["event"] for e in transcript if e.get("method") == "lifecycle"]
    assert hooks.count("willMoveToParent") >= 4 and "unbalancedAppearanceTransition" not in hooks


@pytest.mark.parametrize("hook,after", HIT_HOOKS, ids=[f"{h}-{n}" for h, n in HIT_HOOKS])
def test_a_failing_hook_anywhere_in_a_hit_gives_what_it_gives_unbatched(start_host, hook, after):
    transcript, _ = assert_same(start_host, {"crash": "fail", "on": hook, "after": after})
    failed = [e for e in transcript if e.get("method") == "lifecycle" and e["params"].get("failed")]
    assert [e["params"]["event"] for e in failed] == [hook]


@pytest.mark.parametrize("hook,after", [("willMoveToParent", 0), ("viewDidAppear", 0), ("viewDidDisappear", 0),
                                        ("viewWillAppear", 1), ("viewDidDisappear", 1)])
def test_a_worker_that_aborts_mid_batch_is_reported_as_one_hook_at_a_time(start_host, hook, after):
    transcript, _ = assert_same(start_host, {"crash": "abort", "on": hook, "after": after})
    crashed = [e for e in transcript if e.get("method") == "host" and e["params"]["kind"] == "pluginCrashed"]
    assert len(crashed) == 1 and crashed[0]["params"]["signalName"] == "SIGABRT"


@pytest.mark.parametrize("mode,hook,after", [("exit", "viewWillDisappear", 0), ("oversize", "didMoveToParent", 1),
                                             ("null", "viewWillAppear", 1)])
def test_other_ways_a_hook_ends_mid_batch(start_host, mode, hook, after):
    assert_same(start_host, {"crash": mode, "on": hook, "after": after, "bytes": 3 << 20})


def test_a_hook_past_its_deadline_mid_batch(start_host):
    transcript, _ = assert_same(start_host, {"crash": "sleep", "on": "viewDidDisappear", "after": 0, "ms": 5000},
                             timeout_ms="300")
    assert any(e.get("method") == "host" and e["params"].get("reason") == "timeout" for e in transcript)


def test_the_old_top_failing_on_its_way_out(start_host):
    """The stack's own top (a container the client made) fails as the hit covers it."""
    assert_same(start_host, None, old_data={"crash": "fail", "on": "viewDidDisappear"})


#: A push of a fresh container onto a stack with a top, then the pop back, and a push that moves a container
#: from another stack: (hook, n) as in HIT_HOOKS, counted from the first push.
STACK_HOOKS = [("loadView", 0), ("viewWillAppear", 0), ("viewWillDisappear", 0), ("viewDidAppear", 0),
               ("didMoveToParent", 0), ("viewDidDisappear", 0), ("willMoveToParent", 1), ("viewWillAppear", 1),
               ("viewDidDisappear", 1), ("didMoveToParent", 1), ("willMoveToParent", 2), ("viewDidDisappear", 2),
               ("viewWillLayoutSubviews", 1), ("viewWillDisappear", 3), ("viewDidAppear", 2)]


def stack_transcript(start_host, batching: str, arm: dict | None) -> tuple[list, dict]:
    host = start_host("--clock", "virtual", "--plugin", lib("CrashyPlugin"), "--hook-batching", batching)
    c = host.connect(timeout=10.0)
    transcript = []
    call = recorder(c, transcript)

    call("events.subscribe", {"topics": ["lifecycle", "host"]})
    s1 = call("stack.create", {"width": 375, "height": 667})["stack"]
    s2 = call("stack.create", {"width": 320, "height": 480})["stack"]
    a, b, m = (call("container.create", {"class": "Crashy"})["container"] for _ in range(3))
    call("stack.push", {"stack": s1, "container": a})
    call("stack.push", {"stack": s2, "container": m})
    if arm is not None:
        armer = call("container.create", {"class": "Crashy"})["container"]
        call("container.configure", {"container": armer, "data": dict(arm, next=True)})
    call("stack.push", {"stack": s1, "container": b})
    call("stack.pop", {"stack": s1})
    call("stack.push", {"stack": s1, "container": m})  # moves it out of s2
    call("stack.info", {"stack": s1})
    call("stack.info", {"stack": s2})
    stats = c.call("host.stats", timeout=10.0)["result"]
    assert stats["unbalancedTransitions"] == 0
    transcript.append({"containers": stats["containers"]})
    host.stop()
    return transcript, stats["hookBatching"]


@pytest.mark.parametrize("hook", [None] + STACK_HOOKS, ids=["none"] + [f"{h}-{n}" for h, n in STACK_HOOKS])
def test_stack_push_and_pop_batched_say_what_one_hook_at_a_time_says(start_host, hook):
    arm = None if hook is None else {"crash": "fail", "on": hook[0], "after": hook[1]}
    on, batched = stack_transcript(start_host, "on", arm)
    off, _ = stack_transcript(start_host, "off", arm)
    assert on == off
    assert batched["spoiled"] == 0 and batched["replays"] == (0 if hook is None else 1)
    failed = [e["params"]["event"] for e in on if e.get("method") == "lifecycle" and e["params"].get("failed")]
    assert failed == ([] if hook is None else [hook[0]])
    if hook is None:
        # The pushes and the pop after the first two (the arming calls are not planned): one message each.
        assert batched["plans"] == batched["batches"] == 5


def test_hook_batching_must_be_on_or_off(start_host):
    failed = start_host.fail("--hook-batching", "sometimes")
    assert "--hook-batching must be on or off" in failed.stderr
