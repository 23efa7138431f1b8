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
}
