"""Conformance of the running host to rpc-schema/openrpc.json.

Starts its own `greenroom serve --clock virtual` (with the shipped harness, greenroom.testing) and talks to it
over a raw Unix socket (no client session), so it checks the wire, not a client's view of it. Needs pytest,
jsonschema and the greenroom package (for its harness).

    python -m pytest -q tests/schema
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from typing import Any, Iterator

import jsonschema
import pytest
from greenroom.lifecycle import page_calls
from openrpcdoc import (Conn, DOC, DOC_PATH, ERROR_CODES, Host, METHODS, RANGE_TYPES, SCHEMA_DIR, VP, check, check_error,
                        binary, check_params, method_error_codes, pointer, resolve_local, validator_at)

FIXTURES = SCHEMA_DIR / "fixtures"

NOTIFICATIONS: dict[str, dict[str, Any]] = {n["name"]: n for n in DOC.get("x-notifications", [])}


def load_fixtures() -> dict[str, dict[str, Any]]:
    return {p.name[: -len(".json")]: json.loads(p.read_text()) for p in sorted(FIXTURES.glob("*.json"))}


FIXTURE_DATA = load_fixtures()


# ---------------------------------------------------------------- fixture setup references (see fixtures/README.md)

REF = re.compile(r"^\$setup\[(\d+)\]((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)$")
REF_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def parse_ref(value: Any) -> tuple[int, list[str | int]] | None:
    """`"$setup[1].stack"` -> (1, ["stack"]); None for anything that is not a reference ("$$..." included)."""
    if not isinstance(value, str) or not value.startswith("$setup["):
        return None
    m = REF.match(value)
    if not m:
        raise ValueError(f"malformed setup reference {value!r} (see rpc-schema/fixtures/README.md)")
    steps: list[str | int] = [name if name else int(index) for name, index in REF_STEP.findall(m.group(2))]
    return int(m.group(1)), steps


def find_refs(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, int, list[str | int]]]:
    """Every reference in `value`: (where it sits, setup index, members)."""
    ref = parse_ref(value)
    if ref is not None:
        yield path, ref[0], ref[1]
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from find_refs(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from find_refs(v, path + (i,))


def substitute(value: Any, results: list[Any]) -> Any:
    """`value` with every setup reference replaced by the value it names in `results` ("$$x" -> "$x")."""
    ref = parse_ref(value)
    if ref is not None:
        index, steps = ref
        if index >= len(results):
            raise LookupError(f"{value}: only {len(results)} setup result(s) before it")
        node = results[index]
        for step in steps:
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                raise LookupError(f"{value}: no {step!r} in {json.dumps(node)[:200]}") from None
        return node
    if isinstance(value, str) and value.startswith("$$"):
        return value[1:]
    if isinstance(value, dict):
        return {k: substitute(v, results) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, results) for v in value]
    return value


def test_setup_reference_substitution() -> None:
    results = [{"stack": "s-1", "containers": ["c-1", "c-2"], "size": {"width": 3}}, {"container": "c-9"}]
    params = {"stack": "$setup[0].stack", "list": ["$setup[1].container", "$setup[0].containers[1]"],
              "whole": "$setup[1]", "deep": {"w": "$setup[0].size.width"}, "literal": "$$setup[0]", "plain": "x"}
    assert substitute(params, results) == {
        "stack": "s-1", "list": ["c-9", "c-2"], "whole": {"container": "c-9"}, "deep": {"w": 3},
        "literal": "$setup[0]", "plain": "x"}
    assert [(p, i, m) for p, i, m in find_refs(params)] == [
        (("stack",), 0, ["stack"]), (("list", 0), 1, ["container"]), (("list", 1), 0, ["containers", 1]),
        (("whole",), 1, []), (("deep", "w"), 0, ["size", "width"])]
    for bad in ["$setup[2].x", "$setup[0].nope", "$setup[0].stack.deeper"]:
        with pytest.raises(LookupError):
            substitute(bad, results)
    with pytest.raises(ValueError):
        parse_ref("$setup[x]")


# ---------------------------------------------------------------- schema helpers


def method_result_ref(name: str) -> str:
    i = DOC["methods"].index(METHODS[name])
    return pointer("methods", i, "result", "schema")


def follow(schema: Any) -> Any:
    """Follows `$ref` (and a lone `allOf: [X]` wrapper) to the schema that says what a value is."""
    for _ in range(32):
        if isinstance(schema, dict) and "$ref" in schema:
            schema = resolve_local(schema["$ref"])
        elif isinstance(schema, dict) and isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1 \
                and "properties" not in schema:
            schema = schema["allOf"][0]
        else:
            return schema
    raise AssertionError("$ref loop")


def result_member_schema(method: str, steps: list[str | int]) -> Any:
    """The schema of `result.<steps>` as `method`'s result schema declares it; None when it does not."""
    node = METHODS[method]["result"]["schema"]
    for step in steps:
        node = follow(node)
        if not isinstance(node, dict):
            return None
        if isinstance(step, int):
            node = node.get("items")
        else:
            node = node.get("properties", {}).get(step)
        if node is None:
            return None
    return node


def fills(member: Any, target: Any) -> bool:
    """Whether a result member declared as `member` may fill a param declared as `target`: the same schema, or a
    nullable one (`oneOf: [{type: null}, X]`, e.g. `RangeInfo.batchInFlight`) whose non-null branch is `target`'s
    (the live test fails when the value is null: the substituted params no longer match), or a param that takes one
    of several ids (`oneOf: [StackId, TabsId, ContainerId]`, e.g. `presentation.present`'s `presenter`) of which
    the member's is one."""
    member, target = follow(member), follow(target)
    if member == target:
        return True
    choices = target.get("oneOf") if isinstance(target, dict) else None
    if isinstance(choices, list) and any(follow(b) == member for b in choices):
        return True
    branches = member.get("oneOf") if isinstance(member, dict) else None
    if not isinstance(branches, list):
        return False
    rest = [b for b in branches if follow(b) != {"type": "null"}]
    return len(rest) == 1 and len(branches) == 2 and follow(rest[0]) == target


def method_param_schemas(name: str) -> dict[str, Any]:
    out = {}
    for p in METHODS[name]["params"]:
        if "$ref" in p:
            p = resolve_local(p["$ref"])
        out[p["name"]] = p["schema"]
    return out


def walk_refs(node: Any, path: str = "#") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                yield path, v
            else:
                yield from walk_refs(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk_refs(v, f"{path}/{i}")


# ---------------------------------------------------------------- the host (schema_host and conn: tests/conftest.py)


@pytest.fixture(scope="module")
def host_info(schema_host: Host) -> dict[str, Any]:
    c = schema_host.connect()
    try:
        return c.call("host.info")
    finally:
        c.close()


# ---------------------------------------------------------------- the document itself


def test_document_is_openrpc() -> None:
    assert DOC.get("openrpc", "").startswith("1.3"), "openrpc field: OpenRPC 1.3.x"
    assert isinstance(DOC.get("info"), dict) and DOC["info"].get("title") and DOC["info"].get("version")
    methods = DOC.get("methods")
    assert isinstance(methods, list) and methods
    names = [m.get("name") for m in methods]
    assert all(isinstance(n, str) and n for n in names), "every method has a name"
    assert len(names) == len(set(names)), f"duplicate method names: {sorted(n for n in names if names.count(n) > 1)}"
    for m in methods:
        where = m["name"]
        assert m.get("summary") and m.get("description"), f"{where}: summary and description"
        assert m.get("paramStructure", "either") in ("by-name", "by-position", "either"), where
        assert isinstance(m.get("params"), list), f"{where}: params is a list"
        pnames = []
        for p in m["params"]:
            p = resolve_local(p["$ref"]) if "$ref" in p else p
            assert p.get("name") and isinstance(p.get("schema"), (dict, bool)), f"{where}: param {p}"
            pnames.append(p["name"])
        assert len(pnames) == len(set(pnames)), f"{where}: duplicate params"
        result = m.get("result")
        assert isinstance(result, dict) and result.get("name") and isinstance(result.get("schema"), dict), \
            f"{where}: result content descriptor"
        assert isinstance(m.get("errors"), list) and m["errors"], f"{where}: errors"
        for e in m["errors"]:
            e = resolve_local(e["$ref"]) if "$ref" in e else e
            assert e.get("code") in ERROR_CODES, f"{where}: error {e}"
    # Every schema in the document is a valid draft-07 schema.
    for name, schema in DOC["components"]["schemas"].items():
        jsonschema.Draft7Validator.check_schema(schema)
    for m in methods:
        jsonschema.Draft7Validator.check_schema(m["result"]["schema"])


def test_every_ref_resolves() -> None:
    refs = list(walk_refs(DOC))
    assert refs, "the document uses $refs"
    dangling = []
    for where, ref in refs:
        try:
            resolve_local(ref)
        except (KeyError, IndexError, ValueError, TypeError, AssertionError):
            dangling.append(f"{where}: {ref}")
    assert not dangling, "dangling $refs:\n" + "\n".join(dangling)


def test_error_codes_are_all_described() -> None:
    described = {e["code"]: e for e in DOC["components"]["errors"].values()}
    assert set(described) == set(ERROR_CODES), f"components.errors codes: {sorted(described)}"
    for code, e in described.items():
        assert e.get("message"), code
        assert e.get("data", {}).get("kind") == ERROR_CODES[code], f"{code}: data.kind example"
        # The examples themselves are valid error objects.
        check(pointer("components", "schemas", "ErrorObject"), e, f"components.errors example {code}")


def test_notifications_cover_every_topic() -> None:
    topics = DOC["components"]["schemas"]["Topic"]["enum"]
    entries = DOC.get("x-notifications")
    assert isinstance(entries, list)
    names = [n["name"] for n in entries]
    assert sorted(names) == sorted(topics) and len(names) == len(set(names)), names
    for n in entries:
        assert n.get("summary") and isinstance(n.get("params"), dict), n["name"]
        # Every event schema demands seq (integer >= 1) and t (number).
        validator = validator_at(pointer("x-notifications", entries.index(n), "params"))
        assert not validator.is_valid({"t": 0.0}), f"{n['name']}: seq must be required"
        assert not validator.is_valid({"seq": 1}), f"{n['name']}: t must be required"


@pytest.mark.parametrize("method", sorted(FIXTURE_DATA))
def test_fixture_params_match_the_document(method: str) -> None:
    assert method in METHODS, f"fixture {method}.json names a method the document does not describe"
    fixture = FIXTURE_DATA[method]
    assert isinstance(fixture.get("params"), dict), f"{method}.json: params object"
    setup = fixture.get("setup", [])
    assert isinstance(setup, list), f"{method}.json: setup is a list of calls"
    calls = []
    for i, entry in enumerate(setup):
        assert isinstance(entry, dict) and set(entry) <= {"method", "params"}, f"{method}.json setup[{i}]: {entry}"
        assert entry.get("method") in METHODS, f"{method}.json setup[{i}] names an undescribed method"
        assert isinstance(entry.get("params", {}), dict), f"{method}.json setup[{i}]: params object"
        calls.append((f"setup[{i}]", entry["method"], entry.get("params", {}), i))
    calls.append(("params", method, fixture["params"], len(setup)))
    for where, name, params, limit in calls:
        whole_params = set()
        nested = False
        for path, index, steps in find_refs(params):
            ref_text = f"$setup[{index}]{''.join(f'.{s}' if isinstance(s, str) else f'[{s}]' for s in steps)}"
            assert index < limit, f"{method}.json {where}: {ref_text} refers to a setup entry that is not before it"
            member = result_member_schema(setup[index]["method"], steps)
            assert member is not None, \
                f"{method}.json {where}: {setup[index]['method']}'s result schema declares no {ref_text}"
            if len(path) == 1:
                whole_params.add(path[0])
                target = method_param_schemas(name).get(path[0])
                assert target is not None, f"{method}.json {where}: {name} has no param {path[0]!r}"
                assert fills(member, target), \
                    f"{method}.json {where}: {ref_text} ({member}) does not have the schema of param {path[0]} ({target})"
            else:
                nested = True
        if nested:
            continue  # the live test validates the substituted params
        stripped = {k: v for k, v in params.items() if k not in whole_params}
        problems = check_params(name, stripped, frozenset(whole_params))
        assert not problems, f"{method}.json {where} params do not match the document: {problems}"


def test_every_method_has_a_fixture() -> None:
    assert sorted(set(METHODS) - set(FIXTURE_DATA)) == [], "methods without rpc-schema/fixtures/METHOD.json"


def test_every_method_is_called() -> None:
    # Only host.shutdown skips the generic call (it is called on a host of its own): every other method is
    # called with its fixture (after its setup) and its reply validated.
    assert sorted(m for m, f in FIXTURE_DATA.items() if f.get("skipCall")) == ["host.reset", "host.shutdown"]


# ---------------------------------------------------------------- the document against the host


def test_discover_returns_the_file(conn: Conn) -> None:
    served = conn.call("rpc.discover")
    if served != DOC:
        pytest.fail("rpc.discover does not serve rpc-schema/openrpc.json (the document is made from the message types "
                    "in Sources/GreenroomHost/Protocol: run `make schema` after changing them); first difference at "
                    f"{first_difference(served, DOC)}", pytrace=False)


def test_the_checked_in_document_is_the_generated_one() -> None:
    """rpc-schema/openrpc.json is `greenroom schema`'s output, byte for byte: the message types are the one
    source, and a change to them that was not regenerated fails here (and so in CI)."""
    out = subprocess.run([str(binary()), "schema"], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()
    if out.stdout != DOC_PATH.read_bytes():
        generated = json.loads(out.stdout)
        where = first_difference(generated, DOC) if generated != DOC else "formatting only"
        pytest.fail("rpc-schema/openrpc.json is not `greenroom schema`'s output: run `make schema` (first difference: "
                    f"{where})", pytrace=False)
    names = subprocess.run([str(binary()), "schema", "--methods"], capture_output=True, text=True, timeout=60).stdout.split()
    assert names == [m["name"] for m in DOC["methods"]]


def first_difference(a: Any, b: Any, path: str = "#") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}/{k} ({'missing from the served document' if k not in a else 'not in the file'})"
            if a[k] != b[k]:
                return first_difference(a[k], b[k], f"{path}/{k}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}/{i}")
        if len(a) != len(b):
            return f"{path} (served {len(a)} entries, the file {len(b)})"
    return f"{path}: served {json.dumps(a)[:200]}, the file has {json.dumps(b)[:200]}"


def test_registered_methods_are_described(host_info: dict[str, Any]) -> None:
    registered = set(host_info["methods"])
    assert sorted(registered - set(METHODS)) == [], "registered but not described in openrpc.json"
    assert sorted(set(METHODS) - registered) == [], "described in openrpc.json but not registered by the host"
    assert sorted(host_info["topics"]) == sorted(NOTIFICATIONS), "host.info topics vs x-notifications"
    assert host_info["version"] == DOC["info"]["version"], "info.version follows the host's version"


@pytest.mark.parametrize("method", sorted(m for m, f in FIXTURE_DATA.items() if not f.get("skipCall")))
def test_fixture_call_result_matches(conn: Conn, method: str) -> None:
    fixture = FIXTURE_DATA[method]
    results: list[Any] = []
    for i, entry in enumerate(fixture.get("setup", [])):
        params = substitute(entry.get("params", {}), results)
        problems = check_params(entry["method"], params)
        assert not problems, f"{method}.json setup[{i}] params (substituted: {params}) do not match: {problems}"
        result = conn.call(entry["method"], params)
        check(method_result_ref(entry["method"]), result, f"{method}.json setup[{i}] {entry['method']} result")
        results.append(result)
    params = substitute(fixture["params"], results)
    problems = check_params(method, params)
    assert not problems, f"{method}.json params (substituted: {params}) do not match the document: {problems}"
    result = conn.call(method, params)
    check(method_result_ref(method), result, f"{method} result")


def test_positional_params_follow_the_documented_order(conn: Conn) -> None:
    # Params by position map onto the params in the order the document lists them.
    result = conn.call("events.subscribe", [["host"], "own"])
    check(method_result_ref("events.subscribe"), result, "events.subscribe result")
    assert [p["name"] for p in METHODS["events.subscribe"]["params"]] == ["topics", "scope"]
    assert result == {"topics": ["host"], "scope": "own"}


def test_positional_params_of_container_methods(conn: Conn) -> None:
    # The documented order is the host's: width, height, hidden; class, stack, animated, data; class, depth,
    # width, height, policy.
    assert [p["name"] for p in METHODS["stack.create"]["params"]] == ["width", "height", "hidden"]
    stack = conn.call("stack.create", [320, 480, True])
    check(method_result_ref("stack.create"), stack, "stack.create result")
    assert (stack["width"], stack["height"], stack["hidden"]) == (320, 480, True), stack
    assert [p["name"] for p in METHODS["showRendered"]["params"]] == ["class", "stack", "animated", "data", "duration",
                                                                   "present", "reply"]
    shown = conn.call("showRendered", ["Container", stack["stack"], False, {"n": 1}])
    check(method_result_ref("showRendered"), shown, "showRendered result")
    assert conn.call("stack.info", [stack["stack"]])["top"] == shown["container"]
    assert [p["name"] for p in METHODS["pool.configure"]["params"]] == ["class", "depth", "width", "height", "policy"]
    pool = conn.call("pool.configure", ["Container", 0, 320, 480, "eager"])
    check(method_result_ref("pool.configure"), pool, "pool.configure result")
    assert (pool["depth"], pool["width"], pool["height"], pool["policy"]) == (0, 320, 480, "eager"), pool


BAD_PARAMS = [
    ("clock.advance", {}, "ms"),
    ("clock.advance", {"ms": -1}, "ms"),
    ("clock.advance", {"ms": "soon"}, "ms"),
    ("events.subscribe", {"topics": ["nope"]}, "topics[0]"),
    ("events.subscribe", {"topics": "host"}, "topics"),
    ("events.subscribe", {"topics": ["host"], "scope": "everyone"}, "scope"),
    ("events.unsubscribe", {}, "topics"),
    ("host.memoryWarning", {"level": "severe"}, "level"),
    ("host.ping", {"extra": 1}, "extra"),
    ("host.auth", {"token": 42}, "token"),
    ("classes.define", {"name": "BadHooks", "hooks": {"viewDidExplode": {}}}, "hooks.viewDidExplode"),
    ("classes.define", {"name": "BadCost", "hooks": {"viewDidLoad": {"costMs": -1}}}, "hooks.viewDidLoad.costMs"),
    ("classes.define", {"name": "BadMember", "hooks": {"viewDidLoad": {"sleep": 1}}}, "hooks.viewDidLoad.sleep"),
    ("classes.define", {"name": "BadBytes", "memoryBytes": -1}, "memoryBytes"),
    ("classes.define", {"name": ""}, "name"),
    ("container.create", {}, "class"),
    ("stack.create", {"width": -1, "height": 667}, "width"),
    ("stack.create", {"width": 375, "height": 0}, "height"),
    ("stack.create", {"width": "wide", "height": 667}, "width"),
    ("stack.create", {"width": 375, "height": 667, "hidden": "no"}, "hidden"),
    ("showRendered", {"class": 5}, "class"),
    ("showRendered", {"class": "Container", "colour": "red"}, "colour"),
    ("pool.configure", {"class": "Container", "depth": -1}, "depth"),
    ("stack.updateInteractivePop", {"stack": "s-1", "progress": 1.5}, "progress"),
    ("stack.updateInteractivePop", {"stack": "s-1"}, "progress"),
    ("stack.finishInteractivePop", {"stack": "s-1", "duration": -5}, "duration"),
    ("stack.cancelInteractivePop", {"stack": "s-1", "duration": 600001}, "duration"),
    ("pool.configure", {"class": "Container", "depth": 1.5}, "depth"),
    ("pool.configure", {"class": "Container", "policy": "always"}, "policy"),
    ("pool.warm", {"class": "Container", "count": -1}, "count"),
    ("pool.status", {"class": 7}, "class"),
    # A page index outside PageIndex is the param's fault whatever the session (here an unknown one).
    ("page.show", {"session": "p-999", "index": -1}, "index"),
    ("page.reloadPage", {"session": "p-999", "index": 1000000, "data": {}}, "index"),
    ("page.removePages", {"session": "p-999", "at": 4294967296}, "at"),
    ("page.create", {"class": "Container", "count": 0, "width": 375, "height": 667}, "count"),
    ("page.create", {"class": "Container", "count": 2.5, "width": 375, "height": 667}, "count"),
    ("page.create", {"class": "Container", "count": 3, "width": 0, "height": 667}, "width"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667, "initialIndex": -1}, "initialIndex"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667, "cache": {"limit": 0}},
     "cache.limit"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667, "cache": {"limit": "many"}},
     "cache.limit"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667, "cache": {"mode": "lru"}},
     "cache.mode"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667, "cache": {"size": 2}},
     "cache.size"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667,
                     "cache": {"limit": 2, "mode": "reuse"}}, "cache"),
    ("page.create", {"class": "Container", "count": 3, "width": 375, "height": 667, "prerender": "yes"}, "prerender"),
    ("page.create", {"pages": [], "width": 375, "height": 667}, "pages"),
    ("page.create", {"pages": [5], "width": 375, "height": 667}, "pages[0]"),
    ("page.create", {"pages": [{"class": "Container"}, {"data": 1}], "width": 375, "height": 667}, "pages[1].class"),
    ("page.create", {"pages": [{"class": "Container", "colour": "red"}], "width": 375, "height": 667},
     "pages[0].colour"),
    ("page.create", {"class": "Container", "data": {"n": 1}, "width": 375, "height": 667}, "data"),
    ("page.show", {"session": 5, "index": 0}, "session"),
    ("page.info", {}, "session"),
    ("page.destroy", {"session": "p-1", "force": True}, "force"),
    # Range sessions: what is checked before the session is looked up (the rest needs a live session:
    # test_range_session_errors_match_the_document).
    ("range.create", {"lengths": [44, 44, 44, -1], "viewport": VP}, "lengths[3]"),
    ("range.create", {"lengths": [44, "tall"], "viewport": VP}, "lengths[1]"),
    ("range.create", {"lengths": "tall", "viewport": VP}, "lengths"),
    ("range.create", {"count": -1, "viewport": VP}, "count"),
    ("range.create", {"count": 2.5, "viewport": VP}, "count"),
    ("range.create", {"count": 10000001, "viewport": VP}, "count"),
    ("range.create", {"count": 3, "itemLength": -1, "viewport": VP}, "itemLength"),
    ("range.create", {"count": 3, "itemLength": "tall", "viewport": VP}, "itemLength"),
    ("range.create", {"sections": [], "viewport": VP}, "sections"),
    ("range.create", {"sections": [5], "viewport": VP}, "sections[0]"),
    ("range.create", {"sections": [{"count": 3}, {"count": 3, "colour": "red"}], "viewport": VP}, "sections[1].colour"),
    ("range.create", {"sections": [{"lengths": [44, -1]}], "viewport": VP}, "sections[0].lengths[1]"),
    ("range.create", {"sections": [{"count": -3}], "viewport": VP}, "sections[0].count"),
    ("range.create", {"sections": [{"count": 3, "reuseIdentifier": 5}], "viewport": VP}, "sections[0].reuseIdentifier"),
    ("range.create", {"count": 3}, "viewport"),
    ("range.create", {"count": 3, "viewport": 5}, "viewport"),
    ("range.create", {"count": 3, "viewport": {"width": 0, "height": 667}}, "viewport.width"),
    ("range.create", {"count": 3, "viewport": {"width": 375}}, "viewport.height"),
    ("range.create", {"count": 3, "viewport": VP, "axis": "diagonal"}, "axis"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": 3}, "tuning"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"huge": {}}}, "tuning.huge"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"full": 3}}, "tuning.full"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"full": {"visible": {}}}}, "tuning.full.visible"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"full": {"display": 3}}}, "tuning.full.display"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"full": {"display": {"leading": "far"}}}},
     "tuning.full.display.leading"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"minimum": {"preload": {"trailing": "far"}}}},
     "tuning.minimum.preload.trailing"),
    ("range.create", {"count": 3, "viewport": VP, "tuning": {"full": {"display": {"middle": 1}}}},
     "tuning.full.display.middle"),
    ("range.create", {"count": 3, "viewport": VP, "batch": {"leadingScreens": "two"}}, "batch.leadingScreens"),
    ("range.create", {"count": 3, "viewport": VP, "batch": {"prepend": 1}}, "batch.prepend"),
    ("range.create", {"count": 3, "viewport": VP, "batch": {"screens": 2}}, "batch.screens"),
    ("range.create", {"count": 3, "viewport": VP, "strategy": "eager"}, "strategy"),
    ("range.create", {"count": 3, "viewport": VP, "strategy": 7}, "strategy"),
    ("range.create", {"count": 3, "viewport": VP, "strategy": {"name": "sometimes"}}, "strategy.name"),
    ("range.create", {"count": 3, "viewport": VP, "strategy": {"ratio": 0.5}}, "strategy.name"),
    ("range.create", {"count": 3, "viewport": VP, "strategy": {"name": "threshold", "ratio": 0}}, "strategy.ratio"),
    ("range.create", {"count": 3, "viewport": VP, "strategy": {"name": "threshold", "ratio": 1.5}}, "strategy.ratio"),
    ("range.create", {"count": 3, "viewport": VP, "lazy": "yes"}, "lazy"),
    ("range.create", {"count": 3, "viewport": VP, "visible": 1}, "visible"),
    ("range.create", {"count": 3, "viewport": VP, "templates": "no"}, "templates"),
    ("range.create", {"count": 3, "viewport": VP, "colour": "red"}, "colour"),
    ("range.create", {"count": 3, "viewport": VP, "viewability": []}, "viewability"),
    ("range.create", {"count": 3, "viewport": VP, "viewability": [{"minMs": 100}]}, "viewability[0].name"),
    ("range.create", {"count": 3, "viewport": VP, "viewability": [{"name": "a"}, {"name": "b", "minPercent": 0}]},
     "viewability[1].minPercent"),
    ("range.create", {"count": 3, "viewport": VP, "viewability": [{"name": "a", "minMs": -5}]}, "viewability[0].minMs"),
    ("range.create", {"count": 3, "viewport": VP, "viewability": [{"name": "a", "delay": 5}]}, "viewability[0].delay"),
    ("range.didScroll", {"session": 5, "offset": 0}, "session"),
    ("range.state", {}, "session"),
    ("range.destroy", {"session": "r-1", "force": True}, "force"),
]


@pytest.mark.parametrize("method,params,path", BAD_PARAMS, ids=[f"{m}-{p}" for m, _, p in BAD_PARAMS])
def test_bad_params_are_rejected_as_documented(conn: Conn, method: str, params: dict[str, Any], path: str) -> None:
    assert check_params(method, params), f"the document should reject {method} {params}"
    reply = conn.request(method, params)
    assert "error" in reply, f"{method} {params} succeeded: {reply}"
    error = reply["error"]
    check(pointer("components", "schemas", "ErrorObject"), error, f"{method} error")
    assert error["code"] == -32602 and error["data"]["kind"] == "invalidParams", error
    assert error["data"]["path"] == path, error
    assert error["code"] in method_error_codes(method), f"{method} does not list -32602 in its errors"
    # The connection stays usable.
    assert conn.call("host.ping") == {"pong": True}


BAD_MESSAGES = [
    (b'{"jsonrpc":"2.0","id":1,"method":', -32700),
    (b"[]", -32600),
    (b"42", -32600),
    (b'{"jsonrpc":"1.0","id":1,"method":"host.ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":1,"method":"host.ping","params":5}', -32600),
    (b'{"jsonrpc":"2.0","id":1,"method":"no.such.method"}', -32601),
]


@pytest.mark.parametrize("line,code", BAD_MESSAGES, ids=[c[0].decode()[:40] for c in BAD_MESSAGES])
def test_protocol_errors_match_error_object(conn: Conn, line: bytes, code: int) -> None:
    conn.send_line(line)
    reply = conn.read_reply()
    assert isinstance(reply, dict) and "error" in reply, reply
    check(pointer("components", "schemas", "ErrorObject"), reply["error"], f"error for {line!r}")
    assert reply["error"]["code"] == code, reply


# ---------------------------------------------------------------- events


def check_notification(n: dict[str, Any]) -> None:
    assert n.get("jsonrpc") == "2.0" and "id" not in n, n
    topic = n["method"]
    assert topic in NOTIFICATIONS, f"notification on an undescribed topic: {n}"
    entries = DOC["x-notifications"]
    check(pointer("x-notifications", entries.index(NOTIFICATIONS[topic]), "params"), n["params"],
          f"`{topic}` notification")


def test_events_match_x_notifications(schema_host: Host) -> None:
    observer = schema_host.connect()
    try:
        sub = observer.call("events.subscribe", {"topics": list(NOTIFICATIONS), "scope": "all"})
        check(method_result_ref("events.subscribe"), sub, "events.subscribe result")
        assert sorted(sub["topics"]) == sorted(NOTIFICATIONS) and sub["scope"] == "all"

        # A second connection opens: the observer hears of it.
        other = schema_host.connect()
        opened = observer.wait_notification(lambda n: n["method"] == "host" and n["params"]["kind"] == "connectionOpened")
        other_id = opened["params"]["connection"]
        assert opened["params"]["transport"] == "unix"

        # It subscribes to host events itself (scope own) and sends a memory warning: both connections get the
        # event, each with its own seq, and the event comes before the reply.
        other.call("events.subscribe", {"topics": ["host"]})
        other.send_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "host.memoryWarning",
                                    "params": {"level": "critical"}}).encode())
        first = other.read_message()
        assert first.get("method") == "host", f"the memoryWarning event precedes the reply: {first}"
        check_notification(first)
        assert first["params"]["seq"] == 1 and first["params"]["kind"] == "memoryWarning"
        assert first["params"]["level"] == "critical"
        reply = other.read_reply()
        assert reply.get("id") == 1 and "result" in reply, reply
        check(method_result_ref("host.memoryWarning"), reply["result"], "host.memoryWarning result")
        observer.wait_notification(lambda n: n["method"] == "host" and n["params"]["kind"] == "memoryWarning")

        # It closes: the observer hears of that too.
        other.close()
        closed = observer.wait_notification(lambda n: n["method"] == "host" and n["params"]["kind"] == "connectionClosed"
                                            and n["params"]["connection"] == other_id)
        assert closed["params"]["reason"], closed

        # The observer's own memory warning: the event is written before the reply.
        before = len(observer.notifications)
        observer.call("host.memoryWarning", {})
        mine = [n for n in observer.notifications[before:] if n["params"].get("kind") == "memoryWarning"]
        assert len(mine) == 1 and mine[0]["params"]["level"] == "critical", observer.notifications[before:]

        # Virtual time runs only on clock.advance: events carry the host clock.
        now = observer.call("clock.now")["ms"]

        notes = observer.notifications
        assert notes, "no events received"
        for n in notes:
            check_notification(n)
        seqs = [n["params"]["seq"] for n in notes]
        assert seqs[0] == 1, f"seq starts at 1: {seqs}"
        assert all(b > a for a, b in zip(seqs, seqs[1:])), f"seq strictly increases: {seqs}"
        times = [n["params"]["t"] for n in notes]
        assert all(b >= a for a, b in zip(times, times[1:])) and times[-1] <= now, times

        # Unsubscribed: no more events.
        observer.call("events.unsubscribe", {"topics": list(NOTIFICATIONS)})
        before = len(observer.notifications)
        observer.call("host.memoryWarning", {"level": "warning"})
        assert observer.notifications[before:] == []
    finally:
        observer.close()


# ---------------------------------------------------------------- host.shutdown, on a host of its own


def test_shutdown_result_and_exit() -> None:
    assert FIXTURE_DATA["host.shutdown"].get("skipCall"), "host.shutdown must not be called on the shared host"
    host = Host()
    try:
        c = host.connect()
        result = c.call("host.shutdown", FIXTURE_DATA["host.shutdown"]["params"])
        check(method_result_ref("host.shutdown"), result, "host.shutdown result")
        c.close()
        code = host.wait_exit()
        assert code == 0, f"host exited {code} after host.shutdown; stderr: {host.stderr_text()}"
        assert not os.path.exists(host.socket), "the host left its socket behind"
    finally:
        host.cleanup()


# ---------------------------------------------------------------- host.reset, on a host of its own


def test_reset_result_and_event() -> None:
    assert FIXTURE_DATA["host.reset"].get("skipCall"), "host.reset must not be called on the shared host"
    host = Host()
    try:
        c = host.connect()
        c.call("events.subscribe", {"topics": ["host"]})
        c.call("classes.define", {"name": "ResetMe"})
        c.call("stack.create", {"width": 100, "height": 100})
        result = c.call("host.reset", FIXTURE_DATA["host.reset"]["params"])
        check(method_result_ref("host.reset"), result, "host.reset result")
        assert result["classesUndefined"] == ["ResetMe"] and result["tornDown"]["stacks"] == 1, result
        events = [n for n in c.notifications if n["params"].get("kind") == "reset"]
        assert len(events) == 1, c.notifications
        check_notification(events[0])
        check(method_result_ref("host.stats"), c.call("host.stats"), "host.stats result")
        c.close()
    finally:
        host.cleanup()


# ---------------------------------------------------------------- container, stack and pool events


def test_container_and_pool_events_match_x_notifications(schema_host: Host) -> None:
    """The prerendering article's flow (miss, warm-up, hit), an animated pop, purges, a failing class, a budget
    eviction, an
    eviction by a shrinking pool.configure and a memory warning: every `lifecycle` and `pool` event they cause
    matches x-notifications, every pool kind and every hook shows up, and none is an unbalanced appearance
    transition."""
    c = schema_host.connect()
    try:
        c.call("events.subscribe", {"topics": ["lifecycle", "pool"]})
        cls, broken, huge = "SchemaEventsArticle", "SchemaEventsBroken", "SchemaEventsHuge"
        c.call("classes.define", {"name": cls, "memoryBytes": 65536,
                                  "hooks": {"viewDidLoad": {"costMs": 1}, "configure": {"output": {"ok": True}}}})
        c.call("classes.define", {"name": broken, "hooks": {"viewDidLoad": {"fail": True}}})
        c.call("classes.define", {"name": huge, "memoryBytes": 100 << 20})
        stack = c.call("stack.create", {"width": 390, "height": 844})["stack"]

        miss = c.call("showRendered", {"class": cls, "stack": stack, "data": {"url": "a"}})
        check(method_result_ref("showRendered"), miss, "showRendered (miss) result")
        assert miss["warm"] is False and miss["output"] == {"ok": True}, miss
        c.call("tasks.drain")
        hit = c.call("showRendered", {"class": cls, "stack": stack, "animated": True, "data": {"url": "b"}})
        assert hit["warm"] is True, hit
        c.call("clock.advance", {"ms": 300})
        popped = c.call("stack.pop", {"stack": stack, "animated": True})
        assert popped["container"] == hit["container"], popped
        c.call("clock.advance", {"ms": 300})

        c.call("pool.warm", {"class": cls, "width": 390, "height": 844, "count": 2})
        c.call("tasks.drain")
        purged = c.call("pool.purge", {"class": cls})
        # The two asked for and the replacement the lazy pool warmed after the hit (the prerendering article).
        assert purged == {"purged": 3, "bytes": 3 * 65536}, purged

        # A warm-up whose viewDidLoad fails, and a showRendered whose does.
        c.call("pool.warm", {"class": broken})
        c.call("tasks.drain")
        reply = c.request("showRendered", {"class": broken, "stack": stack})
        assert "error" in reply, reply
        check(pointer("components", "schemas", "ErrorObject"), reply["error"], "showRendered error")
        assert reply["error"]["code"] == -32004 and reply["error"]["data"]["hook"] == "viewDidLoad", reply
        assert -32004 in method_error_codes("showRendered")

        # Past the host's budget of pooled bytes (256 MiB), the least recently warmed idle container goes.
        c.call("pool.configure", {"class": huge, "depth": 3, "policy": "eager"})
        c.call("tasks.drain")
        c.call("pool.configure", {"class": huge, "depth": 0, "policy": "eager"})

        # The optional hooks run for a class that asks for them: joining a stack.
        insets = f"{cls}Insets"
        c.call("classes.define", {"name": insets, "hooks": {"viewSafeAreaInsetsDidChange": {},
                                                            "viewLayoutMarginsDidChange": {},
                                                            "viewWillTransitionToSize": {}}})
        sized = c.call("stack.create", {"width": 390, "height": 844})["stack"]
        c.call("showRendered", {"class": insets, "stack": sized})
        # ... and its window's resize (a rotation).
        c.call("stack.resize", {"stack": sized, "width": 844, "height": 390})

        c.call("pool.warm", {"class": cls, "width": 390, "height": 844})
        c.call("tasks.drain")
        warning = c.call("host.memoryWarning", {"level": "critical"})
        check(method_result_ref("host.memoryWarning"), warning, "host.memoryWarning result")
        assert warning["purged"]["pooledContainers"] >= 1, warning

        stats = c.call("host.stats")
        check(method_result_ref("host.stats"), stats, "host.stats result")
        assert stats["unbalancedTransitions"] == 0, stats

        notes = c.notifications
        for n in notes:
            check_notification(n)
        seqs = [n["params"]["seq"] for n in notes]
        assert seqs == list(range(1, len(seqs) + 1)), f"seq counts from 1 on this connection: {seqs}"
        kinds = {n["params"]["kind"] for n in notes if n["method"] == "pool"}
        assert kinds == set(resolve_local("#/components/schemas/PoolEvent")["properties"]["kind"]["enum"]), kinds
        hooks = {n["params"]["event"] for n in notes if n["method"] == "lifecycle"}
        assert hooks == set(resolve_local("#/components/schemas/LifecycleHook")["enum"]), \
            f"hooks seen: {sorted(hooks)}"
        reasons = {n["params"]["reason"] for n in notes if n["method"] == "pool" and "reason" in n["params"]}
        assert reasons == {"purge", "memoryWarning", "budget", "depth"}, reasons
    finally:
        c.close()


NO_PATHS = {"preload": [], "display": [], "visible": []}  # a range event's enter / exit, empty

EVENT_EXAMPLES = [
    # (topic, params, valid)
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "init", "offscreen": True}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewWillAppear", "offscreen": False,
                   "animated": True}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewWillAppear", "offscreen": False},
     False),  # appearance hooks say whether they are animated
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "loadView", "offscreen": False,
                   "animated": False}, False),  # only appearance hooks do
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewDidLayoutSubviews",
                   "offscreen": True, "size": {"width": 375, "height": 667}}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewDidLayoutSubviews",
                   "offscreen": True}, False),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "willMoveToParent",
                   "offscreen": True, "parent": None}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewDidLoad", "offscreen": False,
                   "failed": True}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "unbalancedAppearanceTransition",
                   "offscreen": False, "call": "endAppearance", "state": "appeared"}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "unbalancedAppearanceTransition",
                   "offscreen": False}, False),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewDidExplode",
                   "offscreen": False}, False),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "init", "offscreen": False,
                   "extra": 1}, False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "warmed", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "idle": 1}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "warmed", "class": "A", "width": 375, "height": 667, "container": "c-2"},
     False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "purged", "class": "A", "width": 375, "height": 667,
              "reason": "memoryWarning"}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "purged", "class": "A", "width": 375, "height": 667, "reason": "budget"},
     False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "evicted", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "reason": "budget"}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "warmFailed", "class": "A", "width": 375, "height": 667,
              "error": {"code": -32004, "message": "failed", "data": {"kind": "pluginFailed"}}}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "warmFailed", "class": "A", "width": 375, "height": 667}, False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "hit", "class": "A", "width": 375, "height": 667}, False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "refilled", "class": "A", "width": 375, "height": 667, "container": "c-2"},
     False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "evicted", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "reason": "depth"}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "purged", "class": "A", "width": 375, "height": 667, "reason": "depth"},
     False),
    # Page children taken from a pool: session and index; a miss has no container (the page's own comes after).
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "hit", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "session": "p-1", "index": 0}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "miss", "class": "A", "width": 375, "height": 667, "session": "p-1",
              "index": 3}, True),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "miss", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "session": "p-1", "index": 3}, False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "hit", "class": "A", "width": 375, "height": 667, "session": "p-1",
              "index": 3}, False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "hit", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "session": "p-1"}, False),
    ("pool", {"seq": 1, "t": 0, "cause": 7, "kind": "warmed", "class": "A", "width": 375, "height": 667, "container": "c-2",
              "idle": 1, "session": "p-1", "index": 0}, False),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "viewWillAppear", "offscreen": False,
                   "animated": True, "page": {"session": "p-1", "index": 2}}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "deinit", "offscreen": False,
                   "page": {"session": "p-1", "index": -1}}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "PageViewController", "event": "loadView",
                   "offscreen": False, "page": {"session": "p-1"}}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "loadView", "offscreen": True,
                   "page": {"session": "p-1", "index": 0}}, False),  # a page is never in a green room
    ("lifecycle", {"seq": 1, "t": 0, "cause": 7, "container": "c-1", "class": "A", "event": "loadView", "offscreen": False,
                   "page": {"session": "p-1", "index": -2}}, False),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "willTransition", "from": 1, "to": 2}, True),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "didTransition", "from": 1, "to": 2, "completed": False},
     True),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "didTransition", "from": 1, "to": 2}, False),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "willTransition", "from": 1, "to": 2, "completed": True},
     False),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "willTransition", "from": 1, "to": 2, "extra": 1}, False),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "willTransition", "from": -1, "to": 2}, False),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "s-1", "kind": "willTransition", "from": 1, "to": 2}, False),
    ("page", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "kind": "transitioned", "from": 1, "to": 2}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "down",
               "enter": {"preload": [[0, 5]], "display": [], "visible": []},
               "exit": {"preload": [], "display": [[1, 0]], "visible": []}}, True),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "minimum", "direction": "left", "enter": NO_PATHS,
               "exit": NO_PATHS, "removed": [[0, 3], [0, 2]]}, True),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "down", "enter": NO_PATHS,
               "exit": NO_PATHS, "removed": []}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "down",
               "enter": {"preload": [[0, 5], [0, 5]], "display": [], "visible": []}, "exit": NO_PATHS},
     False),  # a path at most once per list
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "down",
               "enter": {"preload": [[0]], "display": [], "visible": []}, "exit": NO_PATHS}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "down",
               "enter": {"preload": [], "display": []}, "exit": NO_PATHS}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "down",
               "enter": {**NO_PATHS, "prefetch": []}, "exit": NO_PATHS}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "sideways", "enter": NO_PATHS,
               "exit": NO_PATHS}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "high", "direction": "up", "enter": NO_PATHS,
               "exit": NO_PATHS}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "p-1", "mode": "full", "direction": "up", "enter": NO_PATHS,
               "exit": NO_PATHS}, False),
    ("range", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "mode": "full", "direction": "up", "enter": NO_PATHS,
               "exit": NO_PATHS, "phase": "idle"}, False),
    ("prefetch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "kind": "prefetchItems", "paths": [[0, 12], [0, 13]]}, True),
    ("prefetch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "kind": "cancelPrefetching", "paths": [[2, 0]]}, True),
    ("prefetch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "kind": "cancelPrefetching", "paths": []}, False),
    ("prefetch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "kind": "prefetchItems", "paths": [[0, 1], [0, 1]]}, False),
    ("prefetch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "kind": "prefetch", "paths": [[0, 1]]}, False),
    ("prefetch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "kind": "prefetchItems", "paths": [[0, 1]], "mode": "full"},
     False),
    ("batch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "context": "b-1", "kind": "willBeginBatchFetch", "prepend": False},
     True),
    ("batch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "context": "b-1", "kind": "willBeginBatchFetch"}, False),
    ("batch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "context": "c-1", "kind": "willBeginBatchFetch", "prepend": True},
     False),
    ("batch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "context": "b-1", "kind": "didEndBatchFetch", "prepend": True},
     False),
    ("batch", {"seq": 1, "t": 0, "cause": 7, "session": "r-1", "context": "b-1", "kind": "willBeginBatchFetch", "prepend": True,
               "lengths": []}, False),
    # Every event names its cause: a request's id, another connection's request, or what ran without one.
    ("lifecycle", {"seq": 1, "t": 0, "container": "c-1", "class": "A", "event": "init", "offscreen": True}, False),
    ("lifecycle", {"seq": 1, "t": 0, "cause": {"id": "a", "connection": "conn-2"}, "container": "c-1", "class": "A",
                   "event": "init", "offscreen": True}, True),
    ("lifecycle", {"seq": 1, "t": 300, "cause": {"timer": "s-1 transition", "scheduledBy": 4}, "container": "c-1",
                   "class": "A", "event": "viewDidAppear", "offscreen": False, "animated": True}, True),
    ("pool", {"seq": 1, "t": 0, "cause": {"idle": "warm:A@375.0x667.0:1:0"}, "kind": "warmed", "class": "A",
              "width": 375, "height": 667, "container": "c-2", "idle": 1}, True),
    ("host", {"seq": 1, "t": 0, "cause": {"close": "conn-2"}, "kind": "connectionClosed", "connection": "conn-2",
              "reason": "closed"}, True),
    ("lifecycle", {"seq": 1, "t": 0, "cause": {"weather": "rain"}, "container": "c-1", "class": "A", "event": "init",
                   "offscreen": True}, False),
]


@pytest.mark.parametrize("topic,params,valid", EVENT_EXAMPLES,
                         ids=[f"{t}-{p.get('event', p.get('kind', p.get('mode')))}-{v}" for t, p, v in EVENT_EXAMPLES])
def test_event_schemas_are_strict(topic: str, params: dict[str, Any], valid: bool) -> None:
    entries = DOC["x-notifications"]
    validator = validator_at(pointer("x-notifications", entries.index(NOTIFICATIONS[topic]), "params"))
    assert validator.is_valid(params) == valid, [e.message for e in validator.iter_errors(params)]


# ---------------------------------------------------------------- page sessions


def test_page_session_errors_match_the_document(conn: Conn) -> None:
    """Errors that need a live session or a lookup (out-of-range index and offset, missing stream members, unknown
    session, class and stack, page.create's cross-member rules): each an ErrorObject with a code the method lists
    and `data.path` naming the field; none of them changes the session."""
    session = conn.call("page.create", {"class": "Container", "count": 3, "width": 100, "height": 200})["session"]
    cases = [
        ("page.show", {"session": session, "index": 3}, -32602, "index"),
        ("page.willBeginDragging", {"session": session, "offset": 301}, -32602, "offset"),
        ("page.didScroll", {"session": session, "offset": -101}, -32602, "offset"),
        ("page.didScroll", {"session": session, "offset": "far"}, -32602, "offset"),
        ("page.willEndDragging", {"session": session, "offset": 0}, -32602, "velocity"),
        ("page.willEndDragging", {"session": session, "offset": 0, "velocity": 1, "targetOffset": "end"}, -32602,
         "targetOffset"),
        ("page.didEndDragging", {"session": session, "offset": 0}, -32602, "willDecelerate"),
        ("page.didEndDecelerating", {"session": session}, -32602, "offset"),
        ("page.info", {"session": "p-999999"}, -32002, "session"),
        ("page.destroy", {"session": "p-999999"}, -32002, "session"),
        ("page.didScroll", {"session": "p-999999", "offset": 0}, -32002, "session"),
        ("page.create", {"class": "Container", "width": 100, "height": 200}, -32602, "count"),
        ("page.create", {"class": "Container", "pages": [{"class": "Container"}], "width": 100, "height": 200},
         -32602, "class"),
        ("page.create", {"pages": [{"class": "Container"}], "count": 2, "width": 100, "height": 200}, -32602, "count"),
        ("page.create", {"class": "Container", "count": 2, "data": [1, 2, 3], "width": 100, "height": 200}, -32602,
         "data"),
        ("page.create", {"class": "Container", "count": 2, "width": 100, "height": 200, "initialIndex": 2}, -32602,
         "initialIndex"),
        ("page.create", {"class": "SchemaNoSuchClass", "count": 2, "width": 100, "height": 200}, -32001, "class"),
        ("page.create", {"pages": [{"class": "Container"}, {"class": "SchemaNoSuchClass"}], "width": 100,
                         "height": 200}, -32001, "pages[1].class"),
        ("page.create", {"class": "Container", "count": 2, "width": 100, "height": 200, "stack": "s-999999"}, -32002,
         "stack"),
    ]
    for method, params, code, path in cases:
        error = check_error(conn.request(method, params), method, code, f"{method} {json.dumps(params)}")
        assert error["data"].get("path") == path, error
    info = conn.call("page.info", {"session": session})
    check(method_result_ref("page.info"), info, "page.info result")
    assert (info["index"], info["phase"], info["offset"]) == (0, "idle", 0), info


def test_positional_params_of_page_methods(conn: Conn) -> None:
    # The documented order is the host's (null, by position, stands for an absent param).
    order = {
        "page.create": ["class", "pages", "count", "data", "width", "height", "stack", "initialIndex", "cache",
                        "prerender", "offscreenLimit", "transitionStyle"],
        "page.show": ["session", "index", "animated", "duration"],
        "page.willBeginDragging": ["session", "offset"],
        "page.didScroll": ["session", "offset"],
        "page.willEndDragging": ["session", "offset", "velocity", "targetOffset"],
        "page.didEndDragging": ["session", "offset", "willDecelerate"],
        "page.didEndDecelerating": ["session", "offset"],
        "page.info": ["session"],
        "page.destroy": ["session"],
    }
    for method, names in order.items():
        assert [p["name"] for p in METHODS[method]["params"]] == names, method
    created = conn.call("page.create", ["Container", None, 3, None, 320, 480, None, 2, {"limit": 2}, False])
    check(method_result_ref("page.create"), created, "page.create result")
    assert (created["count"], created["width"], created["height"], created["index"], created["cache"]) == \
        (3, 320, 480, 2, {"limit": 2}), created
    s = created["session"]
    assert conn.call("page.show", [s, 0, False])["index"] == 0
    steps = [("page.willBeginDragging", [s, 0]), ("page.didScroll", [s, 200]),
             ("page.willEndDragging", [s, 250, 1.0, 320]), ("page.didEndDragging", [s, 260, False])]
    for method, params in steps:
        result = conn.call(method, params)
        check(method_result_ref(method), result, f"{method} result")
    assert result == {"session": s, "index": 1, "phase": "idle", "guess": None}, result
    assert conn.call("page.info", [s])["index"] == 1
    assert conn.call("page.destroy", [s]) == {"session": s, "destroyed": True}


def test_page_events_match_x_notifications(schema_host: Host) -> None:
    """A page session through a non-interactive show (clock.advance 300), an interactive swipe with deceleration
    and a cancelled swipe; a reuse-mode session; a `prerender: true` session over an eager pool; a session in a
    stack, covered and uncovered; a memory warning. Every `lifecycle`, `page` and `pool` event matches
    x-notifications, every result its method's schema, and every out-of-order call of the scroll stream is a
    -32003 ErrorObject naming the call and the phase."""
    c = schema_host.connect()
    try:
        c.call("events.subscribe", {"topics": ["lifecycle", "page", "pool"]})
        article, prerendered = "SchemaPagesArticle", "SchemaPagesPrerendered"
        for name in (article, prerendered):
            c.call("classes.define", {"name": name, "memoryBytes": 4096,
                                      "hooks": {"configure": {"output": {"bound": True}}}})
        w, h = 390, 844
        stats_before = c.call("host.stats")
        out_of_order_errors: list[dict[str, Any]] = []

        def call(method: str, params: Any) -> Any:
            result = c.call(method, params)
            check(method_result_ref(method), result, f"{method} result")
            return result

        def out_of_order(method: str, params: dict[str, Any], phase: str) -> None:
            error = check_error(c.request(method, params), method, -32003, "out-of-order call")
            assert error["data"]["call"] == method and error["data"]["phase"] == phase, error
            out_of_order_errors.append(error)

        def appearance(session: str, since: int) -> list[str]:
            return page_calls(c.notifications[since:], session)

        # A session without a stack: on screen at once, page 1 loaded and appeared during page.create.
        created = call("page.create", {"class": article, "count": 4, "width": w, "height": h, "initialIndex": 1,
                                       "data": [{"n": i} for i in range(4)]})
        a = created["session"]
        assert created["visible"] and created["index"] == 1 and created["container"] is None, created
        assert [(ch["index"], ch["state"]) for ch in created["children"]] == [(1, "appeared")], created
        child = call("container.info", {"container": created["children"][0]["container"]})
        assert child["parent"] == {"kind": "page", "id": a, "index": 1}, child

        # Non-interactive 1 -> 2, animated: the will-hooks now, the did-hooks after 300 ms of host clock.
        mark, t0 = len(c.notifications), c.call("clock.now")["ms"]
        shown = call("page.show", {"session": a, "index": 2})
        assert (shown["phase"], shown["index"]) == ("animating", 1), shown
        out_of_order("page.willEndDragging", {"session": a, "offset": w, "velocity": 0}, "animating")
        out_of_order("page.didEndDecelerating", {"session": a, "offset": w}, "animating")
        call("clock.advance", {"ms": 300})
        assert appearance(a, mark) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
        did = [n["params"] for n in c.notifications[mark:] if n["method"] == "page" and n["params"]["kind"] == "didTransition"]
        assert len(did) == 1 and did[0]["t"] == t0 + 300, did
        rest = call("page.info", {"session": a})
        assert (rest["index"], rest["phase"], rest["offset"]) == (2, "idle", 2 * w), rest

        # Interactive 2 -> 3, with deceleration; out-of-order calls in each phase.
        call("page.willBeginDragging", {"session": a, "offset": 2 * w})
        out_of_order("page.willBeginDragging", {"session": a, "offset": 2 * w}, "dragging")
        out_of_order("page.show", {"session": a, "index": 0}, "dragging")
        out_of_order("page.didEndDecelerating", {"session": a, "offset": 2 * w}, "dragging")
        assert call("page.didScroll", {"session": a, "offset": 2 * w + 150})["guess"] == 3
        call("page.willEndDragging", {"session": a, "offset": 2 * w + 200, "velocity": 1.5, "targetOffset": 3 * w})
        assert call("page.didEndDragging", {"session": a, "offset": 2 * w + 250,
                                            "willDecelerate": True})["phase"] == "decelerating"
        tracking = call("host.stats", None)
        assert tracking["sessions"]["pageTracking"] >= 1, tracking["sessions"]
        out_of_order("page.willEndDragging", {"session": a, "offset": 2 * w + 300, "velocity": 0}, "decelerating")
        out_of_order("page.didEndDragging", {"session": a, "offset": 2 * w + 300, "willDecelerate": False},
                     "decelerating")
        assert call("page.didEndDecelerating", {"session": a, "offset": 3 * w}) == \
            {"session": a, "index": 3, "phase": "idle", "guess": None}
        out_of_order("page.didEndDecelerating", {"session": a, "offset": 3 * w}, "idle")
        out_of_order("page.willEndDragging", {"session": a, "offset": 3 * w, "velocity": 0}, "idle")
        out_of_order("page.didEndDragging", {"session": a, "offset": 3 * w, "willDecelerate": False}, "idle")

        # Cancelled: 3 toward 2, then back to rest on 3.
        mark = len(c.notifications)
        call("page.willBeginDragging", {"session": a, "offset": 3 * w})
        assert call("page.didScroll", {"session": a, "offset": 3 * w - 100})["guess"] == 2
        assert call("page.didEndDragging", {"session": a, "offset": 3 * w - 20, "willDecelerate": False})["index"] == 3
        assert appearance(a, mark) == ["willAppear 2", "willDisappear 3", "willAppear 3", "didAppear 3",
                                       "willDisappear 2", "didDisappear 2"]

        # Reuse mode: pages leaving current +- 1 are parked and re-configured for the entering page.
        reuse = call("page.create", {"pages": [{"class": article, "data": {"n": i}} for i in range(5)], "width": w,
                                     "height": h, "cache": {"mode": "reuse"}})
        b = reuse["session"]
        assert reuse["cache"] == {"mode": "reuse"}, reuse
        for i in (1, 2, 3):
            call("page.show", {"session": b, "index": i, "animated": False})
        parked = call("page.info", {"session": b})
        assert parked["reuseQueue"] == {article: 1} and [ch["index"] for ch in parked["children"]] == [2, 3], parked
        assert any(n["method"] == "lifecycle" and n["params"]["event"] == "configure"
                   and n["params"].get("page") == {"session": b, "index": 3} for n in c.notifications), \
            "the reused container is configured for page 3"

        # prerender: true over an eager pool of depth 1: a hit, a miss (no container), and warm-ups paused while
        # the session tracks.
        call("pool.configure", {"class": prerendered, "depth": 1, "width": w, "height": h, "policy": "eager"})
        call("tasks.drain", None)
        pre = call("page.create", {"class": prerendered, "count": 3, "width": w, "height": h, "prerender": True,
                                   "data": [{"n": 0}]})
        p = pre["session"]
        call("page.show", {"session": p, "index": 1, "animated": False})
        call("tasks.drain", None)
        call("page.willBeginDragging", {"session": p, "offset": w})
        assert call("tasks.drain", None)["ran"] == 0, "default-mode warm-ups pause while a page session tracks"
        assert call("page.didScroll", {"session": p, "offset": w + 150})["guess"] == 2
        call("page.didEndDragging", {"session": p, "offset": 2 * w, "willDecelerate": False})
        call("tasks.drain", None)
        page_pool = [n["params"] for n in c.notifications if n["method"] == "pool" and "session" in n["params"]]
        assert [(e["kind"], e["index"], "container" in e) for e in page_pool] == \
            [("hit", 0, True), ("miss", 1, False), ("hit", 2, True)], page_pool

        # In a stack: the session's own container; covered, it is off screen (a drag is out of order) and a
        # page.show changes the page without appearance calls; uncovered, the new page appears.
        stack = c.call("stack.create", {"width": w, "height": h})["stack"]
        stacked = call("page.create", {"class": article, "count": 3, "width": w, "height": h, "stack": stack})
        d = stacked["session"]
        assert stacked["container"] is not None and stacked["visible"], stacked
        c.call("showRendered", {"class": "Container", "stack": stack})
        assert call("page.info", {"session": d})["visible"] is False
        out_of_order("page.willBeginDragging", {"session": d, "offset": 0}, "offscreen")
        mark = len(c.notifications)
        call("page.show", {"session": d, "index": 2})
        assert appearance(d, mark) == []
        c.call("stack.pop", {"stack": stack})
        assert appearance(d, mark) == ["willAppear 2", "didAppear 2"]

        # A memory warning: cached children that are neither current nor interaction-related go.
        warning = call("host.memoryWarning", {})
        assert warning["purged"]["pageChildrenReleased"] >= 2 and warning["purged"]["pageChildrenNotified"] >= 4, \
            warning
        assert [ch["index"] for ch in call("page.info", {"session": a})["children"]] == [3]

        for s in (a, b, p, d):
            assert call("page.destroy", {"session": s}) == {"session": s, "destroyed": True}
        check_error(c.request("page.info", {"session": a}), "page.info", -32002, "destroyed session")
        stats = call("host.stats", None)
        assert stats["sessions"]["page"] == stats_before["sessions"]["page"], stats["sessions"]
        assert stats["sessions"]["pageTracking"] == 0, stats["sessions"]
        assert stats["unbalancedTransitions"] == stats_before["unbalancedTransitions"], stats

        notes = c.notifications
        for n in notes:
            check_notification(n)
        seqs = [n["params"]["seq"] for n in notes]
        assert seqs == list(range(1, len(seqs) + 1)), f"seq counts from 1 on this connection: {seqs}"
        page_events = [n["params"] for n in notes if n["method"] == "page"]
        assert {e["kind"] for e in page_events} == {"willTransition", "didTransition"}
        assert {e["completed"] for e in page_events if e["kind"] == "didTransition"} == {True, False}
        for s in (a, b, p, d):  # every didTransition closes at least one willTransition
            open_transitions = 0
            for e in (e for e in page_events if e["session"] == s):
                if e["kind"] == "willTransition":
                    open_transitions += 1
                else:
                    assert open_transitions > 0, f"didTransition without a willTransition: {e}"
                    open_transitions = 0
        pages = [n["params"]["page"] for n in notes if n["method"] == "lifecycle" and "page" in n["params"]]
        assert {"session": d} in pages, "the stacked session's own container has page: {session}"
        assert any(pg.get("index") == -1 for pg in pages), "a parked container's events carry page.index -1"
        assert len(out_of_order_errors) == 11
    finally:
        c.close()


# ---------------------------------------------------------------- range sessions


def check_ranges_invariants(state: dict[str, Any], what: str) -> None:
    """docs/ranges.md: a visible item has all three bits, so visible ⊆ display ⊆ preload; lists ascending."""
    sets = {t: {tuple(p) for p in state[t]} for t in RANGE_TYPES}
    assert sets["visible"] <= sets["display"] <= sets["preload"], f"{what}: visible ⊆ display ⊆ preload: {state}"
    for t in RANGE_TYPES:
        assert [tuple(p) for p in state[t]] == sorted(sets[t]), f"{what}: range.state lists {t} ascending: {state}"


class RangeMirror:
    """A range session's ranges as its `range` events tell them, compared with `range.state` after every call.

    `starts` (flat index of each section's first item, when known) lets the nearest-first order be checked;
    `seen` follows which preload items have been visible since they entered preload (for `cancelPrefetching`);
    `unknown` holds the preload items whose history was lost at a resync (after inserts, deletes, batches)."""

    def __init__(self, session: str, starts: list[int] | None) -> None:
        self.session = session
        self.starts = starts
        self.sets: dict[str, set[tuple[int, ...]]] = {t: set() for t in RANGE_TYPES}
        self.seen: set[tuple[int, ...]] = set()
        self.unknown: set[tuple[int, ...]] = set()

    def flat(self, path: list[int]) -> int:
        assert self.starts is not None
        return self.starts[path[0]] + path[1]

    def resync(self, state: dict[str, Any]) -> None:
        self.sets = {t: {tuple(p) for p in state[t]} for t in RANGE_TYPES}
        self.seen = set(self.sets["visible"])
        self.unknown = self.sets["preload"] - self.seen

    def apply(self, event: dict[str, Any], prefetch: list[dict[str, Any]]) -> None:
        where = f"{self.session} range event {json.dumps(event)[:600]}"
        for t in RANGE_TYPES:
            enter = [tuple(p) for p in event["enter"][t]]
            leave = [tuple(p) for p in event["exit"][t]]
            assert not set(enter) & set(leave), f"{where}: a path both enters and exits {t}"
            for p in leave:
                assert p in self.sets[t], f"{where}: {list(p)} exits {t} without being in it"
                self.sets[t].remove(p)
            for p in enter:
                assert p not in self.sets[t], f"{where}: {list(p)} enters {t} while already in it"
                self.sets[t].add(p)
        # prefetchItems: entered preload and not visible, nearest first (the order of enter.preload).
        want_prefetch = [p for p in event["enter"]["preload"] if tuple(p) not in self.sets["visible"]]
        # cancelPrefetching: left preload without having become visible since it entered preload.
        self.seen |= {tuple(p) for p in event["enter"]["visible"]}
        left = [tuple(p) for p in event["exit"]["preload"]]
        want_cancel = [list(p) for p in left if p not in self.seen]
        known = not any(p in self.unknown for p in left)
        self.seen -= set(left)
        self.unknown -= set(left)
        got = {kind: [n["paths"] for n in prefetch if n["kind"] == kind] for kind in ("prefetchItems", "cancelPrefetching")}
        assert len(got["prefetchItems"]) <= 1 and len(got["cancelPrefetching"]) <= 1, f"{where}: {prefetch}"
        assert (got["prefetchItems"] or [[]])[0] == want_prefetch, \
            f"{where}: prefetchItems {got['prefetchItems']} (expected {want_prefetch})"
        if known:
            assert (got["cancelPrefetching"] or [[]])[0] == want_cancel, \
                f"{where}: cancelPrefetching {got['cancelPrefetching']} (expected {want_cancel})"
        self.check_nearest_first(event)

    def check_nearest_first(self, event: dict[str, Any]) -> None:
        """Paths nearest the viewport first, by distance in points from the viewport: those from the visible span on
        come in ascending order and those before it in descending order (how the two sides interleave depends on the
        rows' lengths; tests/integration/test_ranges_events.py checks it with known geometry). Only while items are
        visible and the sections are known."""
        if self.starts is None or not self.sets["visible"]:
            return
        lo = min(self.flat(list(p)) for p in self.sets["visible"])
        for side in ("enter", "exit"):
            for t in RANGE_TYPES:
                flats = [self.flat(p) for p in event[side][t]]
                after = [i for i in flats if i >= lo]
                before = [i for i in flats if i < lo]
                assert after == sorted(after) and before == sorted(before, reverse=True), \
                    f"{self.session}: {side}.{t} is not nearest the viewport first: {event[side][t]}"

    def matches(self, state: dict[str, Any]) -> None:
        for t in RANGE_TYPES:
            assert {tuple(p) for p in state[t]} == self.sets[t], \
                f"{self.session}: the {t} range the events tell, {sorted(self.sets[t])}, is not range.state's {state[t]}"


class RangeDriver:
    """Calls methods on one connection, validating every result and every notification against the document, and
    replaying each live range session's `range` events against its `range.state` after every call."""

    def __init__(self, conn: Conn) -> None:
        self.c = conn
        self.mirrors: dict[str, RangeMirror] = {}
        self.horizontal: dict[str, bool] = {}
        self.batches: list[dict[str, Any]] = []  # every `batch` event's params, in order
        self.ranges: list[dict[str, Any]] = []  # every `range` event's params, in order

    def state(self, session: str) -> dict[str, Any]:
        st = self.c.call("range.state", {"session": session})
        check(method_result_ref("range.state"), st, "range.state result")
        assert set(st) == {"mode", "direction", "visible", "display", "preload"}, st
        check_ranges_invariants(st, f"range.state {session}")
        return st

    def create(self, params: dict[str, Any], starts: list[int] | None = None) -> dict[str, Any]:
        mark = len(self.c.notifications)
        created = self.c.call("range.create", params)
        check(method_result_ref("range.create"), created, "range.create result")
        s = created["session"]
        self.mirrors[s] = RangeMirror(s, starts)
        self.horizontal[s] = params.get("axis") == "horizontal"
        assert created["direction"] == ("right" if self.horizontal[s] else "down"), created
        assert created["phase"] == "idle" and created["offset"] == 0, created
        self.events(mark, set())
        return created

    def call(self, method: str, params: dict[str, Any], structural: bool = False) -> Any:
        """`structural`: the call renumbers paths (inserts, deletes, batches that add items): the mirror of its
        session is resynchronised from range.state instead of replayed."""
        mark = len(self.c.notifications)
        result = self.c.call(method, params)
        check(method_result_ref(method), result, f"{method} result")
        if method == "range.destroy":
            del self.mirrors[params["session"]]
        self.events(mark, {params["session"]} if structural else set())
        return result

    def events(self, mark: int, resync: set[str]) -> None:
        new = self.c.notifications[mark:]
        for n in new:
            check_notification(n)
        self.batches += [n["params"] for n in new if n["method"] == "batch"]
        self.ranges += [n["params"] for n in new if n["method"] == "range"]
        for s, mirror in self.mirrors.items():
            mine = [(i, n) for i, n in enumerate(new) if n["method"] in ("range", "prefetch")
                    and n["params"]["session"] == s]
            ranges = [(i, n["params"]) for i, n in mine if n["method"] == "range"]
            prefetch = [(i, n["params"]) for i, n in mine if n["method"] == "prefetch"]
            assert len(ranges) <= 1, f"{s}: one range event per update: {ranges}"
            if prefetch:
                assert ranges and all(i > ranges[0][0] for i, _ in prefetch), \
                    f"{s}: prefetch events come after the update's range event: {mine}"
            st = self.state(s)
            for _, r in ranges:
                assert (r["mode"], r["direction"]) == (st["mode"], st["direction"]), (r, st)
                axis = {"left", "right"} if self.horizontal[s] else {"up", "down"}
                assert r["direction"] in axis, r
            if s in resync:
                mirror.resync(st)
                for _, r in ranges:
                    mirror.check_nearest_first(r)
            else:
                for _, r in ranges:
                    mirror.apply(r, [p for _, p in prefetch])
                mirror.matches(st)


def rows(section: int, lo: int, hi: int) -> list[list[int]]:
    return [[section, r] for r in range(lo, hi)]


def test_range_events_match_x_notifications(schema_host: Host) -> None:
    """Range sessions, vertical and horizontal, with sections: drags, a fling and its deceleration, setVisible
    false / true, viewport changes, a memory warning, inserts and deletes, batch fetch cycles (appending, prepending,
    and for short content on an invisible session). Every `range`, `prefetch` and `batch` event matches
    x-notifications and every result its method's schema; the `range` events, replayed, give range.state after every
    call (each path enters a range it is not in, leaves one it is in, nearest the viewport first); the `prefetch`
    events follow the update's `range` event and say what it implies; every out-of-order call of the scroll stream is
    a -32003 ErrorObject naming the call and the phase."""
    c = schema_host.connect()
    try:
        c.call("events.subscribe", {"topics": ["range", "prefetch", "batch", "host"]})
        d = RangeDriver(c)
        stats_before = c.call("host.stats")
        out_of_order_errors: list[dict[str, Any]] = []

        def out_of_order(method: str, params: dict[str, Any], phase: str) -> None:
            error = check_error(c.request(method, params), method, -32003, "out-of-order call")
            assert error["data"]["call"] == method and error["data"]["phase"] == phase, error
            out_of_order_errors.append(error)

        # A: vertical, 200 items of 50 in a 600-point viewport; minimum mode until the first drag.
        a = d.create({"count": 200, "itemLength": 50, "viewport": {"width": 375, "height": 600}}, starts=[0])
        sa = a["session"]
        assert (a["count"], a["sections"], a["contentLength"], a["mode"], a["visible"], a["batchInFlight"]) == \
            (200, 1, 10000, "minimum", True, None), a
        st = d.state(sa)
        assert st["visible"] == rows(0, 0, 12), "items intersecting [0, 600)"
        assert (st["display"], st["preload"]) == (rows(0, 0, 15), rows(0, 0, 18)), "minimum: 0.25 / 0.5 screens ahead"
        out_of_order("range.willEndDragging", {"session": sa, "velocity": 1}, "idle")
        out_of_order("range.didEndDecelerating", {"session": sa}, "idle")

        # A drag down, a fling, the deceleration.
        dragging = d.call("range.willBeginDragging", {"session": sa, "offset": 0})
        assert (dragging["mode"], dragging["phase"]) == ("full", "dragging"), dragging
        for x in (150, 400, 1025):
            assert d.call("range.didScroll", {"session": sa, "offset": x}) == \
                {"session": sa, "mode": "full", "direction": "down"}
        assert d.state(sa)["visible"] == rows(0, 20, 33), "items intersecting [1025, 1625)"
        tracking = c.call("host.stats")["sessions"]
        assert tracking["rangeTracking"] >= 1 and tracking["range"] >= 1, tracking
        fling = d.call("range.willEndDragging", {"session": sa, "velocity": 2})
        assert fling == {"session": sa, "targetOffset": 1025 + 2 * 0.998 / 0.002}, fling
        out_of_order("range.willEndDragging", {"session": sa, "velocity": 1}, "decelerating")
        d.call("range.didScroll", {"session": sa, "offset": 1600})
        rest = d.call("range.didEndDecelerating", {"session": sa, "offset": fling["targetOffset"]})
        assert (rest["phase"], rest["offset"], rest["direction"]) == ("idle", fling["targetOffset"], "down"), rest
        out_of_order("range.didEndDecelerating", {"session": sa, "offset": 2000}, "idle")

        # A drag up that ends without deceleration.
        d.call("range.willBeginDragging", {"session": sa})
        assert d.call("range.didScroll", {"session": sa, "offset": 1700})["direction"] == "up"
        assert d.call("range.didScroll", {"session": sa, "offset": 1700})["direction"] == "up", "not moving: kept"
        assert d.call("range.didEndDecelerating", {"session": sa, "offset": 1500})["direction"] == "up"

        # Off screen and back.
        hidden = d.call("range.setVisible", {"session": sa, "visible": False})
        assert hidden["visible"] is False and d.state(sa)["visible"] == [], "an invisible session marks nothing visible"
        shown = d.call("range.setVisible", {"session": sa, "visible": True})
        assert shown["visible"] is True and d.state(sa)["visible"] == rows(0, 30, 42), shown

        # B: horizontal, three sections (a short middle one), a drag right with a fling, wider viewports, a drag left.
        b = d.create({"sections": [{"count": 10, "itemLength": 120}, {"lengths": [80, 80, 200]},
                                   {"count": 30, "itemLength": 100, "reuseIdentifier": "SchemaRangeCell"}],
                      "viewport": {"width": 400, "height": 300}, "axis": "horizontal", "templates": True},
                     starts=[0, 10, 13])
        sb = b["session"]
        assert (b["count"], b["sections"], b["contentLength"], b["templatesQueued"]) == (43, 3, 4560, 0), b
        assert d.state(sb)["visible"] == rows(0, 0, 4), "items intersecting [0, 400) along x"
        d.call("range.willBeginDragging", {"session": sb, "offset": 0})
        for x in (300, 900, 1300):
            assert d.call("range.didScroll", {"session": sb, "offset": x})["direction"] == "right"
        assert d.state(sb)["visible"] == [[1, 1], [1, 2], [2, 0], [2, 1]], "items intersecting [1300, 1700)"
        target = d.call("range.willEndDragging", {"session": sb, "velocity": 1.2, "offset": 1350})["targetOffset"]
        d.call("range.didScroll", {"session": sb, "offset": 1600})
        d.call("range.didEndDecelerating", {"session": sb, "offset": target})
        wide = d.call("range.setViewport", {"session": sb, "viewport": {"width": 600, "height": 300}})
        assert wide["offset"] == target, wide
        d.call("range.setViewport", {"session": sb, "width": 500, "height": 320})
        d.call("range.willBeginDragging", {"session": sb, "offset": target})
        assert d.call("range.didScroll", {"session": sb, "offset": 1500})["direction"] == "left"
        d.call("range.didEndDecelerating", {"session": sb, "offset": 1400})

        # D: content shorter than the viewport, not visible: a batch all the same (docs/ranges.md).
        mark = len(d.batches)
        small = d.create({"count": 2, "itemLength": 100, "viewport": {"width": 375, "height": 667}, "visible": False},
                         starts=[0])
        sd = small["session"]
        assert [(e["session"], e["prepend"]) for e in d.batches[mark:]] == [(sd, False)], d.batches[mark:]
        assert small["batchInFlight"] == d.batches[-1]["context"] and small["visible"] is False, small
        assert d.state(sd)["visible"] == []
        # Nothing more to load: an exhausted backend is not asked again (Texture runs no check after a
        # change with zero changes), although the content is still short.
        mark = len(d.batches)
        again = d.call("range.batchFetchDone", {"session": sd, "context": small["batchInFlight"]})
        assert again["count"] == 2 and again["batchInFlight"] is None, again
        assert d.batches[mark:] == [], d.batches[mark:]

        # A memory warning: visible sessions drop to visibleOnly, the others to lowMemory.
        warning = d.call("host.memoryWarning", {"level": "critical"})
        assert warning["purged"]["rangeSessions"] >= 3, warning
        for s in (sa, sb):
            st = d.state(s)
            assert st["mode"] == "visibleOnly" and st["preload"] == st["display"] == st["visible"] != [], st
        assert d.state(sd)["mode"] == "lowMemory"
        # Hiding is not a memory warning: the invisible session was in minimum until now, so it changes too.
        last = {e["session"]: e for e in d.ranges[-3:]}
        assert set(last) == {sa, sb, sd}, d.ranges[-3:]
        assert last[sa]["mode"] == last[sb]["mode"] == "visibleOnly" and last[sd]["mode"] == "lowMemory", d.ranges[-3:]

        # Inserts and deletes on A, at rest at 1500 (rows 30..41 visible): two short items among the visible ones
        # (not at a range's edge: test_violation_range_events_list_each_path_once), then an item outside every range
        # (no event), then deletes.
        inserted = d.call("range.insertItems", {"session": sa, "at": [0, 35], "lengths": [20, 20]}, structural=True)
        assert (inserted["count"], inserted["contentLength"]) == (202, 10040), inserted
        event = d.ranges[-1]
        assert event["session"] == sa and event["enter"]["visible"] == [[0, 35], [0, 36]], event
        before = len(d.ranges)
        d.call("range.insertItems", {"session": sa, "at": [0, 190], "lengths": [50]}, structural=True)
        assert len(d.ranges) == before, f"nothing entered or left a range: {d.ranges[before:]}"
        deleted = d.call("range.deleteItems", {"session": sa, "paths": [[0, 36], [0, 35], [0, 200]]}, structural=True)
        assert deleted["count"] == 200, deleted
        event = d.ranges[-1]
        assert event["session"] == sa and sorted(event["removed"]) == [[0, 35], [0, 36]], event
        assert d.call("range.deleteItems", {"session": sa, "paths": []}, structural=True)["count"] == 200
        items = d.call("range.state", {"session": sa, "paths": [[0, 30], [0, 0], [0, 199]]})
        # The warning's visibleOnly lasted one update (Texture): the insert's update is full again, and
        # full, up at 1500 preloads up to row 0.
        assert [(i["path"], i["visible"], i["display"], i["preload"]) for i in items["items"]] == \
            [([0, 30], True, True, True), ([0, 0], False, False, True), ([0, 199], False, False, False)], items
        d.call("range.willBeginDragging", {"session": sa, "offset": 1500})
        assert d.state(sa)["mode"] == "full", "the next drag while visible ends the memory warning's mode"
        d.call("range.didEndDecelerating", {"session": sa, "offset": 1500})

        # C: a batch cycle appending (Texture's rule, 3 screens): one at create, done while the new items are
        # beyond the ranges (items landing at a range's edge: test_violation_range_events_list_each_path_once);
        # another on a fling toward the end, done before the motion gets there; none while one is in flight.
        mark = len(d.batches)
        cc = d.create({"count": 40, "itemLength": 50, "viewport": {"width": 375, "height": 600},
                       "batch": {"leadingScreens": 3}}, starts=[0])
        sc = cc["session"]
        assert [(e["session"], e["prepend"]) for e in d.batches[mark:]] == [(sc, False)], d.batches[mark:]
        assert cc["batchInFlight"] == d.batches[-1]["context"], cc
        done = d.call("range.batchFetchDone", {"session": sc, "context": cc["batchInFlight"], "lengths": [50] * 20},
                      structural=True)
        assert (done["count"], done["contentLength"], done["batchInFlight"]) == (60, 3000, None), done
        d.call("range.willBeginDragging", {"session": sc, "offset": 0})
        d.call("range.didScroll", {"session": sc, "offset": 200})
        mark = len(d.batches)
        flung = d.call("range.willEndDragging", {"session": sc, "velocity": 5})
        assert flung["targetOffset"] == 2400, "clamped to contentLength - L"
        assert [(e["session"], e["prepend"]) for e in d.batches[mark:]] == [(sc, False)], d.batches[mark:]
        context = d.batches[-1]["context"]
        d.call("range.didScroll", {"session": sc, "offset": 300})
        assert len(d.batches) == mark + 1, "no batch while one is in flight"
        done = d.call("range.batchFetchDone", {"session": sc, "context": context, "lengths": [50] * 10},
                      structural=True)
        assert (done["count"], done["batchInFlight"]) == (70, None), done
        d.call("range.didScroll", {"session": sc, "offset": 2400})
        d.call("range.didEndDecelerating", {"session": sc, "offset": 2400})

        # P: prepending (3 screens): down to 3000, back up, a fling toward the head; the batch is done while the
        # new items are beyond the ranges, and what is on screen stays.
        mark = len(d.batches)
        pp = d.create({"count": 100, "itemLength": 50, "viewport": {"width": 375, "height": 600},
                       "batch": {"leadingScreens": 3, "prepend": True}}, starts=[0])
        sp = pp["session"]
        assert pp["batchInFlight"] is None and len(d.batches) == mark, pp
        d.call("range.willBeginDragging", {"session": sp, "offset": 0})
        for x in (1500, 3000, 2600):
            d.call("range.didScroll", {"session": sp, "offset": x})
        d.call("range.willEndDragging", {"session": sp, "velocity": -1, "targetOffset": 1700})
        assert [(e["session"], e["prepend"]) for e in d.batches[mark:]] == [(sp, True)], d.batches[mark:]
        d.call("range.didScroll", {"session": sp, "offset": 2000})
        on_screen = d.state(sp)["visible"]
        done = d.call("range.batchFetchDone", {"session": sp, "context": d.batches[-1]["context"],
                                                "lengths": [60] * 5}, structural=True)
        assert (done["count"], done["offset"], done["batchInFlight"]) == (105, 2300, None), done
        assert d.state(sp)["visible"] == [[0, r + 5] for _, r in on_screen], "the prepended items go above the screen"
        d.call("range.didEndDecelerating", {"session": sp, "offset": 2300})

        # Teardown: destroyed sessions are gone (a batch in flight is forgotten).
        for s in (sa, sb, sc, sp, sd):
            assert d.call("range.destroy", {"session": s}) == {"session": s, "destroyed": True}
        check_error(c.request("range.state", {"session": sa}), "range.state", -32002, "destroyed session")
        stats = c.call("host.stats")
        check(method_result_ref("host.stats"), stats, "host.stats result")
        assert stats["sessions"]["range"] == stats_before["sessions"]["range"], stats["sessions"]
        assert stats["sessions"]["rangeTracking"] == 0, stats["sessions"]

        notes = c.notifications
        for n in notes:
            check_notification(n)
        seqs = [n["params"]["seq"] for n in notes]
        assert seqs == list(range(1, len(seqs) + 1)), f"seq counts from 1 on this connection: {seqs}"
        kinds = {n["params"]["kind"] for n in notes if n["method"] == "prefetch"}
        assert kinds == {"prefetchItems", "cancelPrefetching"}, kinds
        modes = {n["params"]["mode"] for n in notes if n["method"] == "range"}
        assert {"minimum", "full", "visibleOnly"} <= modes, modes
        directions = {n["params"]["direction"] for n in notes if n["method"] == "range"}
        assert directions == {"up", "down", "left", "right"}, directions
        assert any("removed" in n["params"] for n in notes if n["method"] == "range")
        assert {e["prepend"] for e in d.batches} == {True, False}
        assert len(out_of_order_errors) == 4
    finally:
        c.close()


def test_range_session_errors_match_the_document(schema_host: Host, conn: Conn) -> None:
    """Errors that need a live session or a lookup (offsets out of range, missing or bad members, paths that are not
    items, a context that is not the batch in flight, unknown and foreign sessions, range.create's cross-member
    rules): each an ErrorObject with a code the method lists and `data.path` naming the field; none of them changes
    the session. Out-of-order calls are -32003 with `data.call` and `data.phase`."""
    s = conn.call("range.create", {"count": 100, "itemLength": 44, "viewport": VP})["session"]  # L 667, content 4400
    before = conn.call("range.state", {"session": s})
    other = schema_host.connect()
    try:
        foreign = other.call("range.create", {"count": 3, "viewport": VP})["session"]
        cases = [
            ("range.willBeginDragging", {"session": s, "offset": 4401}, -32602, "offset"),
            ("range.willBeginDragging", {"session": s, "offset": "top"}, -32602, "offset"),
            ("range.didScroll", {"session": s}, -32602, "offset"),
            ("range.didScroll", {"session": s, "offset": -668}, -32602, "offset"),
            ("range.willEndDragging", {"session": s}, -32602, "velocity"),
            ("range.willEndDragging", {"session": s, "velocity": "fast"}, -32602, "velocity"),
            ("range.willEndDragging", {"session": s, "velocity": 1, "targetOffset": "end"}, -32602, "targetOffset"),
            ("range.willEndDragging", {"session": s, "velocity": 1, "offset": 1e9}, -32602, "offset"),
            ("range.didEndDecelerating", {"session": s, "offset": 1e9}, -32602, "offset"),
            ("range.setVisible", {"session": s}, -32602, "visible"),
            ("range.setVisible", {"session": s, "visible": "yes"}, -32602, "visible"),
            ("range.setViewport", {"session": s}, -32602, "width"),
            ("range.setViewport", {"session": s, "width": 320}, -32602, "height"),
            ("range.setViewport", {"session": s, "width": 320, "height": 0}, -32602, "height"),
            ("range.setViewport", {"session": s, "viewport": {"width": -1, "height": 480}}, -32602, "viewport.width"),
            ("range.setViewport", {"session": s, "viewport": {"width": 320}}, -32602, "viewport.height"),
            ("range.insertItems", {"session": s, "lengths": [44]}, -32602, "at"),
            ("range.insertItems", {"session": s, "at": [0], "lengths": [44]}, -32602, "at"),
            ("range.insertItems", {"session": s, "at": [1, 0], "lengths": [44]}, -32602, "at[0]"),
            ("range.insertItems", {"session": s, "at": [0, 101], "lengths": [44]}, -32602, "at[1]"),
            ("range.insertItems", {"session": s, "at": [0, -1], "lengths": [44]}, -32602, "at[1]"),
            ("range.insertItems", {"session": s, "at": [0, 1.5], "lengths": [44]}, -32602, "at[1]"),
            ("range.insertItems", {"session": s, "at": [0, 0]}, -32602, "lengths"),
            ("range.insertItems", {"session": s, "at": [0, 0], "lengths": []}, -32602, "lengths"),
            ("range.insertItems", {"session": s, "at": [0, 0], "lengths": [44, -1]}, -32602, "lengths[1]"),
            ("range.deleteItems", {"session": s}, -32602, "paths"),
            ("range.deleteItems", {"session": s, "paths": [[0, 1], [0, 100]]}, -32602, "paths[1]"),
            ("range.deleteItems", {"session": s, "paths": [[0, 1], [0]]}, -32602, "paths[1]"),
            ("range.deleteItems", {"session": s, "paths": [[0, 1], [0, 1]]}, -32602, "paths"),
            ("range.batchFetchDone", {"session": s}, -32602, "context"),
            ("range.batchFetchDone", {"session": s, "context": "b-999999"}, -32602, "context"),
            ("range.batchFetchDone", {"session": s, "context": "b-999999", "lengths": [-1]}, -32602, "lengths[0]"),
            ("range.state", {"session": s, "paths": [[0, 1], [1, 0]]}, -32602, "paths[1]"),
            ("range.state", {"session": s, "paths": "all"}, -32602, "paths"),
            ("range.create", {"lengths": [44, 44], "count": 3, "viewport": VP}, -32602, "count"),
            ("range.create", {"sections": [{"count": 3, "lengths": [44, 44]}], "viewport": VP}, -32602,
             "sections[0].count"),
            ("range.create", {"sections": [{"count": 3}], "count": 3, "viewport": VP}, -32602, "sections"),
            ("range.create", {"sections": [{"count": 3}], "lengths": [44], "viewport": VP}, -32602, "sections"),
            ("range.state", {"session": "r-999999"}, -32002, "session"),
            ("range.didScroll", {"session": "r-999999", "offset": 0}, -32002, "session"),
            ("range.destroy", {"session": "r-999999"}, -32002, "session"),
            ("range.state", {"session": foreign}, -32002, "session"),
            ("range.batchFetchDone", {"session": foreign, "context": "b-1"}, -32002, "session"),
        ]
        for method, params, code, path in cases:
            error = check_error(conn.request(method, params), method, code, f"{method} {json.dumps(params)}")
            assert error["data"].get("path") == path, error
        # Params are checked first (a bad targetOffset is -32602 in any phase); valid ones out of order are -32003.
        for method, params in [("range.willEndDragging", {"session": s, "velocity": 1, "targetOffset": 100}),
                               ("range.didEndDecelerating", {"session": s})]:
            error = check_error(conn.request(method, params), method, -32003, "out of order")
            assert (error["data"]["call"], error["data"]["phase"]) == (method, "idle"), error
        assert conn.call("range.state", {"session": s}) == before
        info = conn.call("range.setVisible", {"session": s, "visible": True})
        assert (info["count"], info["offset"], info["phase"], info["mode"]) == (100, 0, "idle", "minimum"), info
        # While dragging, the target offset is checked too (and the drag goes on).
        conn.call("range.willBeginDragging", {"session": s})
        error = check_error(conn.request("range.willEndDragging", {"session": s, "velocity": 1, "targetOffset": 1e9}),
                            "range.willEndDragging", -32602, "target offset out of range")
        assert error["data"]["path"] == "targetOffset", error
        assert conn.call("range.willEndDragging", {"session": s, "velocity": 0, "targetOffset": 100}) == \
            {"session": s, "targetOffset": 100}
        assert other.call("range.destroy", {"session": foreign}) == {"session": foreign, "destroyed": True}
    finally:
        other.close()


def test_positional_params_of_range_methods(conn: Conn) -> None:
    # The documented order is the host's (null, by position, stands for an absent param).
    order = {
        "range.create": ["count", "itemLength", "lengths", "sections", "viewport", "axis", "tuning", "batch", "strategy",
                         "lazy", "visible", "templates", "cells", "data", "keys", "viewability", "parent", "page", "layout"],
        "range.willBeginDragging": ["session", "offset", "velocity"],
        "range.didScroll": ["session", "offset", "velocity"],
        "range.willEndDragging": ["session", "velocity", "targetOffset", "offset"],
        "range.didEndDecelerating": ["session", "offset"],
        "range.setVisible": ["session", "visible"],
        "range.setViewport": ["session", "viewport", "width", "height"],
        "range.insertItems": ["session", "at", "lengths", "data", "keys", "keepOnScreen"],
        "range.deleteItems": ["session", "paths"],
        "range.batchFetchDone": ["session", "context", "lengths", "keys"],
        "range.state": ["session", "paths"],
        "range.setItemData": ["session", "items"],
        "range.destroy": ["session"],
        "range.performBatchUpdates": ["session", "updates"],
        "range.applySnapshot": ["session", "sections"],
    }
    assert sorted(order) == sorted(m for m in METHODS if m.startswith("range."))
    for method, names in order.items():
        assert [p["name"] for p in METHODS[method]["params"]] == names, method

    def call(method: str, params: list[Any]) -> Any:
        result = conn.call(method, params)
        check(method_result_ref(method), result, f"{method} result")
        return result

    created = call("range.create", [40, 50, None, None, {"width": 320, "height": 480}, "horizontal", None,
                                    {"leadingScreens": 1}, "ranges", False, True, True])
    s = created["session"]
    assert (created["count"], created["contentLength"], created["direction"], created["templatesQueued"]) == \
        (40, 2000, "right", 0), created
    assert call("range.willBeginDragging", [s, 0])["phase"] == "dragging"
    assert call("range.didScroll", [s, 100]) == {"session": s, "mode": "full", "direction": "right"}
    assert call("range.willEndDragging", [s, 0.5, 600, 150]) == {"session": s, "targetOffset": 600}
    assert call("range.didEndDecelerating", [s, 600])["offset"] == 600
    assert call("range.setVisible", [s, False])["visible"] is False
    assert call("range.setVisible", [s, True])["visible"] is True
    call("range.setViewport", [s, None, 300, 480])
    assert call("range.insertItems", [s, [0, 0], [10, 10]])["count"] == 42
    assert call("range.deleteItems", [s, [[0, 0]]])["count"] == 41
    error = check_error(conn.request("range.batchFetchDone", [s, "b-999999", [50]]), "range.batchFetchDone", -32602,
                        "positional context")
    assert error["data"]["path"] == "context", error
    items = call("range.state", [s, [[0, 1]]])
    assert [i["path"] for i in items["items"]] == [[0, 1]], items
    assert set(call("range.state", [s])) == {"mode", "direction", "visible", "display", "preload"}
    assert call("range.destroy", [s]) == {"session": s, "destroyed": True}


# ---------------------------------------------------------------- plugin crashes


def test_plugin_crash_events_and_errors_match_the_document(schema_host: Host) -> None:
    """A plugin worker's crash, restart and being marked failed: the -32004 on the call in flight, the `host`
    events and `plugins.restart`'s errors are what the document says."""
    c = schema_host.connect()
    try:
        c.call("events.subscribe", {"topics": ["host"]})
        box = c.call("container.create", {"class": "Crashy"})["container"]
        error = check_error(c.request("container.configure", {"container": box, "data": {"crash": "exit", "status": 4}}),
                            "container.configure", -32004, "a worker that exits")
        assert error["data"]["reason"] == "exited" and error["data"]["exitStatus"] == 4
        crashed = c.wait_notification(lambda n: n["method"] == "host" and n["params"]["kind"] == "pluginCrashed")
        check_notification(crashed)
        box = c.call("container.create", {"class": "Crashy"})["container"]  # the first crash restarts at once
        check_notification(c.wait_notification(lambda n: n["method"] == "host" and n["params"]["kind"] == "pluginRestarted"))
        error = check_error(c.request("container.configure", {"container": box, "data": {"crash": "oversize", "bytes": 2 << 20}}),
                            "container.configure", -32004, "oversized output")
        assert error["data"]["reason"] == "outputTooLarge"
        check_error(c.request("plugins.restart", {"plugin": "none-such"}), "plugins.restart", -32602, "an unknown plugin")
        check(method_result_ref("host.stats"), c.call("host.stats"), "host.stats after a crash")
        check(method_result_ref("host.info"), c.call("host.info"), "host.info after a crash")
    finally:
        c.close()
