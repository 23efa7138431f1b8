"""The host methods of rpc-schema/openrpc.json: host.ping, host.info (version, protocol, clock, classes,
plugins, limits following the flags, methods matching rpc.discover), host.stats (every documented member and
what it counts), host.memoryWarning (levels, what was purged), rpc.discover.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import json
import re

import pytest
from grhost import (MiB, REPO, SCOPE_METHODS, TOPICS, assert_error, encode, nested_ping, next_is_pong, note, req,
                    roundtrip)


def test_host_ping_is_exactly_pong_true(host):
    c = host.connect()
    assert roundtrip(c, encode(req("host.ping", id="p"))) == {"jsonrpc": "2.0", "id": "p", "result": {"pong": True}}


def test_host_info_reports_version_protocol_clock_classes_plugins_limits(vhost):
    c = vhost.connect()
    info = c.result("host.info")
    assert info["name"] == "greenroom"
    assert re.match(r"^\d+\.\d+\.\d+([-+].*)?$", info["version"]), info["version"]
    assert info["protocol"]["jsonrpc"] == "2.0" and isinstance(info["protocol"]["version"], int)
    assert info["protocol"]["version"] >= 1
    assert info["clock"] == "virtual"
    assert info["pid"] == vhost.pid
    assert info["listen"] == [f"unix:{vhost.socket_path}"]
    assert info["classes"][:1] == ["Container"] and len(set(info["classes"])) == len(info["classes"])
    assert info["plugins"] == []
    assert info["limits"] == {"maxMessageBytes": MiB, "maxBatch": 256, "maxDepth": 64, "maxConnections": 1024,
                              "maxOutboundBytes": 8 * MiB, "slowReaderGraceMs": 5000,
                              "outboundHighWaterBytes": MiB, "outboundLowWaterBytes": MiB // 4,
                              "maxUnauthenticated": 64, "maxUnauthenticatedMessageBytes": 4096,
                              "authTimeoutMs": 10000, "maxAuthFailures": 3, "maxBufferedInputBytes": 64 * MiB,
                              "maxWaitingCalls": 1024}
    assert info["methods"] == sorted(info["methods"]) and set(SCOPE_METHODS) <= set(info["methods"])
    assert info["topics"] == TOPICS


def test_host_info_clock_is_real_by_default(host):
    assert host.connect().result("host.info")["clock"] == "real"


def test_host_info_limits_follow_the_flags(start_host):
    host = start_host("--max-message-bytes", "4096", "--max-batch", "7", "--max-depth", "9",
                      "--max-connections", "11", "--max-outbound-bytes", "65536", "--slow-reader-grace-ms", "700",
                      "--max-unauthenticated", "20", "--auth-timeout-ms", "900", "--max-buffered-input-bytes", "50000",
                      "--max-waiting-calls", "13")
    c = host.connect()
    assert c.result("host.info")["limits"] == {"maxMessageBytes": 4096, "maxBatch": 7, "maxDepth": 9,
                                               "maxConnections": 11, "maxOutboundBytes": 65536,
                                               "slowReaderGraceMs": 700, "outboundHighWaterBytes": 32768,
                                               "outboundLowWaterBytes": 8192,
                                               "maxUnauthenticated": 5,  # at most half of --max-connections
                                               "maxUnauthenticatedMessageBytes": 4096, "authTimeoutMs": 900,
                                               "maxAuthFailures": 3, "maxBufferedInputBytes": 50000,
                                               "maxWaitingCalls": 13}
    assert_error(roundtrip(c, encode([req("host.ping", id=i) for i in range(8)])), -32600, id=None, kind="batchTooLarge")
    assert_error(roundtrip(c, nested_ping(10, "d") + b"\n"), -32600, id=None, kind="tooDeep")


def test_host_info_methods_match_rpc_discover(host):
    c = host.connect()
    info = c.result("host.info")
    doc = c.result("rpc.discover")
    assert sorted(m["name"] for m in doc["methods"]) == info["methods"]


def test_host_info_lists_scripted_classes_in_registration_order(host):
    c = host.connect()
    before = c.result("host.info")["classes"]
    c.result("classes.define", {"name": "Zeta"})
    c.result("classes.define", {"name": "Alpha"})
    assert c.result("host.info")["classes"] == before + ["Zeta", "Alpha"]


def test_host_stats_reports_every_documented_member(vhost):
    c = vhost.connect()
    s = c.result("host.stats")
    conns = s["connections"]
    for k in ("open", "accepted", "closed", "closedSlowReader", "rejectedLimit", "rejectedPeer"):
        assert isinstance(conns[k], int) and conns[k] >= 0, (k, s)
    assert conns["open"] == 1 and conns["accepted"] == 1 and conns["closed"] == 0
    assert set(s["containers"]["byState"]) == {"fresh", "disappeared", "appearing", "appeared", "disappearing"}
    assert set(s["pools"]) >= {"count", "idle", "pooledBytes", "budgetBytes"}
    assert set(s["sessions"]) >= {"page", "pageTracking", "range", "rangeTracking"}
    assert set(s["tasks"]) >= {"pending", "runnable", "ran"}
    assert isinstance(s["rssBytes"], int) and s["rssBytes"] > MiB, s["rssBytes"]
    for k in ("requests", "notifications", "batches", "errors", "eventsSent", "memoryWarnings", "timers", "stacks",
              "unbalancedTransitions"):
        assert isinstance(s[k], int) and s[k] >= 0, (k, s)


def test_host_stats_counts_connections_opened_and_closed(host):
    c = host.connect()
    extra = [host.connect() for _ in range(3)]
    for e in extra:
        e.ping()
    s = c.result("host.stats")
    assert s["connections"]["open"] == 4 and s["connections"]["accepted"] == 4, s
    for e in extra:
        e.close()
    s = host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=c)
    assert s["connections"]["closed"] == 3 and s["connections"]["accepted"] == 4, s


def test_host_stats_counts_requests_notifications_batches_errors_and_events(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    s0 = c.result("host.stats")
    c.result("host.ping")
    c.call("nope")
    c.send(note("host.ping"))
    c.send([req("host.ping", id="b1"), note("host.ping")])
    c.read_json()
    c.result("host.memoryWarning")
    s1 = c.result("host.stats")
    d = {k: s1[k] - s0[k] for k in ("requests", "notifications", "batches", "errors", "eventsSent", "memoryWarnings")}
    # requests: ping, nope, b1, memoryWarning, and the second host.stats itself.
    assert d == {"requests": 5, "notifications": 2, "batches": 1, "errors": 1, "eventsSent": 1, "memoryWarnings": 1}, d


def test_host_stats_counts_batches_entries_and_invalid_lines(vhost):
    c = vhost.connect()
    s0 = c.result("host.stats")
    c.send([req("host.ping", id=1), req("nope", id=2), note("host.ping"), 7])
    c.read_json()
    c.send_raw(b"{\n")
    c.read_json()
    c.send_raw(b"[]\n")
    c.read_json()
    s1 = c.result("host.stats")
    d = {k: s1[k] - s0[k] for k in ("requests", "notifications", "batches", "errors")}
    # requests: 1, 2 and the second host.stats; errors: nope, 7, the parse error, the empty batch.
    assert d == {"requests": 3, "notifications": 1, "batches": 2, "errors": 4}, d


def test_stats_errors_count_failed_notifications(vhost):
    """host.stats (rpc-schema/openrpc.json; rpc-schema HostStats.errors: "Error replies (and errors in notifications) so
    far"). A notification to an unknown method or with bad params fails silently on the wire, so the
    counter is the only trace of it: two failed notifications add 2 to errors."""
    c = vhost.connect()
    e0 = c.result("host.stats")["errors"]
    c.send(note("no.such.method"))
    c.send(note("host.ping", {"bad": 1}))
    next_is_pong(c)
    assert c.result("host.stats")["errors"] - e0 == 2


def test_host_stats_counts_containers_by_state_stacks_and_sessions(vhost):
    c = vhost.connect()
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    fresh = c.result("container.create", {"class": "Container"})["container"]
    shown = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": stack, "container": shown})
    c.result("range.create", {"count": 10, "itemLength": 10, "viewport": {"width": 100, "height": 100}})
    s = c.result("host.stats")
    assert s["containers"]["total"] == 2 and s["containers"]["pooled"] == 0, s
    assert s["containers"]["byState"] == {"fresh": 1, "disappeared": 0, "appearing": 0, "appeared": 1, "disappearing": 0}, s
    assert s["stacks"] == 1 and s["sessions"]["range"] == 1 and s["sessions"]["page"] == 0, s
    c.result("container.release", {"container": fresh})
    assert c.result("host.stats")["containers"]["byState"]["fresh"] == 0


def test_memory_warning_is_graded_and_defaults_to_critical(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Heavy", "memoryBytes": 4096})
    c.result("pool.warm", {"class": "Heavy", "count": 3})
    c.result("tasks.drain")
    assert c.result("host.stats")["pools"]["idle"] == 3
    r = c.result("host.memoryWarning", {"level": "warning"})
    assert r["level"] == "warning", r
    assert set(r["purged"]) == {"pooledContainers", "pooledBytes", "notifiedContainers", "pageChildrenReleased",
                                "pageChildrenNotified", "rangeSessions"}, r
    # A warning trims each pool to one idle container; a critical one purges them all.
    assert r["purged"]["pooledContainers"] == 2 and r["purged"]["pooledBytes"] == 2 * 4096, r
    assert c.result("host.stats")["pools"]["idle"] == 1
    # Without a level: UIKit's one warning, answered as the prerendering article does, by emptying the cache.
    default = c.result("host.memoryWarning")
    assert default["level"] == "critical" and default["purged"]["pooledContainers"] == 1, default
    assert c.result("host.stats")["pools"]["idle"] == 0


@pytest.mark.parametrize("level", ["severe", "WARNING", "", 1, True, ["warning"]])
def test_memory_warning_with_a_bad_level_is_32602_and_purges_nothing(vhost, level):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    before = c.result("host.stats")["memoryWarnings"]
    assert_error(c.call("host.memoryWarning", {"level": level}), -32602, kind="invalidParams", path="level")
    assert c.result("host.stats")["memoryWarnings"] == before
    next_is_pong(c)
    assert c.events == []


def test_rpc_discover_returns_the_embedded_openrpc_document(host):
    doc = host.connect().result("rpc.discover", timeout=10)
    assert doc == json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())
    assert doc["openrpc"].startswith("1.3")


def test_listen_addresses_in_the_ready_line_and_host_info_match_the_document(start_host):
    """Every listener's address, as the ready line prints it and host.info gives it (the same list, in the same
    order), fits the document's ListenAddress: a schema-driven fuzz once found `ws:` addresses it refused."""
    import re
    from openrpcdoc import DOC
    pattern = re.compile(DOC["components"]["schemas"]["ListenAddress"]["pattern"])
    h = start_host("--clock", "virtual", "--listen", "tcp:127.0.0.1:0", "--listen", "ws:127.0.0.1:0")
    ready = h.listen
    assert [a.split(":", 1)[0] for a in ready] == ["unix", "tcp", "ws"], ready
    info = h.call("host.info")["result"]
    assert info["listen"] == ready
    for address in ready:
        assert pattern.match(address), address
    assert all(not p.endswith(":0") for p in ready[1:]), "the port really bound, not 0"
