import Testing
@testable import GreenroomRPC
import GreenroomJSON

/// Collects frames as strings ("<oversized>" for the marker).
private func frames(_ chunks: [[UInt8]], max: Int = 1 << 20) -> [String] {
    var framer = LineFramer(maxLineBytes: max)
    var out: [String] = []
    for chunk in chunks {
        chunk.withUnsafeBytes { raw in
            framer.feed(raw) { frame in
                switch frame {
                case .line(let l): out.append(String(decoding: l, as: UTF8.self))
                case .oversized: out.append("<oversized>")
                }
            }
        }
    }
    return out
}

@Suite struct LineFramerTests {
    let stream = Array("{\"a\":1}\n{\"b\":2}\r\n\n  \n{\"c\":\"\u{e9}\"}\n{\"partial\"".utf8)
    let expected = ["{\"a\":1}", "{\"b\":2}", "{\"c\":\"\u{e9}\"}"]

    @Test func allAtOnce() { #expect(frames([stream]) == expected) }

    @Test func byteByByte() { #expect(frames(stream.map { [$0] }) == expected) }

    @Test func everySplitPoint() {
        for cut in 0...stream.count {
            #expect(frames([Array(stream[..<cut]), Array(stream[cut...])]) == expected, "split at \(cut)")
        }
    }

    @Test func messageByMessage() {
        let chunks = ["{\"a\":1}\n", "{\"b\":2}\r\n", "\n", "  \n", "{\"c\":\"\u{e9}\"}\n", "{\"partial\""].map { Array($0.utf8) }
        #expect(frames(chunks) == expected)
    }

    /// JSON's whitespace is space, tab, CR and LF: a line of nothing else carries no message, wherever its
    /// CRs are (a stray `\r` between spaces is not a parse error).
    @Test func linesOfOnlyJSONWhitespaceAreSkipped() {
        let input = Array(" \r \t\n\r\r\n\t\r\n{\"d\":4}\r\n".utf8)
        #expect(frames([input]) == ["{\"d\":4}"])
        #expect(frames(input.map { [$0] }) == ["{\"d\":4}"])
    }

    @Test func oversizedLineIsReportedOnceAndSkipped() {
        let long = Array(repeating: UInt8(ascii: "x"), count: 50)
        let input = long + [0x0A] + Array("ok\n".utf8)
        #expect(frames([input], max: 10) == ["<oversized>", "ok"])
        // Fed byte by byte, the limit is noticed before the newline arrives; still one report.
        #expect(frames(input.map { [$0] }, max: 10) == ["<oversized>", "ok"])
    }

    @Test func lineOfExactlyTheLimitPasses() {
        let line = Array(repeating: UInt8(ascii: "y"), count: 10)
        #expect(frames([line + [0x0D, 0x0A]], max: 10) == [String(repeating: "y", count: 10)])
        #expect(frames((line + [0x0A]).map { [$0] }, max: 10) == [String(repeating: "y", count: 10)])
        #expect(frames([line + [0x79, 0x0A]], max: 10) == ["<oversized>"])
    }
}

/// The line codec is the framer behind the codec protocol: the same messages for every way of cutting
/// the stream, and `\n` after each outbound message.
@Suite struct LineCodecTests {
    let stream = Array("{\"a\":1}\n{\"b\":2}\r\n\n  \n\(String(repeating: "x", count: 20))\n{\"c\":\"\u{e9}\"}\n{\"partial\"".utf8)
    let expected = ["{\"a\":1}", "{\"b\":2}", "<oversized>", "{\"c\":\"\u{e9}\"}"]

    private func events(_ chunks: [[UInt8]]) -> [String] {
        let codec = LineCodec(maxMessageBytes: 10)
        let out = ByteBuffer()
        var seen: [String] = []
        for chunk in chunks {
            chunk.withUnsafeBytes { raw in
                codec.receive(raw, out: out) { event in
                    switch event {
                    case .message(let m): seen.append(String(decoding: m, as: UTF8.self))
                    case .oversized: seen.append("<oversized>")
                    default: seen.append("unexpected \(event)")
                    }
                }
            }
        }
        #expect(out.isEmpty, "a line codec writes nothing on its own")
        return seen
    }

    @Test func everyCut() {
        #expect(events([stream]) == expected)
        #expect(events(stream.map { [$0] }) == expected)
        for cut in 0...stream.count {
            #expect(events([Array(stream[..<cut]), Array(stream[cut...])]) == expected, "split at \(cut)")
        }
    }

    @Test func outboundMessagesEndWithANewline() {
        let codec = LineCodec(maxMessageBytes: 10)
        let out = ByteBuffer()
        for text in ["{}", "[1]"] {
            let mark = codec.beginMessage(out)
            out.append(Array(text.utf8))
            codec.endMessage(out, from: mark)
        }
        #expect(Array(out.bytes) == Array("{}\n[1]\n".utf8))
    }
}

/// On `tcp:`, an HTTP request (a browser or `curl` pointed at the wrong listener) gets one HTTP 400 and
/// a close instead of a JSON-RPC error per header line; only the first line is looked at.
@Suite struct LineCodecHTTPTests {
    private func run(_ text: String, refusesHTTP: Bool = true) -> (events: [String], out: String) {
        var events: [String] = []
        let out = ByteBuffer()
        let codec = LineCodec(maxMessageBytes: 1 << 10, refusesHTTP: refusesHTTP)
        for byte in Array(text.utf8) {
            [byte].withUnsafeBytes { raw in
                codec.receive(raw, out: out) { event in
                    switch event {
                    case .message(let m): events.append(String(decoding: m, as: UTF8.self))
                    case .closing(let why): events.append("closing \(why)")
                    default: events.append("\(event)")
                    }
                }
            }
        }
        return (events, String(decoding: out.bytes, as: UTF8.self))
    }

    @Test func anHTTPRequestGetsOne400() {
        let r = run("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n{\"a\":1}\n")
        #expect(r.events == [#"closing http(status: 400, refusal: Optional("notHTTP"))"#])
        #expect(r.out.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && r.out.contains("--listen ws:"))
    }

    @Test func jsonAndLaterLinesAreNotHTTP() {
        #expect(run("{\"GET / HTTP/1.1\":1}\nGET / HTTP/1.1\n").events == ["{\"GET / HTTP/1.1\":1}", "GET / HTTP/1.1"])
        #expect(run("GET / HTTP/1.1\n", refusesHTTP: false).events == ["GET / HTTP/1.1"])
        #expect(run("get / HTTP/1.1\n").events == ["get / HTTP/1.1"])
    }
}
