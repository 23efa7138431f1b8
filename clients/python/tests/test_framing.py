"""Framing: the same messages come out whatever the slicing of the byte stream."""

from __future__ import annotations

import json

import pytest

from greenroom.framing import InvalidFrame, LineDecoder, decode_line, encode_message

MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "result": {"pong": True}},
    {"jsonrpc": "2.0", "method": "lifecycle", "params": {"seq": 1, "t": 0.5, "hook": "viewDidLoad", "name": "é✓😀"}},
    [{"jsonrpc": "2.0", "id": 2, "result": 1}, {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "m"}}],
    {"jsonrpc": "2.0", "id": 4, "result": {"text": "line\nbreak \u2028 sep", "big": "x" * 70000}},
]
STREAM = b"".join(encode_message(m) for m in MESSAGES)


def feed_all(chunks: list[bytes]) -> list:
    decoder = LineDecoder()
    out = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    assert decoder.pending == 0
    return out


def test_encode_is_one_compact_line():
    data = encode_message({"a": [1, 2], "s": "x\ny\r\u2028"})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert b" " not in data
    assert json.loads(data) == {"a": [1, 2], "s": "x\ny\r\u2028"}


def test_encode_refuses_nan():
    with pytest.raises(ValueError):
        encode_message({"x": float("nan")})


def test_whole_stream_at_once():
    assert feed_all([STREAM]) == MESSAGES


def test_byte_by_byte():
    assert feed_all([STREAM[i : i + 1] for i in range(len(STREAM))]) == MESSAGES


def test_message_by_message():
    assert feed_all([encode_message(m) for m in MESSAGES]) == MESSAGES


@pytest.mark.parametrize("size", [2, 3, 7, 100, 4096, 65536])
def test_fixed_size_chunks(size):
    # Multi-byte UTF-8 characters get cut in half by some of these sizes.
    assert feed_all([STREAM[i : i + size] for i in range(0, len(STREAM), size)]) == MESSAGES


def test_crlf_and_blank_lines_are_accepted():
    data = b'{"a":1}\r\n\r\n\n   \n{"b":2}\n'
    assert feed_all([data]) == [{"a": 1}, {"b": 2}]
    assert feed_all([data[i : i + 1] for i in range(len(data))]) == [{"a": 1}, {"b": 2}]


def test_incomplete_line_is_held_back():
    decoder = LineDecoder()
    assert decoder.feed(b'{"a":') == []
    assert decoder.pending == 5
    assert decoder.feed(b"1}") == []
    assert decoder.feed(b"\n{") == [{"a": 1}]
    assert decoder.pending == 1


def test_invalid_line_keeps_its_place():
    out = feed_all([b'{"a":1}\nnot json\n\xff\xfe\n{"b":2}\n'])
    assert out[0] == {"a": 1} and out[3] == {"b": 2}
    assert isinstance(out[1], InvalidFrame) and out[1].line == b"not json"
    assert isinstance(out[2], InvalidFrame) and out[2].line == b"\xff\xfe"


def test_decode_line_accepts_any_json_value():
    assert decode_line(b"42") == 42
    assert decode_line(b"[]") == []
    assert isinstance(decode_line(b""), InvalidFrame)


def test_long_line_fed_byte_by_byte_is_linear():
    # 1 MiB fed in 1-byte pieces must not rescan the buffer each time.
    payload = encode_message({"x": "y" * (1 << 20)})
    decoder = LineDecoder()
    out = []
    for i in range(0, len(payload), 1):
        out.extend(decoder.feed(payload[i : i + 1]))
    assert out == [{"x": "y" * (1 << 20)}]


@pytest.mark.parametrize("data", [b'{"a":1}\n', b'{"a":1}\r\n', b"\n", b"  \r\n", b"\r\n", b"nope\n", b'{"a":1}\n\n'])
def test_one_line_in_one_read_is_what_the_buffered_path_gives(data):
    buffered = LineDecoder()
    assert buffered.feed(b"[") == []
    assert buffered.feed(b"0]\n" + data)[1:] == LineDecoder().feed(data)


def test_whole_lines_in_one_read_decode_as_the_buffered_path_does():
    # A read that ends on a newline with nothing held back is cut without the buffer (the common read);
    # the same bytes after a held-back half line go through it. Both give the same messages and frames.
    data = b'{"a":1}\r\n\r\n  \nnot json\n\xff\n[1,2]\n'
    direct = LineDecoder().feed(data)
    buffered = LineDecoder()
    assert buffered.feed(b'{"z":') == []
    assert buffered.feed(b'0}\n' + data) == [{"z": 0}, *direct]
    assert direct[:1] == [{"a": 1}] and direct[3] == [1, 2]
    assert [type(m.line) for m in direct if isinstance(m, InvalidFrame)] == [bytes, bytes]


class Method(str):
    pass


# Requests and notifications as the endpoint makes them (their envelope is written directly), and shapes that
# look like them but must go through the encoder whole.
ENVELOPES = [
    {"jsonrpc": "2.0", "id": 1, "method": "host.ping"},
    {"jsonrpc": "2.0", "id": 2**62, "method": "page.didScroll", "params": {"session": "p-1", "offset": 120.0}},
    {"jsonrpc": "2.0", "id": 3, "method": "clock.advance", "params": [16]},
    {"jsonrpc": "2.0", "id": 4, "method": "m\"é\n\u2028😀", "params": {"s": "\x00\x1f\u2029"}},
    {"jsonrpc": "2.0", "method": "page.didScroll", "params": {"offset": -0.0}},
    {"jsonrpc": "2.0", "method": "host.ping"},
    {"jsonrpc": "2.0", "id": True, "method": "host.ping"},
    {"jsonrpc": "2.0", "id": "7", "method": "host.ping"},
    {"jsonrpc": "2.0", "id": None, "method": "host.ping"},
    {"id": 1, "jsonrpc": "2.0", "method": "host.ping"},
    {"jsonrpc": "2.0", "id": 1, "method": "host.ping", "params": None, "extra": 1},
    {"jsonrpc": "1.0", "id": 1, "method": "host.ping"},
    {"jsonrpc": "2.0", "id": 1, "method": Method("host.ping")},
    {"jsonrpc": "2.0", "id": 1, "method": 5},
]


@pytest.mark.parametrize("message", [*MESSAGES, *ENVELOPES, {"s": "\x00\x1f\u2029\ud7ff", "n": -1.5e300, "e": [],
                                                             "o": {}}])
def test_encode_is_json_dumps_compact(message):
    expected = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert encode_message(message) == expected.encode("utf-8") + b"\n"


def test_encode_refuses_what_json_dumps_refuses_inside_params():
    for params in ({"x": float("inf")}, {"x": object()}):
        message = {"jsonrpc": "2.0", "id": 1, "method": "m", "params": params}
        with pytest.raises((ValueError, TypeError)) as direct:
            json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        with pytest.raises(direct.type, match=str(direct.value)[:20]):
            encode_message(message)
    circular: dict = {}
    circular["self"] = circular
    with pytest.raises(ValueError, match="Circular reference"):
        encode_message({"jsonrpc": "2.0", "method": "m", "params": circular})
