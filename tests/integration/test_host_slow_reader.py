"""A connection that does not read its replies is closed, and counted, once it takes nothing for the
slow-reader grace period; the host's memory stays bounded and nobody else notices. A connection that reads
is never closed: past a high-water mark of queued replies the host stops taking its requests (backpressure)
and resumes when the queue drains, and a single reply larger than the outbound limit is written whole.

These tests used to expect a close as soon as the queue passed --max-outbound-bytes; by design the limit
now closes only a peer that makes no progress for --slow-reader-grace-ms, which they set short.
"""

from __future__ import annotations

import json
import socket
import time

from grhost import MiB, encode, is_closed_error, req


def _peak_rss_mib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmHWM")


RSS_BOUND = 200 * 1024 * 1024


#: A short grace period, so that the tests of a peer that never reads finish quickly.
GRACE = ("--slow-reader-grace-ms", "300")


def flood_without_reading(sock: socket.socket, payload: bytes, monitor, deadline_s: float) -> tuple[int, bool]:
    """Writes `payload` without ever reading, pinging on `monitor` between chunks. Returns (bytes sent,
    whether the host closed the connection under us)."""
    sock.setblocking(False)
    sent = 0
    chunk = 16 * 1024
    deadline = time.monotonic() + deadline_s
    pings = 0
    while sent < len(payload) and time.monotonic() < deadline:
        try:
            n = sock.send(payload[sent:sent + chunk])
            sent += n
        except BlockingIOError:
            # The host is not reading as fast as we write (it must keep reading, though): let it work.
            time.sleep(0.005)
        except OSError as e:
            if is_closed_error(e):
                return sent, True
            raise
        if sent // (64 * 1024) > pings:
            pings += 1
            monitor.ping()
    return sent, False


def read_replies(conn, n: int, timeout: float = 60) -> list[dict]:
    """Reads `n` reply lines as fast as it can (each decoded whole)."""
    return [json.loads(conn.read_line(timeout)) for _ in range(n)]


def test_slow_reader_is_closed_and_counted(start_host):
    host = start_host("--max-outbound-bytes", "65536", *GRACE)
    monitor = host.connect()
    monitor.ping()
    info = monitor.result("host.info")
    assert info["limits"]["maxOutboundBytes"] == 65536
    reply_size = len(encode({"jsonrpc": "2.0", "id": 99999, "result": info}))

    slow = host.connect()
    slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    n = 5000
    payload = b"".join(encode({"jsonrpc": "2.0", "id": i, "method": "host.info"}) for i in range(n))
    # Enough reply bytes to overflow any kernel buffering plus the 64 KiB allowance many times over.
    assert n * reply_size > 2 * 1024 * 1024

    flood_without_reading(slow.sock, payload, monitor, deadline_s=15)
    monitor.ping()

    stats = host.wait_stats(lambda s: s["connections"]["closedSlowReader"] >= 1, conn=monitor, timeout=10)
    assert stats["rssBytes"] < RSS_BOUND, stats
    monitor.ping()

    # The slow connection was really closed: what the kernel still holds drains, then end of stream.
    slow.sock.setblocking(True)
    lines = slow.read_until_closed(timeout=10)
    assert len(lines) < n, "the host answered everything: it was never cut off"
    stats = host.stats(monitor)
    assert stats["connections"]["closedSlowReader"] == 1, stats
    assert stats["rssBytes"] < RSS_BOUND, stats
    monitor.ping()


def test_slow_reader_with_pipelined_batches_keeps_memory_bounded(start_host):
    """Batches amplify: one short line asks for up to --max-batch replies in one array."""
    host = start_host("--max-outbound-bytes", "65536", *GRACE)
    monitor = host.connect()
    slow = host.connect()
    batch = encode([{"jsonrpc": "2.0", "id": i, "method": "host.info"} for i in range(256)])
    payload = batch * 200  # ~51,200 host.info replies requested
    flood_without_reading(slow.sock, payload, monitor, deadline_s=15)
    stats = host.wait_stats(lambda s: s["connections"]["closedSlowReader"] >= 1, conn=monitor, timeout=10)
    assert stats["rssBytes"] < RSS_BOUND, stats
    slow.sock.setblocking(True)
    slow.read_until_closed(timeout=10)
    monitor.ping()
    assert host.stats(monitor)["rssBytes"] < RSS_BOUND


def test_reader_that_catches_up_is_not_closed(start_host):
    """Below the limit nothing happens: a client that pipelines and then reads everything gets it all."""
    host = start_host("--max-outbound-bytes", "65536")
    c = host.connect()
    n = 300
    c.send_raw(b"".join(encode({"jsonrpc": "2.0", "id": i, "method": "host.ping"}) for i in range(n)))
    ids = [c.read_json()["id"] for _ in range(n)]
    assert ids == list(range(n))
    c.ping()
    assert host.stats(c)["connections"]["closedSlowReader"] == 0


def test_one_write_of_100_discovers_from_a_reader_gets_100_replies(host):
    """100 rpc.discover replies are ~13 MB, past the 8 MiB limit: the host must pause, not close."""
    c = host.connect()
    c.send_raw(b"".join(encode(req("rpc.discover", id=i)) for i in range(100)))
    replies = read_replies(c, 100)
    assert [r["id"] for r in replies] == list(range(100))
    assert all(r["result"]["openrpc"] for r in replies)
    c.ping()
    assert host.stats(c)["connections"]["closedSlowReader"] == 0


def test_three_pipelined_range_states_of_100000_paths_get_three_replies(host):
    c = host.connect()
    session = c.result("range.create", {"count": 100_000, "viewport": {"width": 375, "height": 667}})["session"]
    paths = [[0, i] for i in range(100_000)]
    c.send_raw(b"".join(encode(req("range.state", {"session": session, "paths": paths}, id=i)) for i in range(3)),
               timeout=60)
    replies = read_replies(c, 3)
    assert [r["id"] for r in replies] == [0, 1, 2], [r.get("error") for r in replies]
    assert all("result" in r for r in replies)
    c.ping()
    assert host.stats(c)["connections"]["closedSlowReader"] == 0


def test_a_reply_larger_than_the_limit_is_written_whole(start_host):
    """A single reply over --max-outbound-bytes goes out whole to a peer that reads. The grace is a
    minute, not GRACE: this reader reads all along, and a loaded two-core machine can pause it for longer
    than 300 ms, which would close it for a slowness that is the machine's, not its own."""
    host = start_host("--max-outbound-bytes", "65536", "--slow-reader-grace-ms", "60000")
    c = host.connect()
    c.send_raw(b"".join(encode(req("rpc.discover", id=i)) for i in range(5)))
    replies = read_replies(c, 5)
    assert [r["id"] for r in replies] == list(range(5))
    assert len(json.dumps(replies[0])) > 65536
    c.ping()
    assert host.stats(c)["connections"]["closedSlowReader"] == 0


def test_a_peer_that_never_reads_is_closed_after_the_grace_period(start_host):
    """Paused by backpressure (below the 8 MiB limit) and taking nothing: closed once the grace is over."""
    host = start_host(*GRACE)
    monitor = host.connect()
    slow = host.connect()
    slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.send_raw(b"".join(encode(req("rpc.discover", id=i)) for i in range(100)))
    stats = host.wait_stats(lambda s: s["connections"]["closedSlowReader"] == 1, conn=monitor, timeout=20)
    assert stats["connections"]["open"] == 1, stats
    slow.read_until_closed(timeout=10)
    monitor.ping()


def test_events_for_a_paused_connection_are_queued_not_lost(host):
    """Events keep flowing to a connection paused by backpressure (they are queued with its replies);
    once its peer reads, it gets every reply and every event, in seq order."""
    paused = host.connect()
    paused.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    paused.send_raw(b"".join(encode(req("rpc.discover", id=i)) for i in range(100)))
    other = host.connect()
    host.wait_stats(lambda s: s["connections"]["paused"] == 1, conn=other)
    for _ in range(20):
        other.result("container.create", {"class": "Container"})
    msgs = [json.loads(paused.read_line(60)) for _ in range(100 + 20)]
    assert [m["id"] for m in msgs if "id" in m] == list(range(100))
    seqs = [m["params"]["seq"] for m in msgs if m.get("method") == "lifecycle"]
    assert len(seqs) == 20 and seqs == sorted(seqs), seqs
    paused.ping()
    assert host.stats(other)["connections"]["closedSlowReader"] == 0


def test_a_burst_of_cheap_requests_with_large_replies_is_cut_off_at_the_outbound_limit(host):
    """2000 `rpc.discover` requests (96 KiB, one write) from a client that reads nothing ask for ~240 MiB of
    replies. The host stops at the 8 MiB outbound limit: it closes that connection (counted) instead of
    building every reply first, so its peak memory stays far below what the burst asks for and other
    clients keep being answered."""
    keeper = host.connect()
    keeper.ping()
    doc_bytes = len(json.dumps(keeper.result("rpc.discover", timeout=10), separators=(",", ":")))
    n = 2000
    assert n * doc_bytes > 200 * MiB
    base = _peak_rss_mib(host.pid)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(host.socket_path)
    try:
        s.sendall(b"".join(encode(req("rpc.discover", id=i)) for i in range(n)))
        st = host.wait_stats(lambda st: st["connections"]["closedSlowReader"] == 1, conn=keeper, timeout=60)
        assert st["connections"]["open"] == 1, st
        keeper.ping()
        grew = _peak_rss_mib(host.pid) - base
        assert grew < 128, f"peak RSS grew by {grew} MiB for an 8 MiB outbound limit"
    finally:
        s.close()
