import Testing
import GreenroomJSON
@testable import GreenroomRPC

/// A context that records notifications it receives.
final class TestContext {
    var notified: [String] = []
}

private func makeProcessor(limits: RPCLimits = RPCLimits()) -> RPCProcessor<TestContext> {
    var r = MethodRegistry<TestContext>()
    r.register(MethodSpec("subtract", params: ["minuend", "subtrahend"]) { _, p throws(RPCError) in
        .int(try p.require("minuend", as: Int.self) - p.require("subtrahend", as: Int.self))
    })
    r.register(MethodSpec("update", params: nil) { c, _ throws(RPCError) in c.notified.append("update"); return .null })
    r.register(MethodSpec("notify_hello", params: nil) { c, _ throws(RPCError) in c.notified.append("hello"); return .null })
    r.register(MethodSpec("get_data") { _, _ throws(RPCError) in ["hello", 5] })
    r.register(MethodSpec("sum", params: nil) { _, _ throws(RPCError) in 7 })
    r.register(MethodSpec("fail") { _, _ throws(RPCError) -> JSONValue in throw .invalidState("nope", ["why": "test"]) })
    return RPCProcessor(registry: r, limits: limits)
}

/// Sends one line, returns the decoded output (nil when nothing was written).
private func send(_ p: RPCProcessor<TestContext>, _ text: String, _ ctx: TestContext = TestContext()) throws -> JSONValue? {
    let out = OutboundBuffer()
    out.framing = LineCodec(maxMessageBytes: 1 << 20)
    Array(text.utf8).withUnsafeBytes { p.handle(line: $0, context: ctx, out: out) }
    if out.isEmpty { return nil }
    #expect(out.bytes.last == 0x0A)
    #expect(out.bytes.filter { $0 == 0x0A }.count == 1, "one reply line per message")
    return try JSONCodec.decode(Array(out.bytes.dropLast()))
}

private func errorCode(_ v: JSONValue?) -> Int? { v?["error"]?["code"]?.intValue }

/// The examples of the JSON-RPC 2.0 specification, section 7, and the cases around them.
@Suite struct ProcessorTests {
    let p = makeProcessor()

    @Test func positionalAndNamedParams() throws {
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#) == ["jsonrpc": "2.0", "id": 1, "result": 19])
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":4}"#)?["result"] == 19)
    }

    @Test func notificationsGetNoReply() throws {
        let ctx = TestContext()
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}"#, ctx) == nil)
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"foobar"}"#, ctx) == nil, "even unknown methods")
        #expect(ctx.notified == ["update"])
    }

    @Test func methodNotFound() throws {
        let r = try send(p, #"{"jsonrpc":"2.0","method":"foobar","id":"1"}"#)
        #expect(errorCode(r) == -32601)
        #expect(r?["id"] == "1")
        #expect(r?["error"]?["data"]?["method"] == "foobar")
        #expect(r?["error"]?["data"]?["kind"] == "methodNotFound")
    }

    @Test func parseError() throws {
        let r = try send(p, #"{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]"#)
        #expect(errorCode(r) == -32700)
        #expect(r?["id"] == .null)
    }

    @Test func invalidRequests() throws {
        for (text, path) in [
            (#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, "method"),
            (#"{"jsonrpc":"1.0","method":"sum","id":1}"#, "jsonrpc"),
            (#"{"method":"sum","id":1}"#, "jsonrpc"),
            (#"{"jsonrpc":"2.0","method":"sum","params":5,"id":1}"#, "params"),
            (#"{"jsonrpc":"2.0","method":"sum","id":{"a":1}}"#, "id"),
            (#"{"jsonrpc":"2.0","method":"sum","id":[1]}"#, "id"),
            (#"{"jsonrpc":"2.0","id":1}"#, "method"),
        ] {
            let r = try send(p, text)
            #expect(errorCode(r) == -32600, "\(text)")
            #expect(r?["error"]?["data"]?["path"] == .string(path), "\(text)")
        }
        // A valid id is echoed even when the request is otherwise invalid; an invalid one is not.
        #expect(try send(p, #"{"jsonrpc":"2.0","method":1,"id":7}"#)?["id"] == 7)
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"sum","id":true}"#)?["id"] == .null)
    }

    @Test func topLevelScalarsAreInvalidRequestsNotParseErrors() throws {
        for text in ["1", "\"x\"", "null", "true"] {
            #expect(errorCode(try send(p, text)) == -32600, "\(text)")
        }
    }

    @Test func idsEchoedExactly() throws {
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"sum","id":null}"#)?["id"] == .null)
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"sum","id":1.5}"#)?["id"] == 1.5)
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"sum","id":"ä"}"#)?["id"] == "ä")
        #expect(try send(p, #"{"jsonrpc":"2.0","method":"sum","id":-9007199254740993}"#)?["id"] == .int(-9007199254740993))
    }

    @Test func batches() throws {
        let r = try send(p, """
        [{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},
         {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},{"foo":"boo"},
         {"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},{"jsonrpc":"2.0","method":"get_data","id":"9"}]
        """)
        let a = try #require(r?.arrayValue)
        #expect(a.count == 5)
        #expect(a[0]["result"] == 7)
        #expect(a[1]["result"] == 19)
        #expect(errorCode(a[2]) == -32600)
        #expect(errorCode(a[3]) == -32601)
        #expect(a[4]["result"] == ["hello", 5])
    }

    @Test func emptyAndInvalidBatches() throws {
        let empty = try send(p, "[]")
        #expect(errorCode(empty) == -32600, "an empty batch is one error object, not an array")
        #expect(empty?.arrayValue == nil)
        let three = try #require(try send(p, "[1,2,3]")?.arrayValue)
        #expect(three.count == 3 && three.allSatisfy { errorCode($0) == -32600 })
    }

    @Test func batchOfNotificationsGetsNoReply() throws {
        #expect(try send(p, #"[{"jsonrpc":"2.0","method":"notify_hello"},{"jsonrpc":"2.0","method":"update"}]"#) == nil)
    }

    @Test func batchLimit() throws {
        let small = makeProcessor(limits: { var l = RPCLimits(); l.maxBatch = 2; return l }())
        let entry = #"{"jsonrpc":"2.0","method":"sum","id":1}"#
        #expect(try send(small, "[\(entry),\(entry)]")?.arrayValue?.count == 2)
        let r = try send(small, "[\(entry),\(entry),\(entry)]")
        #expect(errorCode(r) == -32600)
        #expect(r?["error"]?["data"]?["kind"] == "batchTooLarge")
        #expect(r?["error"]?["data"]?["max"] == 2)
    }

    @Test func depthLimit() throws {
        let l = { var l = RPCLimits(); l.maxDepth = 4; return l }()
        let q = makeProcessor(limits: l)
        #expect(try send(q, #"{"jsonrpc":"2.0","method":"sum","params":[[[1]]],"id":1}"#)?["result"] == 7)
        let r = try send(q, #"{"jsonrpc":"2.0","method":"sum","params":[[[[1]]]],"id":1}"#)
        #expect(errorCode(r) == -32600)
        #expect(r?["error"]?["data"]?["kind"] == "tooDeep")
    }

    @Test func invalidParamsNameThePath() throws {
        let r = try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"x","subtrahend":1},"id":1}"#)
        #expect(errorCode(r) == -32602)
        #expect(r?["error"]?["data"]?["path"] == "minuend")
        let missing = try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1},"id":1}"#)
        #expect(missing?["error"]?["data"]?["path"] == "subtrahend")
        let unknown = try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":2,"typo":3},"id":1}"#)
        #expect(unknown?["error"]?["data"]?["path"] == "typo")
        let surplus = try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":[1,2,3],"id":1}"#)
        #expect(errorCode(surplus) == -32602)
        let fraction = try send(p, #"{"jsonrpc":"2.0","method":"subtract","params":[1.5,2],"id":1}"#)
        #expect(errorCode(fraction) == -32602)
    }

    @Test func handlerErrorsCarryKindAndData() throws {
        let r = try send(p, #"{"jsonrpc":"2.0","method":"fail","id":1}"#)
        #expect(errorCode(r) == -32003)
        #expect(r?["error"]?["data"] == ["kind": "invalidState", "why": "test"])
    }

    @Test func oversizedReply() throws {
        let out = OutboundBuffer()
        out.framing = LineCodec(maxMessageBytes: 1 << 20)
        p.handleOversized(out: out)
        let r = try JSONCodec.decode(Array(out.bytes.dropLast()))
        #expect(errorCode(r) == -32600)
        #expect(r["id"] == .null)
        #expect(r["error"]?["data"]?["kind"] == "messageTooLarge")
    }
}
