"""greenroom.wsbridge's RFC 6455 pieces, bytes in and out: the URL forms it takes, the masked frames it
sends, and the server frames it reads (fragments, control frames between them, what a server may not
send). The bridge as greenroomctl runs it, against a fake and a real host, is tested in
clients/shell/tests/test_greenroomctl_remote.py."""

from __future__ import annotations

import struct

import pytest

from greenroom.wsbridge import Decoder, ProtocolViolation, encode_frame, parse_url


def server(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    n = len(payload)
    size = bytes([n]) if n < 126 else bytes([126]) + struct.pack("!H", n) if n < 1 << 16 else \
        bytes([127]) + struct.pack("!Q", n)
    return bytes([(0x80 if fin else 0) | opcode]) + size + payload


def unmask(frame: bytes) -> tuple[int, bytes]:
    assert frame[1] & 0x80, "a client's frame is masked"
    n, at = frame[1] & 0x7F, 2
    if n == 126:
        (n,), at = struct.unpack_from("!H", frame, 2), 4
    elif n == 127:
        (n,), at = struct.unpack_from("!Q", frame, 2), 10
    key, data = frame[at:at + 4], frame[at + 4:]
    assert len(data) == n
    return frame[0], bytes(b ^ key[i % 4] for i, b in enumerate(data))


def test_urls_in_the_forms_people_have_them():
    assert parse_url("ws://127.0.0.1:8765/rpc") == ("127.0.0.1", 8765, "/rpc", "127.0.0.1:8765")
    assert parse_url("ws:127.0.0.1:8765") == ("127.0.0.1", 8765, "/rpc", "127.0.0.1:8765")  # the ready line's
    assert parse_url("ws://[::1]:9/rpc?token=x") == ("::1", 9, "/rpc?token=x", "[::1]:9")
    assert parse_url("ws://localhost/rpc")[1] == 80
    for bad, why in [("wss://h/rpc", "wss: is not supported"), ("http://h/", "not a ws:// URL"),
                     ("ws://h:99999/rpc", "bad port")]:
        with pytest.raises(ValueError, match=why):
            parse_url(bad)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_frames_are_final_masked_text_of_every_length(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    first, data = unmask(encode_frame(payload))
    assert first == 0x81 and data == payload


def test_the_mask_is_fresh_each_frame_unless_given():
    assert encode_frame(b"abcd", mask=b"\x01\x02\x03\x04") == b"\x81\x84\x01\x02\x03\x04" + bytes(
        [ord("a") ^ 1, ord("b") ^ 2, ord("c") ^ 3, ord("d") ^ 4])
    assert len({encode_frame(b"same")[2:6] for _ in range(8)}) > 1  # os.urandom: equal 8 times is 2^-224


def test_messages_whole_split_and_fragmented_with_control_frames_between():
    decoder = Decoder()
    wire = server(b'{"id":1}') + server(b'[{"a"', fin=False) + server(b"hello", 0x9) + \
        server(b":1}]", 0x0) + server(b"", 0xA) + server(struct.pack("!H", 1000), 0x8)
    got = []
    for i in range(len(wire)):  # a byte at a time: frames cut anywhere
        got += decoder.feed(wire[i:i + 1])
    assert got == [("message", b'{"id":1}'), ("ping", b"hello"), ("message", b'[{"a":1}]'),
                   ("close", b"\x03\xe8")]
    long = b"x" * 70_000
    assert Decoder().feed(server(long)) == [("message", long)]


@pytest.mark.parametrize("wire,why", [
    (bytes([0x81, 0x81, 1, 2, 3, 4, 5]), "masked frame from the server"),
    (server(b"\x00", 0x2), "binary frame"),
    (bytes([0xC1, 0x00]), "reserved bits"),
    (server(b"x", 0x0), "unexpected frame"),
    (server(b"a", fin=False) + server(b"b"), "new message before the last one ended"),
    (server(b"p", 0x9, fin=False), "fragmented or long control frame"),
])
def test_what_a_server_may_not_send_is_a_violation(wire, why):
    with pytest.raises(ProtocolViolation, match=why):
        Decoder().feed(wire)
