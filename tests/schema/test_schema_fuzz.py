"""Schema-driven fuzz: params drawn from each method's own params in rpc-schema/openrpc.json, sent to a live host.

For every method but `host.shutdown` (which ends the host; tests/integration calls it), Hypothesis with
hypothesis-jsonschema draws params from the method's params list, every `$ref` resolved in the document, and sends
them to a `greenroom serve --clock virtual` of this module's own (with the Crashy plugin in a worker, and TCP and
WebSocket listeners beside the socket). What every reply must be:

- a result that validates against the method's result schema, or
- an ErrorObject whose code the method lists, never -32603, and for -32602 with `data.path`;
- for "almost valid" params (a required member removed, an unknown member added, a member given a value its schema
  refuses): -32602, naming the unknown member;
- and afterwards the host answers `host.ping`, and every event it sent (to an observer subscribed to every topic with
  `scope: "all"`, and to the fuzzing connection) validates against its `x-notifications` schema, `seq` counting up
  by one.

A random id explores little (`s-83` is -32002, a fine answer that reaches no state machine), so each method's
connection first makes real objects in several states (stacks empty, deep, hidden and in an interactive pop; free,
appearing and stacked containers; page sessions at rest, dragging, decelerating and in a stack; range sessions at
rest, dragging, flinging, with sections and with a batch in flight; a scripted class), and every param of an id type
(the document's StackId, ContainerId, PageSessionId, RangeSessionId, BatchContextId, ClassName; `plugins.restart`'s
plugin) takes one of them three times in four, as scroll offsets and page indexes take values inside those
sessions. After a call that destroyed world objects, or moved one on or found it in another phase (at most every
ten examples), the world is made again on a new connection.

The run is repeatable: a fixed seed, and a fixed number of examples per method. Environment:

- GREENROOM_FUZZ_EXAMPLES (default 40): examples per method; `make fuzz-schema` runs many more.
- GREENROOM_FUZZ_SEED: another seed, for a long run that explores elsewhere.
- GREENROOM_FUZZ_SURVEY=FILE: do not stop at a method's first finding (nor shrink it): run every example and fail
  listing each distinct finding with its smallest params, also written to FILE as JSON lines (`1`: no file).
- GREENROOM_FUZZ_TRACE=FILE: every call sent, its outcome and how long it took, as JSON lines.

Host bugs found and not yet fixed are in KNOWN_FINDINGS: the fuzz tolerates them, and `test_known_finding` replays
each one's example as a strict xfail. When the host is fixed, that test passes, the run fails on the XPASS, and the
entry is to be removed (then the fuzz stops tolerating it).

    GREENROOM_FUZZ_EXAMPLES=500 python -m pytest -q tests/schema/test_schema_fuzz.py
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import jsonschema
import pytest
from greenroom import testing
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from openrpcdoc import (Conn, DOC, METHODS, REGISTRY, TIMEOUT, absolutize, binary, check_params, method_error_codes,
                        pointer, resolve_local, validator_at)

FUZZ_EXAMPLES = int(os.environ.get("GREENROOM_FUZZ_EXAMPLES", "40"))
FUZZ_SEED = int(os.environ.get("GREENROOM_FUZZ_SEED", "20251127"))
SURVEY = os.environ.get("GREENROOM_FUZZ_SURVEY")
TRACE = os.environ.get("GREENROOM_FUZZ_TRACE")

FUZZ_SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    # A debug host on two busy cores answers when it answers; a hang is caught by the read timeout instead.
    deadline=None,
    # No .hypothesis/ folder in the work tree: the seed alone decides what a run draws.
    database=None,
    # Shrinking stays on, so that a failure is reported with small params.
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    # range.create's and page.create's params are large schemas: slow or large draws are expected.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=False,
)

NOTIFICATIONS: dict[str, int] = {n["name"]: i for i, n in enumerate(DOC.get("x-notifications", []))}

# ---------------------------------------------------------------- each method's params as schemas, $refs resolved

#: Component schemas whose values name live objects: a param of one of these may take a real one.
ID_KINDS = ("StackId", "ContainerId", "PageSessionId", "RangeSessionId", "BatchContextId", "ClassName")
#: A param that names a plugin is a plain string in the document; it takes the real plugin's name too.
PLUGIN_PARAMS = {("plugins.restart", "plugin")}
#: Values inside the world's sessions for the scroll streams' offsets and page indexes: the schema's numbers are
#: mostly far outside any session's content (-32602, a fine answer that moves no page).
VALUE_HINTS: dict[str, list[Any]] = {
    "PageOffset": [0, 187.5, 375, 520, 750, 1125, 1500, -100],
    "RangeOffset": [0, 44, 300, 667, 1200, 3000, -50],
    "PageIndex": [0, 1, 2, 4],
}
#: Real ids and hinted values are drawn as placeholders (`@@StackId:2`), replaced just before the call: what is
#: drawn does not depend on the ids the world happens to have. There are many more placeholders than real values
#: (each names the one at its index modulo their number): Hypothesis never sends the same params twice, so with
#: only a few it would run out of real ids early in a long run and draw random ones from then on.
PLACEHOLDER = "@@"
PLACEHOLDERS_PER_KIND = 64

#: Where the fuzz draws from a narrower range than the document allows, and why. The contract is not narrower: these
#: values cost real CPU time, memory or event volume by design (a scripted hook burns `costMs` of CPU, each instance
#: holds `memoryBytes`, each warm-up is a container, a range session of a million items on a huge viewport puts a
#: million items in one event), so drawing their maximum would make a run minutes long and explore nothing new.
#: The integration tests cover these ranges. A component is narrowed wherever it is used.
COMPONENT_BOUNDS: dict[str, dict[str, Any]] = {
    "RangeItemCount": {"maximum": 2000},
}
PARAM_BOUNDS: dict[tuple[str, str], dict[str, Any]] = {
    ("classes.define", "memoryBytes"): {"maximum": 65536},
    ("pool.warm", "count"): {"maximum": 8},
    ("pool.configure", "depth"): {"maximum": 8},
}
#: A scripted hook's `costMs` (ScriptedHook, inside classes.define's `hooks`).
COST_BOUND = {"maximum": 2}


def placeholder_schema(kind: str) -> dict[str, Any]:
    return {"type": "string", "enum": [f"{PLACEHOLDER}{kind}:{i}" for i in range(PLACEHOLDERS_PER_KIND)]}


def is_placeholder_choice(schema: Any) -> bool:
    branches = schema.get("anyOf") if isinstance(schema, dict) else None
    return bool(branches) and len(branches) == 2 and str(branches[1].get("enum", [""])[0]).startswith(PLACEHOLDER)


def inline(node: Any, seen: tuple[str, ...] = ()) -> Any:
    """`node` with every document-local `$ref` replaced by what it points at (narrowed by the bounds above); an id
    component, or one with VALUE_HINTS, becomes `anyOf: [its schema, placeholders]`. hypothesis-jsonschema follows
    no `$ref` into another document, so what it gets is self-contained."""
    if isinstance(node, dict):
        if "$ref" in node:
            ref = node["$ref"]
            assert ref not in seen, f"recursive $ref {ref}: hypothesis-jsonschema cannot draw it"
            target = inline(resolve_local(ref), seen + (ref,))
            name = ref.rsplit("/", 1)[-1] if ref.startswith("#/components/schemas/") else None
            if name in COMPONENT_BOUNDS:
                target = {**target, **COMPONENT_BOUNDS[name]}
            if name == "ScriptedHook":
                target = {**target, "properties": {**target["properties"],
                                                   "costMs": {**target["properties"]["costMs"], **COST_BOUND}}}
            if name in ID_KINDS or name in VALUE_HINTS:
                target = {"anyOf": [target, placeholder_schema(name)]}
            rest = {k: inline(v, seen) for k, v in node.items() if k != "$ref"}
            return {"allOf": [target], **rest} if rest else target
        return {k: inline(v, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(x, seen) for x in node]
    return node


def declared_params(method: str) -> list[dict[str, Any]]:
    return [resolve_local(p["$ref"]) if "$ref" in p else p for p in METHODS[method]["params"]]


def params_schema(method: str) -> dict[str, Any]:
    """The by-name params object as one schema to draw from: the declared members, the required ones, nothing else."""
    props = {}
    for p in declared_params(method):
        schema = {**inline(p["schema"]), **PARAM_BOUNDS.get((method, p["name"]), {})}
        if (method, p["name"]) in PLUGIN_PARAMS:
            schema = {"anyOf": [schema, placeholder_schema("plugin")]}
        props[p["name"]] = schema
    required = [p["name"] for p in declared_params(method) if p.get("required")]
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


@functools.lru_cache(maxsize=None)
def document_validator(method: str, name: str) -> jsonschema.Draft7Validator:
    """The document's own schema of one param (not narrowed, no placeholders), its $refs resolved in the document."""
    schema = next(p["schema"] for p in declared_params(method) if p["name"] == name)
    return jsonschema.Draft7Validator(absolutize(schema), registry=REGISTRY)


# ---------------------------------------------------------------- what one example sends


@dataclass(frozen=True)
class Call:
    """One example: a method, its params (placeholders in them until sent), how they were drawn (`valid`,
    `positional`, or almost valid: `drop` a required member, add an `unknown` one, a `wrong` value for one) and, for
    the almost valid ones, the member that made them invalid."""

    method: str
    params: Any
    mode: str = "valid"
    expect_path: str | None = None


def member_strategy(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A param's values. A param whose own schema is `anyOf: [schema, placeholders]` takes a placeholder three times
    in four (hypothesis-jsonschema picks an anyOf branch about as often as not, so a call with two id params would
    name two real objects one time in four or five); nested ones (a `containers` list) keep the anyOf."""
    if is_placeholder_choice(schema):
        real, drawn = st.sampled_from(schema["anyOf"][1]["enum"]), from_schema(schema["anyOf"][0])

        # (Not one_of(real, real, real, drawn): Hypothesis folds the repeated branches, and real came out two times
        # in five.)
        @st.composite
        def pick(d: st.DrawFn) -> Any:
            return d(real) if d(st.integers(0, 3)) < 3 else d(drawn)

        return pick()
    return from_schema(schema)


#: Params that exclude each other, a rule each method states in prose and a list of params cannot: `page.create`
#: takes `class` or `pages`, `range.create` one of `count`, `lengths` and `sections`, `range.setViewport` a
#: `viewport` or `width` and `height`. Drawn independently, none or both would be given most of the time, and the
#: call would be -32602 before it reaches the session machinery; so three draws in four give one alternative.
ALTERNATIVES: dict[str, list[set[str]]] = {
    "page.create": [{"class"}, {"pages"}],
    "range.create": [{"count"}, {"lengths"}, {"sections"}],
    "range.setViewport": [{"viewport"}, {"width", "height"}],
}

#: How often each kind of params is drawn: mostly valid (by name, sometimes by position), some almost valid.
MODES = ["valid"] * 5 + ["positional", "drop", "unknown", "wrong"]

#: Candidates for a `wrong` value; for each param, those its document schema refuses.
WRONG_VALUES: list[Any] = [None, True, 0, -1, 1.5, -0.5, "x", "", [], [1], {}, {"a": 1}, 1e300, -1e300, 4294967296]


def wrong_values(method: str, name: str) -> list[Any]:
    v = document_validator(method, name)
    return [x for x in WRONG_VALUES if not v.is_valid(x)]


def positional(method: str, params: dict[str, Any]) -> list[Any]:
    """The same params by position: in the document's order, null for an absent one before the last one given."""
    names = [p["name"] for p in declared_params(method)]
    last = max((i for i, n in enumerate(names) if n in params), default=-1)
    return [params.get(n) for n in names[: last + 1]]


def call_strategy(method: str) -> st.SearchStrategy[Call]:
    schema = params_schema(method)
    members = {name: member_strategy(s) for name, s in schema["properties"].items()}
    required = schema["required"]
    valid = st.fixed_dictionaries({n: members[n] for n in required},
                                  optional={n: s for n, s in members.items() if n not in required})
    names = list(schema["properties"])
    wrongs = {n: wrong_values(method, n) for n in names}
    wrong_names = [n for n in names if wrongs[n]]
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"

    @st.composite
    def draw(d: st.DrawFn) -> Call:
        mode = d(st.sampled_from(MODES))
        params = d(valid)
        if method in ALTERNATIVES and d(st.sampled_from([True, True, True, False])):
            keep = d(st.sampled_from(ALTERNATIVES[method]))
            others = set().union(*ALTERNATIVES[method]) - keep
            params = {k: v for k, v in params.items() if k not in others}
            for name in sorted(keep - set(params)):
                params[name] = d(members[name])
        if mode == "positional" and not any(params.get(n, 0) is None for n in required):
            # (By position null stands for an absent param: a required one that may be null, container.configure's
            # `data`, cannot be null there, so such a draw stays by name.)
            return Call(method, positional(method, params), mode)
        if mode == "positional":
            return Call(method, params, "valid")
        if mode == "drop" and required:
            gone = d(st.sampled_from(required))
            return Call(method, {k: v for k, v in params.items() if k != gone}, mode, gone)
        if mode == "wrong" and wrong_names:
            name = d(st.sampled_from(wrong_names))
            return Call(method, {**params, name: d(st.sampled_from(wrongs[name]))}, mode, name)
        if mode in ("drop", "wrong", "unknown"):
            extra = d(st.text(alphabet=letters, min_size=1, max_size=10).filter(lambda s: s not in names))
            return Call(method, {**params, extra: d(st.sampled_from(WRONG_VALUES))}, "unknown", extra)
        return Call(method, params, "valid")

    return draw()


PLACEHOLDER_RE = re.compile(re.escape(PLACEHOLDER) + r"(\w+):(\d+)")


def substitute(value: Any, ids: dict[str, list[Any]]) -> Any:
    """`value` with every placeholder replaced by a value of its kind from `ids` (a string drawn for `data`, any
    JSON, may start with the placeholder's prefix too: only a whole placeholder of a known kind is one)."""
    match = PLACEHOLDER_RE.fullmatch(value) if isinstance(value, str) else None
    if match and match.group(1) in ids:
        choices = ids[match.group(1)]
        return choices[int(match.group(2)) % len(choices)]
    if isinstance(value, dict):
        return {k: substitute(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, ids) for v in value]
    return value


#: Ids of the right shapes, for checking what is drawn without a host.
SHAPED_IDS: dict[str, list[Any]] = {
    "StackId": ["s-1"], "ContainerId": ["c-1"], "PageSessionId": ["p-1"], "RangeSessionId": ["r-1"],
    "BatchContextId": ["b-1"], "ClassName": ["Container"], "plugin": ["crashy"], **VALUE_HINTS,
}


def test_substitute_fills_placeholders_only() -> None:
    # Placeholders name a value by index modulo the choices; a drawn string that merely looks like one stays.
    ids = {"StackId": ["s-1", "s-2"]}
    assert substitute({"stack": "@@StackId:65", "data": ["@@", "@@StackId", "@@Nope:1", {"k": "@@StackId:0"}]}, ids) \
        == {"stack": "s-2", "data": ["@@", "@@StackId", "@@Nope:1", {"k": "s-1"}]}


def test_params_schemas_are_self_contained() -> None:
    # What hypothesis-jsonschema gets has no $ref left, and is a valid schema; ids may be real ones.
    for method in METHODS:
        schema = params_schema(method)
        assert "$ref" not in json.dumps(schema), method
        jsonschema.Draft7Validator.check_schema(schema)
    stack = params_schema("stack.push")["properties"]["stack"]
    assert stack["anyOf"][0]["pattern"] == "^s-[1-9][0-9]*$" and stack["anyOf"][1]["enum"][0] == "@@StackId:0"


@pytest.mark.parametrize("method", sorted(METHODS))
def test_drawn_params_are_what_they_claim(method: str) -> None:
    """Without a host: valid draws (placeholders filled with ids of the right shape) satisfy the document, and
    almost valid ones do not, so that what the fuzz expects of the host follows from the document."""
    strategy = call_strategy(method)

    @settings(max_examples=25, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @seed(FUZZ_SEED)
    @given(call=strategy)
    def check(call: Call) -> None:
        params = substitute(call.params, SHAPED_IDS)
        if call.mode == "positional":
            names = [p["name"] for p in declared_params(method)]
            params = {n: v for n, v in zip(names, params) if v is not None}
        problems = check_params(method, params)
        if call.mode in ("valid", "positional"):
            assert not problems, f"{method}: a valid draw the document refuses: {params}: {problems}"
        else:
            assert problems, f"{method}: an almost valid draw ({call.mode} {call.expect_path}) the document takes: {params}"

    check()


# ---------------------------------------------------------------- the host, an observer, and real objects


SCRIPTED = "FuzzScripted"
VP = {"width": 375, "height": 667}


class FuzzHost:
    """A `greenroom serve --clock virtual` with the Crashy plugin in a worker and, beside the Unix socket, a TCP and a
    WebSocket listener on loopback (so that `host.info` lists every kind of address)."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="grz-", dir="/tmp")
        self.socket = os.path.join(self.dir, "h.sock")
        crashy = binary().resolve().parent / "libCrashyPlugin.so"
        try:
            self.host = testing.HostProcess.start(
                ["--plugin", str(crashy), "--listen", "tcp:127.0.0.1:0", "--listen", "ws:127.0.0.1:0"],
                binary=str(binary()), clock="virtual", socket=self.socket, directory=self.dir,
                stderr=os.path.join(self.dir, "stderr"), ready_timeout=TIMEOUT)
        except testing.HostStartError as error:
            shutil.rmtree(self.dir, ignore_errors=True)
            pytest.fail(f"the host did not start: {error}", pytrace=False)

    def alive(self) -> bool:
        return self.host.process.poll() is None

    def stderr_tail(self) -> str:
        return self.host.stderr_text()[-3000:]

    def connect(self) -> Conn:
        return Conn(self.socket)

    def stop(self) -> None:
        """Stops the host and insists on a clean exit: after every method was fuzzed, no handle is left open."""
        try:
            code = self.host.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        assert code == 0, f"the fuzzed host exited with status {code}"


class Observer:
    """A connection subscribed to every topic with `scope: "all"`: it sees every event the fuzz causes. A thread
    reads it all the time, as a real observer would (one that stopped reading while a call made megabytes of events
    would rightly be closed as a slow reader, docs/protocol.md). `drain` pings it and returns the events read before
    the pong, that is every event written before it, with `seq` checked to count up by one."""

    def __init__(self, host: FuzzHost) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(host.socket)
        self.messages: list[Any] = []
        self.closed: str | None = None
        self.ready = threading.Condition()
        self.reader = threading.Thread(target=self.read, name="fuzz-observer", daemon=True)
        self.reader.start()
        self.next_id = 0
        self.last_seq = 0
        self.count = 0
        reply = self.request("events.subscribe", {"topics": list(NOTIFICATIONS), "scope": "all"})
        assert "result" in reply, reply

    def read(self) -> None:
        buf = b""
        try:
            while True:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise EOFError("the host closed the observer's connection")
                *lines, buf = (buf + chunk).split(b"\n")
                if lines:
                    parsed = [json.loads(line) for line in lines if line]
                    with self.ready:
                        self.messages.extend(parsed)
                        self.ready.notify_all()
        except (OSError, EOFError, ValueError) as error:
            with self.ready:
                self.closed = f"{type(error).__name__}: {error}"
                self.ready.notify_all()

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Sends a request and returns its reply; the events before it stay in `messages`."""
        self.next_id += 1
        rid = f"observer-{self.next_id}"
        line = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}).encode() + b"\n"
        self.sock.sendall(line)
        deadline = time.monotonic() + TIMEOUT
        with self.ready:
            while True:
                for i, m in enumerate(self.messages):
                    if isinstance(m, dict) and m.get("id") == rid:
                        del self.messages[i]
                        return m
                assert self.closed is None, f"observer: {self.closed}"
                left = deadline - time.monotonic()
                assert left > 0, f"observer: no reply to {method} within {TIMEOUT}s"
                self.ready.wait(left)

    def drain(self) -> list[dict[str, Any]]:
        assert self.request("host.ping").get("result") == {"pong": True}
        with self.ready:
            events, self.messages = self.messages, []
        for n in events:
            assert isinstance(n, dict) and "id" not in n, f"observer: a message that is not an event: {n}"
            seq = n.get("params", {}).get("seq")
            assert seq == self.last_seq + 1, f"observer: seq {seq} after {self.last_seq} (a lost event?): {n}"
            self.last_seq = seq
        self.count += len(events)
        return events

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.reader.join(TIMEOUT)


class World:
    """Real objects on one connection, in several states, whose ids the fuzz's params take. Rebuilt on a new
    connection (the old one's objects are torn down as it closes) after a call that may have destroyed some, and
    after one that moved an object on, at most every REBUILD_EVERY examples (see run_one)."""

    def __init__(self, host: FuzzHost) -> None:
        self.host = host
        self.conn: Conn | None = None
        self.ids: dict[str, list[Any]] = {}
        self.examples = 0  # since the last build
        self.build()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def build(self) -> None:
        self.close()
        self.examples = 0
        c = self.conn = self.host.connect()
        call = c.call
        reply = c.request("classes.define", {"name": SCRIPTED, "hooks": {"viewDidLoad": {"costMs": 0, "output": "ok"}}})
        assert "result" in reply or reply["error"]["code"] == -32003, reply  # -32003: an earlier world defined it
        plugin = call("host.info")["plugins"][0]["name"]

        def box(cls: str = "Container") -> str:
            return call("container.create", {"class": cls})["container"]

        free, scripted, crashy, appearing = box(), box(SCRIPTED), box("Crashy"), box()
        call("container.beginAppearanceTransition", {"container": appearing, "appearing": True})
        empty = call("stack.create", VP)["stack"]
        deep = call("stack.create", VP)["stack"]
        a, b = box(), box(SCRIPTED)
        call("stack.push", {"stack": deep, "container": a})
        call("stack.push", {"stack": deep, "container": b})
        popping = call("stack.create", VP)["stack"]
        c1, c2 = box(), box()
        call("stack.push", {"stack": popping, "container": c1})
        call("stack.push", {"stack": popping, "container": c2})
        call("stack.beginInteractivePop", {"stack": popping})
        call("stack.updateInteractivePop", {"stack": popping, "progress": 0.4})
        hidden = call("stack.create", {**VP, "hidden": True})["stack"]
        h1 = box()
        call("stack.push", {"stack": hidden, "container": h1})

        page = {"class": "Container", "count": 5, **VP, "initialIndex": 1}
        resting = call("page.create", page)["session"]
        dragging = call("page.create", page)["session"]
        call("page.willBeginDragging", {"session": dragging, "offset": 375})
        call("page.didScroll", {"session": dragging, "offset": 500})
        decelerating = call("page.create", page)["session"]
        call("page.willBeginDragging", {"session": decelerating, "offset": 375})
        call("page.willEndDragging", {"session": decelerating, "offset": 600, "velocity": 1.5})
        call("page.didEndDragging", {"session": decelerating, "offset": 650, "willDecelerate": True})
        in_stack = call("page.create", {**page, "stack": empty})["session"]
        children = [ch["container"] for ch in call("page.info", {"session": resting})["children"]]

        items = {"count": 100, "itemLength": 44, "viewport": VP}
        r_rest = call("range.create", items)["session"]
        r_drag = call("range.create", items)["session"]
        call("range.willBeginDragging", {"session": r_drag, "offset": 0})
        call("range.didScroll", {"session": r_drag, "offset": 300})
        r_fling = call("range.create", items)["session"]
        call("range.willBeginDragging", {"session": r_fling, "offset": 0})
        call("range.willEndDragging", {"session": r_fling, "velocity": 1.5, "targetOffset": 1200, "offset": 120})
        # Content shorter than the viewport: a batch is in flight from the start (rpc-schema/fixtures/README.md).
        batching = call("range.create", {"count": 3, "itemLength": 44, "viewport": VP})
        assert batching["batchInFlight"], batching
        r_sections = call("range.create", {"sections": [{"count": 3}, {"lengths": [20, 30]}], "viewport": VP})["session"]

        self.ids = {
            "StackId": [deep, popping, empty, hidden],
            "ContainerId": [free, b, appearing, c2, scripted, crashy, a, c1, h1, *children],
            "PageSessionId": [dragging, decelerating, resting, in_stack],
            "RangeSessionId": [batching["session"], r_drag, r_fling, r_rest, r_sections],
            "BatchContextId": [batching["batchInFlight"]],
            "ClassName": ["Container", SCRIPTED, "Crashy", "PageViewController"],
            "plugin": [plugin],
            **VALUE_HINTS,
        }
        c.notifications.clear()


#: Methods whose success may leave the world's ids dangling or renumbered: the world is rebuilt after one.
DESTRUCTIVE = {"stack.destroy", "container.release", "page.destroy", "range.destroy", "classes.undefine",
               "host.reset", "plugins.restart", "range.batchFetchDone"}
#: Methods that act on a stack, container, page or range session: a success may move it on (a decelerating page
#: comes to rest, a pop ends), and the phases the world set up would be gone for the rest of the method's examples,
#: leaving -32003 to every later call. So the world is rebuilt after a success or a -32003 of one, but at most every
#: REBUILD_EVERY examples (a build is some fifty calls).
STATEFUL = {m for m in METHODS if any(
    json.dumps(p.get("schema", {})).count(f"#/components/schemas/{kind}\"")
    for p in METHODS[m]["params"] for kind in ("StackId", "ContainerId", "PageSessionId", "RangeSessionId"))} - {
    "container.info", "stack.info", "page.info", "range.state"}  # they only read
REBUILD_EVERY = 10


@pytest.fixture(scope="module")
def fuzz_host() -> Iterator[FuzzHost]:
    host = FuzzHost()
    try:
        yield host
    finally:
        host.stop()


@pytest.fixture(scope="module")
def observer(fuzz_host: FuzzHost) -> Iterator[Observer]:
    obs = Observer(fuzz_host)
    yield obs
    obs.close()


# ---------------------------------------------------------------- known findings: host bugs the fuzz tolerates


@dataclass(frozen=True)
class Finding:
    """A reply or event off the contract, reported and not yet fixed in the host. `matches(call, reply)` says whether
    what the fuzz saw is this finding (`call` with the params as sent; for an event `call` is None and `reply` is
    the event); `example` is a small call that shows it, replayed by test_known_finding."""

    name: str
    reason: str
    matches: Callable[[Call | None, Any], bool]
    example: Call


def _error(reply: Any) -> dict[str, Any]:
    return reply["error"] if isinstance(reply, dict) and isinstance(reply.get("error"), dict) else {}


KNOWN_FINDINGS: list[Finding] = [
    # Found by this fuzz and fixed since: an optional param given by name as null (-32602 now; null stands for
    # absent only by position), an empty class name (-32602), a member missing or wrong beside an unknown object
    # (the typed params are decoded, every member checked, before any lookup), and a member ignored beside its
    # alternative (range.setViewport's width beside viewport, range.create's itemLength beside lengths).
]

#: Replies off the schema's letter that the host keeps on purpose, each documented where users read it; the fuzz
#: accepts them (they are not bugs to fix, so they are not xfails).
DELIBERATE: list[Finding] = [
    Finding(
        "an-id-is-looked-up",
        "an id param of the wrong shape is looked up like any unknown id: -32002 unknownObject naming the param "
        "(docs/protocol.md, \"Errors\"), as an id of another kind or of another connection's object is; the pattern "
        "in the schema says what ids look like",
        lambda call, reply: call.mode == "wrong" and isinstance(call.params[call.expect_path], str) and
        _error(reply).get("code") == -32002 and _error(reply).get("data", {}).get("path") == call.expect_path,
        Call("container.info", {"container": "x"}, "wrong", "container"),
    ),
    Finding(
        "nul-in-object-key",
        "an object key holding U+0000 (valid JSON) makes the whole line -32700 parseError with id null: the JSON "
        "parser's limit, documented in docs/protocol.md beside the 64-bit integer one",
        lambda call, reply: reply.get("id") is None and _error(reply).get("code") == -32700 and
        "NUL byte in object key" in _error(reply).get("message", ""),
        Call("container.create", {"class": "Container", "data": {"\u0000": 1}}),
    ),
]


def known(call: Call | None, reply: Any) -> Finding | None:
    for f in KNOWN_FINDINGS + DELIBERATE:
        try:
            if f.matches(call, reply):
                return f
        except (KeyError, TypeError, IndexError, AttributeError):
            continue
    return None


# ---------------------------------------------------------------- checks


@functools.lru_cache(maxsize=None)
def result_validator(method: str) -> jsonschema.Draft7Validator:
    return validator_at(pointer("methods", DOC["methods"].index(METHODS[method]), "result", "schema"))


@functools.lru_cache(maxsize=None)
def event_validator(topic: str) -> jsonschema.Draft7Validator:
    return validator_at(pointer("x-notifications", NOTIFICATIONS[topic], "params"))


ERROR_VALIDATOR = validator_at(pointer("components", "schemas", "ErrorObject"))


def where(e: jsonschema.ValidationError) -> str:
    return "/".join(map(str, e.absolute_path)) or "(root)"


def result_problems(method: str, result: Any) -> list[str]:
    return [f"result at {where(e)}: {e.message}" for e in result_validator(method).iter_errors(result)][:5]


def error_problems(call: Call, error: Any) -> list[str]:
    problems = [f"error at {where(e)}: {e.message}" for e in ERROR_VALIDATOR.iter_errors(error)][:5]
    if not isinstance(error, dict):
        return problems
    code = error.get("code")
    if code == -32603:
        problems.append("-32603 internal error")
    elif code not in method_error_codes(call.method):
        problems.append(f"code {code} is not among the method's errors {sorted(method_error_codes(call.method))}")
    data = error.get("data") if isinstance(error.get("data"), dict) else {}
    if code == -32602 and not isinstance(data.get("path"), str):
        problems.append("-32602 without data.path")
    if call.expect_path is not None:
        if code != -32602:
            problems.append(f"expected -32602 ({call.mode} {call.expect_path!r}), got {code}")
        elif call.mode == "unknown" and data.get("path") != call.expect_path:
            # An unknown member is refused before anything else is read, so it is the one named. A member removed or
            # made wrong may not be: the rest of the draw can break a rule no schema says (a target offset outside
            # the content), and the host may name that one first.
            problems.append(f"expected data.path {call.expect_path!r}, got {data.get('path')!r}")
    return problems


def event_problems(n: Any) -> list[str]:
    if not (isinstance(n, dict) and n.get("jsonrpc") == "2.0" and "id" not in n and n.get("method") in NOTIFICATIONS):
        return [f"not a notification on a described topic: {json.dumps(n)[:300]}"]
    return [f"{n['method']} event at {where(e)}: {e.message}" for e in event_validator(n["method"]).iter_errors(n["params"])][:5]


INT64 = (-(1 << 63), (1 << 63) - 1)


def has_int64_overflow(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not INT64[0] <= value <= INT64[1]
    if isinstance(value, dict):
        return any(has_int64_overflow(v) for v in value.values())
    if isinstance(value, list):
        return any(has_int64_overflow(v) for v in value)
    return False


# ---------------------------------------------------------------- one example


def send(conn: Conn, method: str, params: Any) -> tuple[int, dict[str, Any]]:
    """One request, and the next reply, whatever its id (Conn.request insists on the request's, and a line the host
    cannot parse is answered with id null)."""
    conn.next_id += 1
    rid = conn.next_id
    conn.send_line(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode())
    if isinstance(params, dict) and params.get("reply") == "afterAppear":
        # A reply held until the container appears: under the virtual clock an animated push ends on a
        # clock.advance, sent right behind it, as long as the longest duration the schema allows (a
        # shorter one left a long push running, and its reply answered the next call). A push that waits
        # behind another transition of its stack ends on a later advance: the clock advances until the
        # reply comes, each advance's reply read with what came before it (the held reply is written
        # before the reply of the advance that released it).
        longest = DOC["components"]["schemas"]["DurationMs"]["maximum"]
        replies: list[Any] = []
        for _ in range(8):
            conn.next_id += 1
            advance = conn.next_id
            conn.send_line(json.dumps({"jsonrpc": "2.0", "id": advance, "method": "clock.advance",
                                       "params": {"ms": longest}}).encode())
            while True:
                r = conn.read_reply()
                replies.append(r)
                if isinstance(r, dict) and r.get("id") == advance:
                    break
            mine = [r for r in replies if isinstance(r, dict) and r.get("id") in (rid, None)]
            if mine:
                return rid, mine[0]
        raise AssertionError(f"{method}: no reply to the request after 8 advances of {longest} ms among {replies}")
    reply = conn.read_reply()
    assert isinstance(reply, dict), f"{method}: a reply that is not an object: {reply}"
    return rid, reply


@dataclass
class Outcome:
    call: Call
    reply: dict[str, Any]
    problems: list[str] = field(default_factory=list)  # on the contract when empty (known findings tolerated)
    finding: Finding | None = None  # the known finding tolerated, if any

    def __str__(self) -> str:
        return (f"{self.call.method} {json.dumps(self.call.params)[:600]}\n  -> {json.dumps(self.reply)[:900]}\n  "
                + "\n  ".join(self.problems))


def run_one(host: FuzzHost, world: World, observer: Observer, drawn: Call, tolerate: bool = True) -> Outcome:
    """Sends one example on the world's connection and checks the reply and the events; fails at once if the host
    dies or stops answering."""
    call = Call(drawn.method, substitute(drawn.params, world.ids), drawn.mode, drawn.expect_path)
    conn = world.conn
    assert conn is not None
    started = time.monotonic()
    rid, reply = send(conn, call.method, call.params)
    out = Outcome(call, reply)
    if TRACE:
        with open(TRACE, "a") as f:
            f.write(json.dumps({"s": round(time.monotonic() - started, 3), "method": call.method, "mode": call.mode,
                                "outcome": "result" if "result" in reply else _error(reply).get("code"),
                                "path": _error(reply).get("data", {}).get("path"),
                                "params": json.dumps(call.params)[:2000]}) + "\n")
    problems: list[str] = []
    if reply.get("id") is None and has_int64_overflow(call.params):
        # Integers are read as signed 64 bits (docs/protocol.md): a longer one makes the line -32700 numberOutOfRange,
        # id null. A schema cannot say it (an IndexPath item, any JSON value in `data`).
        if _error(reply).get("code") != -32700 or _error(reply).get("data", {}).get("kind") != "numberOutOfRange":
            problems.append("an integer outside int64: expected -32700 numberOutOfRange")
    elif reply.get("id") != rid:
        problems.append("a reply that is not the request's")
    elif "result" in reply:
        if call.expect_path is not None:
            problems.append(f"expected -32602 ({call.mode} {call.expect_path!r}), got a result")
        else:
            problems += result_problems(call.method, reply["result"])
    else:
        problems += error_problems(call, reply["error"])
    if problems:
        out.finding = known(call, reply) if tolerate else None
        if out.finding is None:
            out.problems = [f"[{call.mode}] {p}" for p in problems]

    # The host is alive and answers, and every event it sent, on either connection, is on the contract.
    assert host.alive(), f"the host died after {call.method} {json.dumps(call.params)[:600]}; {host.stderr_tail()}"
    assert conn.call("host.ping") == {"pong": True}, f"no pong after {call.method}"
    events = observer.drain() + conn.notifications
    conn.notifications = []
    for n in events:
        bad = event_problems(n)
        if bad and not (tolerate and known(None, n)):
            out.problems.append(f"an event off its schema after this call: {json.dumps(n)[:600]}\n    " + "\n    ".join(bad))
    world.examples += 1
    moved_on = "result" in reply or _error(reply).get("code") == -32003  # done, or found in another phase
    if ("result" in reply and call.method in DESTRUCTIVE) or \
            (moved_on and call.method in STATEFUL and world.examples >= REBUILD_EVERY):
        world.build()
        observer.drain()
    return out


# ---------------------------------------------------------------- the fuzz


FUZZED = sorted(m for m in METHODS if m != "host.shutdown")


def signature(outcome: Outcome) -> str:
    """What a finding is, without the values that differ between examples (ids, numbers, quoted strings)."""
    kinds = sorted({re.sub(r"'[^']*'|\"[^\"]*\"|-?\d+(\.\d+)?(e[-+]?\d+)?", "_", p.split("\n")[0])
                    for p in outcome.problems})
    return f"{outcome.call.method}: " + "; ".join(kinds)


@pytest.mark.parametrize("method", FUZZED)
def test_schema_fuzz(fuzz_host: FuzzHost, observer: Observer, method: str) -> None:
    world = World(fuzz_host)
    observer.drain()
    survey: dict[str, Outcome] = {}
    strategy = call_strategy(method)

    @FUZZ_SETTINGS
    @seed(FUZZ_SEED)
    @given(call=strategy)
    def fuzz(call: Call) -> None:
        out = run_one(fuzz_host, world, observer, call)
        if out.problems and SURVEY:
            key = signature(out)
            if key not in survey or len(str(out)) < len(str(survey[key])):
                survey[key] = out
            return
        assert not out.problems, f"off the contract:\n{out}"

    try:
        fuzz()
    finally:
        world.close()
    if survey:
        if SURVEY not in ("1", "yes"):
            with open(SURVEY, "a") as f:
                for key, out in sorted(survey.items()):
                    f.write(json.dumps({"finding": key, "example": str(out)}) + "\n")
        pytest.fail(f"{len(survey)} distinct finding(s):\n" + "\n".join(str(survey[k]) for k in sorted(survey)),
                    pytrace=False)


# ---------------------------------------------------------------- known findings, replayed


class FindingStillThere(AssertionError):
    """The known finding's example is still off the contract, in the way the finding says."""


@pytest.mark.parametrize("finding", [
    pytest.param(f, id=f.name, marks=pytest.mark.xfail(strict=True, raises=FindingStillThere, reason=f.reason))
    for f in KNOWN_FINDINGS])
def test_known_finding(fuzz_host: FuzzHost, observer: Observer, finding: Finding) -> None:
    """Each known finding's example, checked as the fuzz checks with nothing tolerated. Today it raises
    FindingStillThere (the strict xfail); once the host is fixed it passes, the XPASS fails the run, and the entry
    is to be removed. Anything else off the contract fails the test outright."""
    world = World(fuzz_host)
    try:
        observer.drain()
        out = run_one(fuzz_host, world, observer, finding.example, tolerate=False)
    finally:
        world.close()
    if out.problems:
        if finding.matches(out.call, out.reply):
            raise FindingStillThere(str(out))
        pytest.fail(f"the example of {finding.name} shows something else:\n{out}", pytrace=False)


@pytest.mark.parametrize("finding", [pytest.param(f, id=f.name) for f in DELIBERATE])
def test_deliberate_behaviour_holds(fuzz_host: FuzzHost, observer: Observer, finding: Finding) -> None:
    """Each documented deviation from the schema's letter, replayed: the host still does what its docs say."""
    world = World(fuzz_host)
    try:
        observer.drain()
        out = run_one(fuzz_host, world, observer, finding.example, tolerate=False)
    finally:
        world.close()
    assert finding.matches(out.call, out.reply), f"{finding.name} no longer holds:\n{out}"
