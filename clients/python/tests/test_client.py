"""The sync Client over an in-memory transport and over the fake host's socket."""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest
from fakes import ScriptedTransport, bytewise, error_reply, event, line, reply

import greenroom
from greenroom import Client, Event
from greenroom.errors import (
    ConnectError,
    ConnectionClosed,
    InvalidParams,
    LimitExceeded,
    MethodNotFound,
    ProtocolError,
    RequestTimeout,
    RPCError,
    UnknownObject,
    VirtualClockOnly,
)
from greenroom.framing import encode_message


def scripted(respond=None) -> tuple[Client, ScriptedTransport]:
    transport = ScriptedTransport(respond)
    return Client(transport=transport), transport


# -- over the in-memory transport ---------------------------------------------


def test_call_sends_a_request_and_returns_the_result():
    client, transport = scripted(lambda m: [reply(m, {"pong": True})])
    assert client.call("host.ping") == {"pong": True}
    assert client.call("clock.advance", {"ms": 16}) == {"pong": True}
    assert transport.sent == [
        {"jsonrpc": "2.0", "id": 1, "method": "host.ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "clock.advance", "params": {"ms": 16}},
    ]


def test_reply_fed_byte_by_byte():
    client, _ = scripted(lambda m: bytewise(event("host", 1, kind="x") + reply(m, {"ms": 1.5, "mode": "virtual"})))
    assert client.call("clock.now") == {"ms": 1.5, "mode": "virtual"}
    assert [e.params["kind"] for e in client.events(timeout=0)] == ["x"]


def test_many_lines_in_one_chunk_with_crlf():
    def respond(m):
        data = event("page", 1, i=0) + event("page", 2, i=1) + reply(m, "done") + event("page", 3, i=2)
        return [data.replace(b"\n", b"\r\n")]

    client, _ = scripted(respond)
    assert client.call("page.show") == "done"
    # The event after the reply was decoded in the same read: it is queued, not lost.
    assert [e.seq for e in client.events("page", timeout=0)] == [1, 2, 3]


def test_events_before_the_reply_are_queued_in_order():
    client, _ = scripted(
        lambda m: (
            [event("lifecycle", s, hook=h) for s, h in enumerate(["init", "loadView", "viewDidLoad"], 1)]
            + [reply(m, {})]
        )
    )
    client.call("showRendered")
    events = list(client.events(timeout=0))
    assert [(e.topic, e.seq, e["hook"]) for e in events] == [
        ("lifecycle", 1, "init"),
        ("lifecycle", 2, "loadView"),
        ("lifecycle", 3, "viewDidLoad"),
    ]
    assert all(isinstance(e, Event) for e in events)
    assert list(client.events(timeout=0)) == []


def test_handlers_run_in_order_before_call_returns():
    seen = []
    client, _ = scripted(
        lambda m: [event("lifecycle", 1, hook="a"), event("pool", 2), event("lifecycle", 3, hook="b"), reply(m, "ok")]
    )

    @client.on("lifecycle")
    def on_lifecycle(params):
        seen.append(params["hook"])

    assert on_lifecycle.__name__ == "on_lifecycle"  # the decorator returns the function
    assert client.call("x") == "ok"
    assert seen == ["a", "b"]
    # The pool event had no handler: it waits in the queue.
    assert [e.topic for e in client.events(timeout=0)] == ["pool"]


def test_handler_may_call_the_client_again():
    order = []

    def respond(m):
        if m["method"] == "outer":
            return [event("page", 1) + reply(m, "outer-result") + event("page", 2)]
        return [reply(m, "inner-result")]

    client, _ = scripted(respond)
    client.on("page", lambda params: order.append((params["seq"], client.call("inner"))))
    assert client.call("outer") == "outer-result"
    # Event 2 arrived while handler 1 was waiting for "inner": its handler ran
    # after handler 1 returned, not inside it.
    assert order == [(1, "inner-result"), (2, "inner-result")]


def test_failing_handler_is_logged_and_the_call_still_returns(caplog):
    client, _ = scripted(lambda m: [event("page", 1), reply(m, 42)])
    client.on("page", lambda params: 1 / 0)
    with caplog.at_level(logging.ERROR, logger="greenroom"):
        assert client.call("x") == 42
    assert "ZeroDivisionError" in caplog.text


def test_off_and_multiple_handlers():
    calls = []
    client, transport = scripted()
    first = client.on("page", lambda p: calls.append(("first", p["seq"])))
    client.on("page", lambda p: calls.append(("second", p["seq"])))
    transport.feed(event("page", 1))
    assert client.poll_events(0) == 1
    client.off("page", first)
    transport.feed(event("page", 2))
    client.poll_events(0)
    assert calls == [("first", 1), ("second", 1), ("second", 2)]
    client.off("page")
    transport.feed(event("page", 3))
    client.poll_events(0)
    assert [e.seq for e in client.events(timeout=0)] == [3]


def test_poll_events_returns_zero_when_nothing_arrives():
    client, _ = scripted()
    assert client.poll_events(0) == 0


def test_poll_events_counts_events_read_during_calls_once():
    client, transport = scripted(lambda m: [event("page", 1), reply(m, "ok")])
    client.call("x")
    transport.feed(event("page", 2), event("page", 3))
    assert client.poll_events(0) == 3
    assert client.poll_events(0) == 0
    assert [e.seq for e in client.events(timeout=0)] == [1, 2, 3]


def test_events_filters_topics_and_keeps_the_rest_in_order():
    client, transport = scripted()
    transport.feed(event("page", 1), event("range", 2), event("page", 3), event("host", 4))
    assert [e.seq for e in client.events("page", timeout=0)] == [1, 3]
    assert [e.seq for e in client.events(["host", "range"], timeout=0)] == [2, 4]


@pytest.mark.parametrize(
    "code,cls",
    [
        (-32601, MethodNotFound),
        (-32602, InvalidParams),
        (-32002, UnknownObject),
        (-32007, VirtualClockOnly),
        (-32050, RPCError),
    ],
)
def test_error_replies_raise_typed_errors(code, cls):
    client, _ = scripted(lambda m: [error_reply(m, code, "nope", {"kind": "k", "method": m["method"]})])
    with pytest.raises(cls) as caught:
        client.call("some.method")
    assert caught.value.code == code and caught.value.data == {"kind": "k", "method": "some.method"}


def test_batch_returns_results_and_errors_in_order():
    def respond(batch):
        assert isinstance(batch, list)
        replies = [
            {"jsonrpc": "2.0", "id": batch[2]["id"], "error": {"code": -32601, "message": "no"}},
            {"jsonrpc": "2.0", "id": batch[0]["id"], "result": {"pong": True}},
            {"jsonrpc": "2.0", "id": batch[1]["id"], "result": {"ms": 0.0}},
        ]
        return [event("host", 1, kind="k"), line(replies)]

    client, transport = scripted(respond)
    ping, now, missing = client.batch([("host.ping", None), ("clock.now", {}), "nope"])
    assert ping == {"pong": True} and now == {"ms": 0.0}
    assert isinstance(missing, MethodNotFound)
    assert [m["method"] for m in transport.sent[0]] == ["host.ping", "clock.now", "nope"]
    assert [e.topic for e in client.events(timeout=0)] == ["host"]


def test_batch_rejected_whole_raises():
    client, _ = scripted(lambda m: [error_reply(None, -32005, "batch too long", {"kind": "limitExceeded"})])
    with pytest.raises(LimitExceeded):
        client.batch(["a", "b"])


def test_timeout_then_the_late_reply_is_dropped():
    client, transport = scripted()
    with pytest.raises(RequestTimeout):
        client.call("slow", timeout=0)
    transport.respond = lambda m: [reply(m, "fresh")]
    transport.feed(reply({"id": 1}, "late"))
    assert client.call("fast") == "fresh"


def test_default_timeout_from_the_constructor():
    client = Client(transport=ScriptedTransport(), timeout=0.01)
    with pytest.raises(RequestTimeout):
        client.call("slow")


def test_host_hang_up():
    client, transport = scripted(lambda m: [event("host", 1, kind="bye")])
    transport.hang_up()
    with pytest.raises(ConnectionClosed):
        client.call("host.shutdown")
    assert client.closed
    # What arrived before the end can still be read; then iteration stops.
    assert [e["kind"] for e in client.events()] == ["bye"]
    with pytest.raises(ConnectionClosed):
        client.call("host.ping")
    assert client.poll_events(0) == 1  # "bye", read during the call, not yet counted
    with pytest.raises(ConnectionClosed):
        client.poll_events(0)


def test_server_requests_are_refused():
    client, transport = scripted()
    transport.feed(line({"jsonrpc": "2.0", "id": 7, "method": "client.hello"}))
    client.poll_events(0)
    assert transport.sent == [
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {
                "code": -32601,
                "message": "the client handles no requests",
                "data": {"kind": "methodNotFound", "method": "client.hello"},
            },
        }
    ]


def test_invalid_json_rpc_is_logged_and_skipped(caplog):
    client, _ = scripted(lambda m: [line(5), line({"jsonrpc": "2.0", "id": 999, "result": 0}), reply(m, "ok")])
    with caplog.at_level(logging.DEBUG, logger="greenroom"):
        assert client.call("x") == "ok"
    assert "invalid JSON-RPC" in caplog.text and "dropped a reply" in caplog.text


def test_a_line_that_is_not_json_fails_the_waiting_call_at_once(caplog):
    client, transport = scripted(lambda m: [b'{"jsonrpc": "2.0", "id": 1, oops\n'])
    with pytest.raises(ProtocolError, match="not JSON"):
        client.call("x")
    transport.respond = lambda m: [reply(m, "ok")]
    assert client.call("y") == "ok"
    assert "not JSON" in caplog.text


def test_notify_sends_no_id_and_waits_for_nothing():
    client, transport = scripted()
    client.notify("page.didScroll", {"session": "p-1", "offset": 10})
    assert transport.sent == [
        {"jsonrpc": "2.0", "method": "page.didScroll", "params": {"session": "p-1", "offset": 10}}
    ]


def test_subscribe_unsubscribe_and_ping():
    client, transport = scripted(
        lambda m: [reply(m, {"pong": True} if m["method"] == "host.ping" else m.get("params"))]
    )
    assert client.subscribe("host", scope="all") == {"topics": ["host"], "scope": "all"}
    assert client.subscribe(["page", "range"]) == {"topics": ["page", "range"]}
    assert client.unsubscribe(["page"]) == {"topics": ["page"]}
    assert client.ping() is True
    assert [m["method"] for m in transport.sent] == [
        "events.subscribe",
        "events.subscribe",
        "events.unsubscribe",
        "host.ping",
    ]


def test_token_authenticates_first():
    transport = ScriptedTransport(lambda m: [reply(m, {"authenticated": True})])
    Client(transport=transport, token="s3cret")
    assert transport.sent == [{"jsonrpc": "2.0", "id": 1, "method": "host.auth", "params": {"token": "s3cret"}}]


def test_bad_token_closes_and_raises():
    transport = ScriptedTransport(lambda m: [error_reply(m, -32006, "unauthorized", {"kind": "unauthorized"})])
    with pytest.raises(greenroom.Unauthorized):
        Client(transport=transport, token="wrong")
    assert transport.closed


def test_context_manager_closes():
    transport = ScriptedTransport()
    with Client(transport=transport) as client:
        pass
    assert transport.closed and client.closed
    with pytest.raises(ConnectionClosed):
        client.call("host.ping")


# -- over a real socket, against the fake host --------------------------------


def test_connects_by_path_prefix_and_env(fake_host, monkeypatch):
    with Client(fake_host.path) as client:
        assert client.ping()
    with Client("unix:" + fake_host.path) as client:
        assert client.ping()
    monkeypatch.setenv("GREENROOM_SOCKET", fake_host.path)
    with Client() as client:
        assert client.ping()
        assert str(client.address) == f"unix:{fake_host.path}"


def test_connect_error_is_clear(tmp_path):
    with pytest.raises(ConnectError, match="is `greenroom serve` running"):
        Client(str(tmp_path / "nothing.sock"))


def test_thousands_of_events_before_one_reply_keep_seq_order(fake_host):
    with Client(fake_host.path) as client:
        client.subscribe(["page"])
        assert client.call("test.emit", {"topic": "page", "count": 3000, "params": {"pad": "x" * 50}}) == {
            "emitted": 3000
        }
        seqs = [e.seq for e in client.events("page", timeout=0)]
        assert seqs == list(range(1, 3001))


def test_large_messages_cross_the_socket(fake_host):
    blob = "é" * (1 << 20)
    with Client(fake_host.path) as client:
        assert client.call("test.echo", {"blob": blob}) == {"blob": blob}


def test_host_events_to_scope_all_observer(fake_host):
    with Client(fake_host.path) as observer:
        observer.subscribe(["host"], scope="all")
        other = Client(fake_host.path)
        other.ping()
        other.close()
        kinds = []
        for ev in observer.events("host", timeout=5):
            kinds.append(ev["kind"])
            if ev["kind"] == "connectionClosed":
                break
        assert kinds == ["connectionOpened", "connectionClosed"]


def test_batch_limit_over_socket(fake_host):
    fake_host.max_batch = 2
    with Client(fake_host.path) as client:
        assert client.batch(["host.ping", "host.ping"]) == [{"pong": True}] * 2
        with pytest.raises(LimitExceeded):
            client.batch(["host.ping"] * 3)
        assert client.ping()


def test_shutdown_ends_events_iteration(fake_host):
    with Client(fake_host.path) as client:
        client.subscribe("host")
        client.call("host.memoryWarning", {"level": "critical"})
        client.call("host.shutdown")
        events = list(client.events(timeout=5))
        assert [(e["kind"], e["level"]) for e in events] == [("memoryWarning", "critical")]
        with pytest.raises(ConnectionClosed):
            client.ping()


def test_close_from_another_thread_unblocks_a_waiting_call(fake_host):
    client = Client(fake_host.path)
    threading.Timer(0.2, client.close).start()
    started = time.monotonic()
    with pytest.raises(ConnectionClosed):
        client.call("test.sleep", {"s": 5})
    assert time.monotonic() - started < 4


def test_two_threads_share_a_client(fake_host):
    results = []
    with Client(fake_host.path) as client:

        def work(tag):
            for i in range(50):
                results.append(client.call("test.echo", {"tag": tag, "i": i}) == {"tag": tag, "i": i})

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == [True] * 200


def test_encode_roundtrip_sanity():
    assert encode_message({"a": 1}) == b'{"a":1}\n'
    assert os.path.basename(greenroom.default_socket_path({"GREENROOM_SOCKET": "/x/y.sock"})) == "y.sock"
