"""Endpoint: ids, reply matching and classification, with no I/O at all."""

from __future__ import annotations

import pytest

from greenroom.endpoint import Completed, Endpoint, Malformed, Notification, ServerRequest, Unmatched
from greenroom.errors import InvalidParams, InvalidRequest, LimitExceeded, MethodNotFound, ProtocolError


def ok(request_id, result):
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def err(request_id, code, message="m", data=None):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message, "data": data}}


def test_request_messages_and_increasing_ids():
    endpoint = Endpoint()
    _, first = endpoint.request("host.ping")
    _, second = endpoint.request("clock.advance", {"ms": 5})
    _, third = endpoint.request("x", [1, 2])
    assert first == {"jsonrpc": "2.0", "id": 1, "method": "host.ping"}
    assert second == {"jsonrpc": "2.0", "id": 2, "method": "clock.advance", "params": {"ms": 5}}
    assert third["params"] == [1, 2]
    assert endpoint.notification("n", {"a": 1}) == {"jsonrpc": "2.0", "method": "n", "params": {"a": 1}}


def test_params_must_be_structured():
    with pytest.raises(TypeError):
        Endpoint().request("x", 5)
    with pytest.raises(TypeError):
        Endpoint().request(5)  # type: ignore[arg-type]


def test_replies_match_by_id_in_any_order():
    endpoint = Endpoint()
    a, _ = endpoint.request("a")
    b, _ = endpoint.request("b")
    assert endpoint.receive(ok(2, "B")) == [Completed(b)]
    assert not a.done and b.outcome() == "B"
    assert endpoint.receive(ok(1, "A")) == [Completed(a)]
    assert a.outcome() == "A" and endpoint.outstanding == 0


def test_error_reply_raises_typed_error():
    endpoint = Endpoint()
    ticket, _ = endpoint.request("nope")
    endpoint.receive(err(1, -32601, "method not found", {"kind": "methodNotFound", "method": "nope"}))
    with pytest.raises(MethodNotFound) as caught:
        ticket.outcome()
    assert caught.value.data == {"kind": "methodNotFound", "method": "nope"}


def test_null_id_error_fails_the_oldest_request():
    endpoint = Endpoint()
    first, _ = endpoint.request("too.long")
    second, _ = endpoint.request("host.ping")
    assert endpoint.receive(err(None, -32600, "message too long")) == [Completed(first)]
    with pytest.raises(InvalidRequest):
        first.outcome()
    assert not second.done


def test_unknown_ids_and_abandoned_tickets_are_unmatched():
    endpoint = Endpoint()
    ticket, _ = endpoint.request("slow")
    endpoint.abandon(ticket)
    late = ok(1, "late")
    assert endpoint.receive(late) == [Unmatched(late)]
    assert endpoint.receive(ok(99, 1)) == [Unmatched(ok(99, 1))]
    assert endpoint.receive(err(None, -32700)) == [Unmatched(err(None, -32700))]


def test_notification_and_server_request():
    endpoint = Endpoint()
    [note] = endpoint.receive({"jsonrpc": "2.0", "method": "page", "params": {"seq": 1, "t": 2.0, "index": 3}})
    assert isinstance(note, Notification)
    assert note.event.topic == "page" and note.event.seq == 1 and note.event["index"] == 3
    [request] = endpoint.receive({"jsonrpc": "2.0", "id": "x", "method": "client.do"})
    assert isinstance(request, ServerRequest)
    assert request.reply["id"] == "x" and request.reply["error"]["code"] == -32601


@pytest.mark.parametrize(
    "message",
    [5, "x", [], {"id": 1, "result": 1}, {"jsonrpc": "2.0"}, {"jsonrpc": "2.0", "method": 5}],
)
def test_malformed_messages(message):
    [item] = Endpoint().receive(message)
    assert isinstance(item, Malformed)


def test_batch_results_in_call_order_whatever_the_reply_order():
    endpoint = Endpoint()
    ticket, messages = endpoint.batch([("a", {"x": 1}), "b", ("c",)])
    assert [m["method"] for m in messages] == ["a", "b", "c"]
    assert [m["id"] for m in messages] == [1, 2, 3]
    assert "params" not in messages[1] and "params" not in messages[2]
    incoming = endpoint.receive([ok(3, "C"), err(2, -32602, "bad", {"path": "x"}), ok(1, "A")])
    assert incoming == [Completed(ticket)]
    a, b, c = ticket.outcome()
    assert (a, c) == ("A", "C") and isinstance(b, InvalidParams)


def test_batch_rejected_as_a_whole_raises():
    endpoint = Endpoint()
    ticket, _ = endpoint.batch(["a", "b"])
    endpoint.receive(err(None, -32005, "batch too long", {"kind": "limitExceeded"}))
    with pytest.raises(LimitExceeded):
        ticket.outcome()


def test_batch_reply_with_null_id_entry_and_missing_entry():
    endpoint = Endpoint()
    ticket, _ = endpoint.batch(["a", "b", "c"])
    endpoint.receive([ok(1, "A"), err(None, -32600, "bad entry")])
    a, b, c = ticket.outcome()
    assert a == "A" and isinstance(b, InvalidRequest) and isinstance(c, ProtocolError)


def test_empty_batch_is_refused_before_sending():
    with pytest.raises(ValueError):
        Endpoint().batch([])


def test_bad_batch_entry():
    with pytest.raises(ValueError):
        Endpoint().batch([("a", {}, "extra")])


def test_fail_all():
    endpoint = Endpoint()
    one, _ = endpoint.request("a")
    two, _ = endpoint.batch(["b"])
    assert endpoint.fail_all(ProtocolError("gone")) == [one, two]
    for ticket in (one, two):
        with pytest.raises(ProtocolError):
            ticket.outcome()
    assert endpoint.outstanding == 0
