"""Client.record and AsyncClient.record: a transcript of the connection (docs/transcripts.md), written at the
framing layer, over the in-memory transport and the fake host."""

from __future__ import annotations

import asyncio
import json

import pytest
from fakes import ScriptedTransport, bytewise, event, line, reply

from greenroom import Client
from greenroom.aio import AsyncClient
from greenroom.errors import GreenroomError, ProtocolError
from greenroom.framing import LineDecoder
from greenroom.transcript import FORMAT_VERSION, header_from_info

INFO = {"name": "greenroom", "version": "0.1.0", "protocol": {"jsonrpc": "2.0", "version": 1}, "clock": "virtual",
        "pid": 42, "plugins": []}


def host(message):
    """A scripted host: host.info, an event before each clock.advance reply, and the host's own spelling of
    numbers (16.0, as the real host writes a double) that the transcript must keep."""
    if isinstance(message, list):
        return [line([{"jsonrpc": "2.0", "id": m["id"], "result": {"pong": True}} for m in message])]
    method = message.get("method")
    if "id" not in message:
        return []  # a notification: no reply
    if method == "host.info":
        return [reply(message, INFO)]
    if method == "clock.advance":
        ms = message["params"]["ms"]
        return [event("lifecycle", 1, cause=message["id"], container="c-1", event="viewDidAppear"),
                b'{"jsonrpc":"2.0","id":%d,"result":{"now":%d.0,"ms":%d.0,"fired":1}}\n' % (message["id"], ms, ms)]
    return [reply(message, {"pong": True})]


def lines_of(path) -> list[dict]:
    text = path.read_text()
    assert text.endswith("\n"), "every line ends with a newline: a transcript cut off is refused"
    return [json.loads(text_line) for text_line in text.splitlines()]


def test_record_writes_the_header_then_every_message_in_order(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    path = tmp_path / "t.ndjson"
    with client.record(path, comment="made by a test") as recording:
        client.call("events.subscribe", {"topics": ["lifecycle"]})
        client.call("clock.advance", {"ms": 16})
        client.notify("host.ping")
        client.batch([("host.ping", None), ("host.ping", None)])
    assert not recording.active
    entries = lines_of(path)
    assert entries[0] == {"transcript": "greenroom", "version": FORMAT_VERSION, "protocol": 1, "clock": "virtual",
                          "host": "0.1.0"}
    assert entries[1] == {"comment": "made by a test"}
    kinds = [next(iter(e)) for e in entries[2:]]
    assert kinds == ["send", "recv", "send", "recv", "recv", "send", "send", "recv"]
    sends = [e["send"] for e in entries if "send" in e]
    # host.info (asked for the header) is not in it: the transcript starts with the block's first request.
    assert [s["method"] if isinstance(s, dict) else [m["method"] for m in s] for s in sends] == [
        "events.subscribe", "clock.advance", "host.ping", ["host.ping", "host.ping"]]
    assert "id" not in sends[2], "a notification is recorded as sent, without an id"
    assert entries[5]["recv"]["method"] == "lifecycle", "the event comes before the reply it came before"
    assert isinstance(entries[-1]["recv"], list) and len(entries[-1]["recv"]) == 2, "a batch's replies, as one"
    assert recording.messages == 8


def test_recv_lines_keep_the_hosts_own_text(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    path = tmp_path / "t.ndjson"
    with client.record(path):
        assert client.call("clock.advance", {"ms": 16}) == {"now": 16.0, "ms": 16.0, "fired": 1}
    text = path.read_text()
    # Not re-encoded by Python: the host's 16.0 stays 16.0, byte for byte.
    assert '{"recv":{"jsonrpc":"2.0","id":2,"result":{"now":16.0,"ms":16.0,"fired":1}}}\n' in text


def test_a_message_cut_across_reads_is_recorded_whole(tmp_path):
    transport = ScriptedTransport()
    client = Client(transport=transport)
    transport.feed(reply({"id": 1}, INFO))
    path = tmp_path / "t.ndjson"
    with client.record(path):
        transport.feed(*bytewise(event("page", 1, kind="willTransition") + reply({"id": 2}, {"pong": True})))
        assert client.call("host.ping") == {"pong": True}
    recvs = [e["recv"] for e in lines_of(path) if "recv" in e]
    assert [r.get("method", r.get("id")) for r in recvs] == ["page", 2]


def test_only_the_block_is_recorded(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    client.call("host.ping")
    path = tmp_path / "t.ndjson"
    recording = client.record(path)  # without `with`: until stop()
    client.call("clock.advance", {"ms": 1})
    recording.stop()
    recording.stop()  # idempotent
    client.call("clock.advance", {"ms": 2})
    sends = [e["send"] for e in lines_of(path) if "send" in e]
    assert [s["params"]["ms"] for s in sends] == [1]
    assert client._decoder.tap is None, "a stopped recording leaves the client as it was"


def test_the_file_is_complete_when_the_block_raises(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    path = tmp_path / "t.ndjson"
    with pytest.raises(KeyError):
        with client.record(path):
            client.call("host.ping")
            raise KeyError("the test failed")
    assert [next(iter(e)) for e in lines_of(path)[1:]] == ["send", "recv"]
    with client.record(tmp_path / "again.ndjson"):  # and the client may record again
        client.call("host.ping")


def test_one_recording_at_a_time(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    with client.record(tmp_path / "a.ndjson"):
        with pytest.raises(GreenroomError, match="already recording a transcript, to .*a.ndjson"):
            client.record(tmp_path / "b.ndjson")
    assert not (tmp_path / "b.ndjson").exists()


def test_comments_go_where_they_are_written(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    path = tmp_path / "t.ndjson"
    with client.record(path) as recording:
        client.call("host.ping")
        recording.comment("now the swipe")
        client.call("host.ping")
    assert [next(iter(e)) for e in lines_of(path)[1:]] == ["send", "recv", "comment", "send", "recv"]


def test_a_line_that_is_not_json_becomes_a_comment(tmp_path):
    transport = ScriptedTransport()
    client = Client(transport=transport)
    transport.feed(reply({"id": 1}, INFO))
    path = tmp_path / "t.ndjson"
    with client.record(path):
        transport.feed(b"oops, not JSON\n")
        with pytest.raises(ProtocolError):
            client.call("host.ping")
    entries = lines_of(path)
    assert "send" in entries[1] and "not JSON" in entries[2]["comment"] and "oops" in entries[2]["comment"]


def test_the_refusal_of_a_request_from_the_host_is_a_send(tmp_path):
    def respond(message):
        if message.get("method") == "host.info":
            return [reply(message, INFO)]
        if message.get("id") == 2:
            return [line({"jsonrpc": "2.0", "id": "h1", "method": "client.nothing"}), reply(message, {})]
        return []

    transport = ScriptedTransport(respond)
    client = Client(transport=transport)
    path = tmp_path / "t.ndjson"
    with client.record(path):
        client.call("host.ping")
    sends = [e["send"] for e in lines_of(path) if "send" in e]
    assert sends[-1]["id"] == "h1" and sends[-1]["error"]["code"] == -32601


def test_a_failed_write_fails_the_recording_not_the_connection(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    recording = client.record("/dev/full")  # every write to it fails with ENOSPC (when the buffer is flushed)
    for _ in range(3):
        client.call("clock.advance", {"ms": 1})  # the connection goes on
    with pytest.raises(GreenroomError, match="/dev/full is incomplete"):
        recording.stop()
    assert client.call("host.ping") == {"pong": True}


def test_a_file_that_cannot_be_made_is_an_error_at_once(tmp_path):
    client = Client(transport=ScriptedTransport(host))
    with pytest.raises(FileNotFoundError):
        client.record(tmp_path / "no" / "such" / "folder.ndjson")
    with client.record(tmp_path / "fine.ndjson"):  # nothing was left attached
        client.call("host.ping")


def test_header_from_info():
    plugins = [{"name": "counter", "path": "/p/libCounterPlugin.so", "pid": 7, "classes": ["Counter"]}]
    assert header_from_info({**INFO, "clock": "real", "plugins": plugins}) == {
        "transcript": "greenroom", "version": 1, "protocol": 1, "clock": "real", "host": "0.1.0",
        "plugins": [{"name": "counter", "path": "/p/libCounterPlugin.so"}]}
    with pytest.raises(ProtocolError, match="protocol.version or clock"):
        header_from_info({"protocol": "1", "clock": "virtual"})


def test_the_decoder_tap_sees_every_line_in_order():
    decoder = LineDecoder()
    seen = []
    decoder.tap = lambda raw, message: seen.append((raw, message))
    messages = decoder.feed(b'{"a":1}\r\n\n{"b":2}\n{"c"') + decoder.feed(b":3}\n")
    assert messages == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert seen == [(b'{"a":1}', {"a": 1}), (b'{"b":2}', {"b": 2}), (b'{"c":3}', {"c": 3})]


# -- the asyncio client, on the fake host --------------------------------------------------------------


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 20))


def test_async_record_as_a_context_manager(fake_host, tmp_path):
    path = tmp_path / "t.ndjson"

    async def main():
        async with AsyncClient(fake_host.path) as client:
            await client.call("host.ping")  # before: not recorded
            async with client.record(path, comment="async") as recording:
                await client.subscribe("page")
                await client.call("test.emit", {"topic": "page", "count": 2})
                await client.notify("host.ping")
                await client.batch([("host.ping", None)])
            assert not recording.active and recording.messages == 9
            await client.call("host.ping")  # after: not recorded

    run(main())
    entries = lines_of(path)
    assert entries[0]["transcript"] == "greenroom" and entries[0]["host"] == "0.0.0-fake"
    assert entries[1] == {"comment": "async"}
    assert [next(iter(e)) for e in entries[2:]] == ["send", "recv", "send", "recv", "recv", "recv", "send", "send",
                                                     "recv"]
    assert [e["recv"]["method"] for e in entries[5:7]] == ["page", "page"]


def test_async_record_awaited_then_stopped(fake_host, tmp_path):
    path = tmp_path / "t.ndjson"

    async def main():
        async with AsyncClient(fake_host.path) as client:
            pending = client.record(path)
            assert not pending.active
            with pytest.raises(GreenroomError, match="has not started"):
                pending.comment("too soon")
            recording = await pending
            assert recording.active and recording.path == path
            with pytest.raises(GreenroomError, match="already recording"):
                await client.record(tmp_path / "other.ndjson")
            await client.call("clock.advance", {"ms": 16})
            recording.stop()
            await client.call("clock.advance", {"ms": 16})

    run(main())
    sends = [e["send"] for e in lines_of(path) if "send" in e]
    assert [s["method"] for s in sends] == ["clock.advance"]
