"""JSON-RPC 2.0 batches: an empty batch is one error object (not an array), a batch of notifications gets no
reply at all, a mixed batch one array with replies only for its requests, in request order, invalid entries an
error each, duplicate ids each answered, 256 entries accepted and 257 refused without running any, the events
its entries cause written before the batch reply.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

from grhost import (assert_error, assert_error_reply, assert_next_is_pong, assert_response_shape, encode,
                    next_is_pong, note, req, roundtrip)


def test_empty_batch_is_one_error_object_not_an_array(host):
    c = host.connect()
    r = roundtrip(c, b"[]\n")
    assert not isinstance(r, list), r
    assert_error(r, -32600, id=None)
    next_is_pong(c)


def test_empty_batch_with_whitespace_is_one_error_object(host):
    c = host.connect()
    r = roundtrip(c, b"[ \t ]\r\n")
    assert_error(r, -32600, id=None)
    next_is_pong(c)


def test_batch_of_only_notifications_gets_no_reply_at_all(host):
    c = host.connect()
    c.send([note("host.ping"), note("no.such.method"), note("host.ping", {"bad": 1}),
            note("clock.advance", {"ms": 5})])
    next_is_pong(c)


def test_mixed_batch_is_one_array_with_replies_only_for_requests(host):
    c = host.connect()
    c.send([note("host.ping"), req("host.ping", id="a"), note("nope"), req("nope", id="b"),
            req("host.ping", {"x": 1}, id=7), note("host.stats")])
    r = c.read_json()
    assert isinstance(r, list), r
    by_id = {m["id"]: m for m in r}
    assert len(r) == 3 and set(by_id) == {"a", "b", 7}, r
    assert by_id["a"]["result"] == {"pong": True}
    assert_error(by_id["b"], -32601, kind="methodNotFound")
    assert_error(by_id[7], -32602, path="x")
    next_is_pong(c)


def test_batch_replies_keep_request_order_across_kinds_of_reply(vhost):
    c = vhost.connect()
    batch = [req("host.ping", id=i) if i % 3 == 0 else req("nope", id=i) if i % 3 == 1 else
             req("clock.advance", {"ms": -1}, id=i) for i in range(30)]
    c.send(batch)
    r = c.read_json()
    assert [m["id"] for m in r] == list(range(30)), r
    for i, m in enumerate(r):
        assert_response_shape(m)
        assert ("result" in m) == (i % 3 == 0), m


def test_batch_of_invalid_entries_gets_an_error_per_entry(host):
    c = host.connect()
    r = roundtrip(c, b'[1, "x", null, [], {"jsonrpc":"2.0","method":5}]\n')
    assert isinstance(r, list) and len(r) == 5, r
    for m in r:
        assert_error(m, -32600, id=None)
    next_is_pong(c)


def test_batch_mixing_invalid_entries_and_notifications_answers_only_the_invalid_ones_in_order(host):
    """JSON-RPC §6: notifications in a batch get no Response; an invalid entry gets an error Response with
    id null. Greenroom answers in request order (README: "always run and answered in order")."""
    c = host.connect()
    c.send_raw(b'[{"jsonrpc":"2.0","method":"host.ping"},1,{"jsonrpc":"2.0","method":"nope"},'
               b'{"jsonrpc":"2.0","id":"a","method":"host.ping"},"x",{"jsonrpc":"2.0","method":"host.ping","params":7}]\n')
    r = c.read_json()
    assert isinstance(r, list) and len(r) == 4, r
    for m in r:
        assert_response_shape(m)
    assert_error_reply(r[0], -32600, id=None)
    assert r[1] == {"jsonrpc": "2.0", "id": "a", "result": {"pong": True}}, r
    assert_error_reply(r[2], -32600, id=None)
    assert_error_reply(r[3], -32600, id=None, path="params")  # invalid params member: an invalid Request, no id
    assert_next_is_pong(c)


def test_batch_of_one_request_is_answered_with_a_one_element_array(host):
    c = host.connect()
    r = roundtrip(c, encode([req("host.ping", id="only")]))
    assert r == [{"jsonrpc": "2.0", "id": "only", "result": {"pong": True}}], r


def test_batch_with_one_notification_and_one_request_answers_with_a_one_element_array(host):
    c = host.connect()
    c.send([note("host.ping"), req("host.ping", id=5)])
    assert c.read_json() == [{"jsonrpc": "2.0", "id": 5, "result": {"pong": True}}]
    c.assert_quiet(0.05)


def test_rpc_discover_as_a_notification_gets_no_reply_and_as_a_batch_entry_one(host):
    c = host.connect()
    c.send(note("rpc.discover"))
    assert_next_is_pong(c)
    c.send([req("rpc.discover", id="d"), note("rpc.discover")])
    r = c.read_json(timeout=10)
    assert isinstance(r, list) and len(r) == 1 and r[0]["id"] == "d" and r[0]["result"]["openrpc"].startswith("1.3"), r


def test_batch_with_duplicate_ids_answers_each(host):
    c = host.connect()
    r = roundtrip(c, encode([req("host.ping", id=1), req("host.ping", id=1)]))
    assert isinstance(r, list) and [m["id"] for m in r] == [1, 1], r


def test_batch_of_256_is_accepted_and_257_is_one_error_object(host):
    c = host.connect()
    r = roundtrip(c, encode([req("host.ping", id=i) for i in range(256)]))
    assert isinstance(r, list) and sorted(m["id"] for m in r) == list(range(256))
    r = roundtrip(c, encode([req("host.ping", id=i) for i in range(257)]))
    err = assert_error(r, -32600, id=None, kind="batchTooLarge")
    assert err["data"].get("max") == 256, err
    # None of the 257 ran: the next line is the reply to the next request.
    next_is_pong(c)


def test_batch_of_257_notifications_is_rejected_without_running_any(vhost):
    c = vhost.connect()
    r = roundtrip(c, encode([note("clock.advance", {"ms": 1}) for _ in range(257)]))
    assert_error(r, -32600, id=None, kind="batchTooLarge")
    assert c.result("clock.now")["ms"] == 0


def test_events_caused_by_batch_entries_come_before_the_batch_reply(vhost):
    c = vhost.connect()
    c.send([req("events.subscribe", {"topics": ["host"]}, id="s"), req("host.memoryWarning", id="m"),
            note("host.memoryWarning", {"level": "critical"})])
    first, second, third = c.read_json(), c.read_json(), c.read_json()
    assert first["method"] == "host" and first["params"]["level"] == "critical", first
    assert second["method"] == "host" and second["params"]["level"] == "critical", second
    assert isinstance(third, list) and [m["id"] for m in third] == ["s", "m"], third
    next_is_pong(c)
