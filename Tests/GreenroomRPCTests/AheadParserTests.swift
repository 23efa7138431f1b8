import Glibc
import Synchronization
import Testing
import GreenroomJSON
@testable import GreenroomRPC

/// A context whose handlers record the order they ran in.
final class OrderContext {
    var ran: [Int] = []
    var closed = false
}

private func makeProcessor() -> RPCProcessor<OrderContext> {
    var r = MethodRegistry<OrderContext>()
    r.register(MethodSpec("echo", params: ["n"]) { c, p throws(RPCError) in
        let n: Int = try p.require("n")
        c.ran.append(n)
        return ["n": .int(n)]
    })
    r.register(MethodSpec("close") { c, _ throws(RPCError) in c.closed = true; return .null })
    r.register(MethodSpec("fail") { _, _ throws(RPCError) -> JSONValue in throw .invalidState("nope", ["why": "test"]) })
    return RPCProcessor(registry: r)
}

/// A pipelined burst with every kind of line: requests, notifications, batches, errors of each
/// kind, parse errors, blank-free but odd spacing.
private func burst(_ n: Int) -> [String] {
    (0..<n).map { i in
        switch i % 9 {
        case 0: #"{"jsonrpc":"2.0","id":\#(i),"method":"echo","params":{"n":\#(i)}}"#
        case 1: #"{"jsonrpc":"2.0","method":"echo","params":{"n":\#(i)}}"#
        case 2: #"[{"jsonrpc":"2.0","id":"a\#(i)","method":"echo","params":[\#(i)]},{"jsonrpc":"2.0","method":"echo","params":{"n":\#(i)}}]"#
        case 3: #"{"jsonrpc":"2.0","id":\#(i),"method":"nope"}"#
        case 4: #"{"jsonrpc":"2.0","id":\#(i),"method":"echo","params":{"n":"x"}}"#
        case 5: #"{"jsonrpc":"2.0","id":\#(i),"method":"echo","params"#
        case 6: "[]"
        case 7: #"  {"jsonrpc" : "2.0", "id" : null, "method" : "fail"}  "#
        default: #"{"jsonrpc":"1.0","id":\#(i),"method":"echo"}"#
        }
    }
}

private func run(_ p: RPCProcessor<OrderContext>, _ lines: [String], closeAt: Int? = nil) -> (out: [UInt8], ran: [Int]) {
    let ctx = OrderContext()
    let out = OutboundBuffer()
    out.framing = LineCodec(maxMessageBytes: 1 << 20)
    let bytes = lines.map { Array($0.utf8) }
    var pointers: [UnsafeRawBufferPointer] = []
    // Keep every line's storage alive for the whole run.
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.reduce(0) { $0 + $1.count }, alignment: 1)
    defer { storage.deallocate() }
    var at = 0
    for b in bytes {
        let slice = UnsafeMutableRawBufferPointer(rebasing: storage[at..<(at + b.count)])
        slice.copyBytes(from: b)
        pointers.append(UnsafeRawBufferPointer(slice))
        at += b.count
    }
    var handled = 0
    pointers.withUnsafeBufferPointer { lines in
        p.handle(lines: lines, context: ctx, out: out) {
            defer { handled += 1 }
            return closeAt.map { handled >= $0 } ?? false
        }
    }
    return (Array(out.bytes), ctx.ran)
}

@Suite struct AheadParserTests {
    @Test func readingAheadWritesTheSameBytesInTheSameOrder() {
        let lines = burst(3000)  // several jobs of up to 1024 lines
        let inline = makeProcessor()
        let ahead = makeProcessor()
        ahead.startReadingAhead()
        defer { ahead.stopReadingAhead() }
        #expect(ahead.ahead != nil)
        for _ in 0..<5 {
            let a = run(inline, lines)
            let b = run(ahead, lines)
            #expect(a.out == b.out)
            #expect(a.ran == b.ran)
        }
        #expect(inline.counters.requests == ahead.counters.requests)
        #expect(inline.counters.errors == ahead.counters.errors)
        #expect(inline.counters.batches == ahead.counters.batches)
        #expect(inline.counters.notifications == ahead.counters.notifications)
    }

    @Test func theParserThreadTakesAShare() {
        let p = makeProcessor()
        p.startReadingAhead()
        defer { p.stopReadingAhead() }
        // The parser thread may be slow to wake on a busy machine; over many bursts it reads some.
        let lines = (0..<1000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"echo","params":{"n":\#($0)}}"# }
        var rounds = 0
        while p.ahead!.linesReadAhead == 0 && rounds < 200 {
            let r = run(p, lines)
            #expect(r.ran == Array(0..<1000))
            rounds += 1
        }
        #expect(p.ahead!.linesReadAhead > 0)
    }

    @Test func linesAfterACloseAreDropped() {
        let p = makeProcessor()
        p.startReadingAhead()
        defer { p.stopReadingAhead() }
        let lines = (0..<500).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"echo","params":{"n":\#($0)}}"# }
        let r = run(p, lines, closeAt: 100)
        #expect(r.ran == Array(0..<100))
        #expect(r.out.filter { $0 == 0x0A }.count == 100)
    }

    @Test func shortRunsAndStoppedParsersReadInline() {
        let p = makeProcessor()
        let lines = burst(5)
        let before = run(p, lines)
        p.startReadingAhead()
        p.stopReadingAhead()
        #expect(p.ahead == nil)
        #expect(run(p, lines).out == before.out)
    }

    /// Between jobs the thread watches for the next one for a window, then sleeps; after a gap longer
    /// than the window it sleeps at once, and it watches again once a job comes within the window.
    /// The clock is the test's, so every step waits for the thread's own counters, not for time.
    @Test func theParserWatchesOnlyWhileJobsComeBackToBack() {
        let clock = FakeNanos()
        let window: UInt64 = 1_000_000
        let parser = AheadParser<Int>(window: window, now: { clock.value }) { $0.count }
        defer { parser.stop() }
        let text = Array("abc".utf8)
        func job() {
            text.withUnsafeBytes { line in
                let lines = [UnsafeRawBufferPointer](repeating: line, count: 64)
                var got = 0
                lines.withUnsafeBufferPointer { parser.run($0) { got += $0 } }
                #expect(got == 64 * 3)
            }
        }
        // Started at 0, it watches: the window has not passed.
        waitUntil { parser.watches == 1 }
        #expect(parser.sleeps == 0)
        clock.value = 10 * window
        waitUntil { parser.sleeps == 1 }
        // A job after a long gap: afterwards it sleeps at once, without watching.
        job()
        waitUntil { parser.sleeps == 2 }
        #expect(parser.watches == 1)
        // A job within the window after the last: afterwards it watches again...
        clock.value += window / 2
        job()
        waitUntil { parser.watches == 2 }
        // ...and takes the next job while watching, with no sleep in between.
        job()
        waitUntil { parser.watches == 3 }
        #expect(parser.sleeps == 2)
        // Once the window passes with no job, it sleeps.
        clock.value += 10 * window
        waitUntil { parser.sleeps == 3 }
        #expect(parser.watches == 3)
    }
}

/// A clock the test sets; read from the parser thread.
private final class FakeNanos: Sendable {
    private let word = Atomic<UInt64>(0)
    var value: UInt64 {
        get { word.load(ordering: .acquiring) }
        set { word.store(newValue, ordering: .releasing) }
    }
}

/// Waits for another thread to bring `condition` about (an event, not a span of time); fails after 30 s.
private func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    var waited = 0
    while !condition() {
        if waited > 30_000 {
            Issue.record("condition not reached in 30 s", sourceLocation: sourceLocation)
            return
        }
        usleep(1000)
        waited += 1
    }
}
