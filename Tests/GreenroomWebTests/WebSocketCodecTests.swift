import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomWeb

/// What a codec produced for a stream: its events (as text) and everything it wrote.
private struct Run {
    var events: [String] = []
    var http = ""
    var frames: [ServerFrame] = []
}

private let files = StaticFiles(files: [
    "/": .init(contentType: "text/html", bytes: Array("<p>hi</p>".utf8)),
    "/openrpc.json": .init(contentType: "application/json", bytes: Array("{}".utf8)),
])

private func config(max: Int = 1 << 20, allowed: [String] = [], bindAny: Bool = false, token: String? = nil) -> WebSocketConfig {
    WebSocketConfig(policy: BrowserPolicy(listenerAuthority: "127.0.0.1:8765", allowedOrigins: allowed, bindAny: bindAny, token: token),
                    maxMessageBytes: max, files: files)
}

/// Feeds `chunks`; every message is answered with one text frame "echo:MESSAGE" (as the host would,
/// through beginMessage/endMessage).
private func run(_ chunks: [[UInt8]], config: WebSocketConfig = config()) -> Run {
    let codec = WebSocketCodec(config: config)
    let out = ByteBuffer()
    var r = Run()
    for chunk in chunks {
        chunk.withUnsafeBytes { raw in
            codec.receive(raw, out: out) { event in
                switch event {
                case .message(let m):
                    let text = String(decoding: m, as: UTF8.self)
                    // The host reads a message through its base address, even an empty one.
                    r.events.append(m.baseAddress == nil ? "message without an address" : "message \(text)")
                    let mark = codec.beginMessage(out)
                    out.append(Array("echo:\(text)".utf8))
                    codec.endMessage(out, from: mark)
                case .oversized: r.events.append("oversized")
                case .opened(let auth): r.events.append("opened auth=\(auth)")
                case .closing(let why): r.events.append("closing \(why)")
                }
            }
        }
    }
    let bytes = Array(out.bytes)
    if let end = bytes.indices.first(where: { bytes[$0...].starts(with: Array("\r\n\r\n".utf8)) }) {
        r.http = String(decoding: bytes[..<(end + 4)], as: UTF8.self)
        let rest = Array(bytes[(end + 4)...])
        if r.http.hasPrefix("HTTP/1.1 101") {
            r.frames = ServerFrame.parse(rest) ?? [ServerFrame(fin: false, opcode: 0xFF, payload: rest)]
        } else {
            r.http += String(decoding: rest, as: UTF8.self)
        }
    }
    return r
}

/// The example key of RFC 6455 section 1.3.
private func upgrade(_ extra: String = "", target: String = "/rpc") -> [UInt8] {
    Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n".utf8)
}

/// Runs `stream` cut every way and expects the same result each time.
/// With `framesInAnyOrder`, control frames answered as they arrive (a pong) may come before or after a
/// reply, depending on where the stream was cut.
private func expectSameForEveryCut(_ stream: [UInt8], config: WebSocketConfig = config(), framesInAnyOrder: Bool = false,
                                   _ check: (Run) -> Void) {
    let whole = run([stream], config: config)
    check(whole)
    func key(_ f: ServerFrame) -> String { "\(f.opcode) \(f.payload)" }
    for (name, chunks) in Feeding.cuts(stream) {
        let r = run(chunks, config: config)
        #expect(r.events == whole.events, "\(name)")
        if framesInAnyOrder {
            #expect(r.frames.map(key).sorted() == whole.frames.map(key).sorted(), "\(name)")
        } else {
            #expect(r.frames == whole.frames, "\(name)")
        }
        #expect(r.http == whole.http, "\(name)")
    }
}

@Suite struct WebSocketCodecTests {
    @Test func acceptValueIsRFC6455s() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func handshakeThenMessagesBothWays() {
        let stream = upgrade() + ClientFrame.text(#"{"a":1}"#) + ClientFrame.text("[1,2]")
        expectSameForEveryCut(stream) { r in
            #expect(r.http.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(r.http.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
            #expect(!r.http.contains("Sec-WebSocket-Protocol"))
            #expect(r.events == ["opened auth=true", #"message {"a":1}"#, "message [1,2]"])
            #expect(r.frames == [ServerFrame(fin: true, opcode: 1, payload: Array(#"echo:{"a":1}"#.utf8)),
                                 ServerFrame(fin: true, opcode: 1, payload: Array("echo:[1,2]".utf8))])
        }
    }

    @Test func fragmentedMessageIsReassembledAroundAPing() {
        let stream = upgrade() + ClientFrame.text("{\"x\":", fin: false) + ClientFrame.frame(ClientFrame.ping, Array("p1".utf8))
            + ClientFrame.frame(ClientFrame.continuation, Array("\"é\"".utf8), fin: false) + ClientFrame.frame(ClientFrame.continuation, Array("}".utf8))
        expectSameForEveryCut(stream, framesInAnyOrder: true) { r in
            #expect(r.events == ["opened auth=true", "message {\"x\":\"é\"}"])
            #expect(r.frames.contains(ServerFrame(fin: true, opcode: 0xA, payload: Array("p1".utf8))), "the ping is answered with its payload")
            #expect(r.frames.contains(ServerFrame(fin: true, opcode: 1, payload: Array("echo:{\"x\":\"é\"}".utf8))))
        }
    }

    @Test func emptyMessagesAreMessagesWithAnAddress() {
        let stream = upgrade() + ClientFrame.text("") + ClientFrame.text("", fin: false) + ClientFrame.frame(ClientFrame.continuation, [])
            + ClientFrame.text("1")
        expectSameForEveryCut(stream) { r in
            #expect(r.events == ["opened auth=true", "message ", "message ", "message 1"])
            #expect(r.frames.count == 3)
        }
    }

    @Test func peerCloseIsAnsweredWithTheSameCode() {
        let stream = upgrade() + ClientFrame.text("1") + ClientFrame.close(1000, "bye") + ClientFrame.text("after close")
        expectSameForEveryCut(stream) { r in
            #expect(r.events == ["opened auth=true", "message 1", "closing webSocket(code: 1000, byPeer: true)"])
            #expect(r.frames.map(\.opcode) == [1, 8])
            #expect(r.frames.last?.closeCode == 1000)
        }
    }

    @Test func binaryFrameIsRefusedWith1003() {
        let stream = upgrade() + ClientFrame.frame(ClientFrame.binary, [1, 2, 3]) + ClientFrame.text("ignored")
        expectSameForEveryCut(stream) { r in
            #expect(r.events == ["opened auth=true", "closing webSocket(code: 1003, byPeer: false)"])
            #expect(r.frames.count == 1)
            #expect(r.frames.first?.closeCode == 1003)
        }
    }

    @Test func messageOverTheLimitIsRefusedWith1009() {
        let limit = 64
        let stream = upgrade() + ClientFrame.text(String(repeating: "x", count: limit))
            + ClientFrame.text(String(repeating: "y", count: 40), fin: false) + ClientFrame.frame(0, Array(repeating: 0x79, count: 40))
        expectSameForEveryCut(stream, config: config(max: limit)) { r in
            #expect(r.events.count == 3)
            #expect(r.events.last == "closing webSocket(code: 1009, byPeer: false)")
            #expect(r.frames.last?.closeCode == 1009)
        }
    }

    @Test func protocolErrorsCloseWith1002() {
        let cases: [(String, [UInt8])] = [
            ("an unmasked client frame", ClientFrame.frame(ClientFrame.text, Array("{}".utf8), masked: false)),
            ("a reserved opcode", ClientFrame.frame(0x3, [])),
            ("an RSV bit without an extension", ClientFrame.frame(ClientFrame.text, Array("{}".utf8), rsv: 0x4)),
            ("a continuation with nothing to continue", ClientFrame.frame(ClientFrame.continuation, Array("{}".utf8))),
            ("a fragmented ping", ClientFrame.frame(ClientFrame.ping, [], fin: false)),
        ]
        for (name, frame) in cases {
            expectSameForEveryCut(upgrade() + frame) { r in
                #expect(r.events == ["opened auth=true", "closing webSocket(code: 1002, byPeer: false)"], "\(name)")
                #expect(r.frames.last?.closeCode == 1002, "\(name)")
            }
        }
    }

    /// Whole ASCII text frames are read without wslay, everything else by wslay: both kinds, mixed,
    /// come out in order whatever the cuts. Non-ASCII bytes sit in the 8-byte words and in the tail.
    @Test func quickAndWslayFramesMixInOrder() {
        let long = String(repeating: "0123456789abcdef", count: 13) + "xyz"  // 211 bytes: a 16-bit length
        let messages = [#"{"a":1}"#, long, #""é""#, #"["é",2,3,4,5,6,7,8]"#, #"[1,2,3,4,5,6,7,"é"]"#, "[]"]
        var stream = upgrade()
        for (i, m) in messages.enumerated() {
            stream += ClientFrame.text(m)
            if i == 2 { stream += ClientFrame.frame(ClientFrame.ping, Array("p".utf8)) }
        }
        expectSameForEveryCut(stream, framesInAnyOrder: true) { r in
            #expect(r.events == ["opened auth=true"] + messages.map { "message \($0)" })
            #expect(r.frames.filter { $0.opcode == 1 }.map { String(decoding: $0.payload, as: UTF8.self) } == messages.map { "echo:\($0)" })
            #expect(r.frames.contains(ServerFrame(fin: true, opcode: 0xA, payload: Array("p".utf8))))
        }
    }

    /// A message over 64 KiB goes to wslay, between quick ones, cut in its header, its payload or not at all.
    @Test func aMessageOver64KiBIsReadByWslayBetweenQuickOnes() {
        let big = "[" + String(repeating: "1,", count: 40_000) + "1]"
        let stream = upgrade() + ClientFrame.text("[1]") + ClientFrame.text(big) + ClientFrame.text("[2]")
        let start = upgrade().count + ClientFrame.text("[1]").count
        for cut in [nil, start + 1, start + 5, start + 12, start + 40_000, stream.count - 2] {
            let chunks = cut.map { [Array(stream[..<$0]), Array(stream[$0...])] } ?? [stream]
            let r = run(chunks)
            #expect(r.events == ["opened auth=true", "message [1]", "message \(big)", "message [2]"], "cut at \(String(describing: cut))")
        }
    }

    @Test func aNewTextMessageInsideAFragmentedOneIsAProtocolError() {
        let stream = upgrade() + ClientFrame.text("[1,", fin: false) + ClientFrame.text("[2]")
        expectSameForEveryCut(stream) { r in
            #expect(r.events == ["opened auth=true", "closing webSocket(code: 1002, byPeer: false)"])
            #expect(r.frames.last?.closeCode == 1002)
        }
    }

    @Test func invalidUTF8ClosesWith1007() {
        expectSameForEveryCut(upgrade() + ClientFrame.frame(ClientFrame.text, [0x22, 0xC3, 0x28, 0x22])) { r in
            #expect(r.events.last == "closing webSocket(code: 1007, byPeer: false)")
        }
    }

    @Test func largeRepliesUseTheLongerHeaders() {
        for size in [0, 120, 125, 126, 127, 65535 - 5, 65535 - 4, 70000] {
            let message = String(repeating: "z", count: size)
            let r = run([upgrade() + ClientFrame.text(message)])
            #expect(r.frames == [ServerFrame(fin: true, opcode: 1, payload: Array("echo:\(message)".utf8))], "size \(size)")
        }
    }

    @Test func messagesAfterACloseAreNotSent() {
        let codec = WebSocketCodec(config: config())
        let out = ByteBuffer()
        upgrade().withUnsafeBytes { codec.receive($0, out: out) { _ in } }
        #expect(codec.close(code: 1001, reason: "host shutting down", out: out) == .webSocket(code: 1001, byPeer: false))
        let before = out.count
        let mark = codec.beginMessage(out)
        out.append(Array("late".utf8))
        codec.endMessage(out, from: mark)
        #expect(out.count == before)
    }
}

@Suite struct WebSocketUpgradeTests {
    @Test func staticFilesAreServedAndClosed() {
        expectSameForEveryCut(Array("GET / HTTP/1.1\r\nHost: localhost:8765\r\n\r\n".utf8)) { r in
            #expect(r.http.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(r.http.contains("Content-Type: text/html\r\n"))
            #expect(r.http.contains("Connection: close\r\n"))
            #expect(r.http.hasSuffix("\r\n\r\n<p>hi</p>"))
            #expect(r.events == ["closing http(status: 200, refusal: nil)"])
        }
        let head = run([Array("HEAD /openrpc.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)])
        #expect(head.http.contains("Content-Length: 2\r\n") && head.http.hasSuffix("\r\n\r\n"))
    }

    @Test func otherPathsAndMethodsGetHTTPErrorsNeverJSONRPC() {
        let cases: [(String, Int, String)] = [
            ("GET /nope?token=secret HTTP/1.1\r\nHost: localhost\r\n\r\n", 404, "path"),
            ("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}", 405, "method"),
            ("GET /rpc HTTP/1.1\r\nHost: localhost\r\n\r\n", 426, "upgrade"),
            ("GET / HTTP/2.0\r\nHost: localhost\r\n\r\n", 505, "request"),
            ("{\"jsonrpc\":\"2.0\",\"method\":\"host.ping\",\"id\":1}\n", 400, "request"),
            ("GET / HTTP/1.1\r\nHost : localhost\r\n\r\n", 400, "request"),
            ("GET / HTTP/1.1\r\nHost: localhost\r\n folded\r\n\r\n", 400, "request"),
        ]
        for (request, status, rule) in cases {
            expectSameForEveryCut(Array(request.utf8)) { r in
                #expect(r.http.hasPrefix("HTTP/1.1 \(status) "), "\(request)")
                #expect(r.events == ["closing http(status: \(status), refusal: Optional(\"\(rule)\"))"], "\(request)")
                #expect(!r.http.contains("jsonrpc"), "\(request)")
                #expect(!r.http.contains("secret"), "the query is never echoed")
            }
        }
    }

    @Test func headOverTheLimitIs431() {
        let r = run([Array("GET / HTTP/1.1\r\nHost: localhost\r\nX: \(String(repeating: "a", count: 9000))\r\n\r\n".utf8)])
        #expect(r.http.hasPrefix("HTTP/1.1 431 "))
    }

    @Test func upgradeChecks() {
        let cases: [(String, String, Int)] = [
            ("wrong version", "Sec-WebSocket-Version: 8\r\n", 426),
            ("bad key", "Sec-WebSocket-Key: c2hvcnQ=\r\n", 400),
        ]
        for (name, header, status) in cases {
            // The bad header replaces the good one.
            var text = String(decoding: upgrade(), as: UTF8.self)
            let field = header.split(separator: ":")[0]
            text = text.split(separator: "\r\n", omittingEmptySubsequences: false).map { $0.hasPrefix(field) ? Substring(header.dropLast(2)) : $0 }.joined(separator: "\r\n")
            let r = run([Array(text.utf8)])
            #expect(r.http.hasPrefix("HTTP/1.1 \(status) "), "\(name)")
        }
    }

    @Test func originsAndHosts() {
        // No Origin (a native client) and the listener's own origins are accepted.
        #expect(run([upgrade()]).events == ["opened auth=true"])
        #expect(run([upgrade("Origin: http://127.0.0.1:8765\r\n")]).events == ["opened auth=true"])
        #expect(run([upgrade("Origin: http://localhost:8765\r\n")]).events == ["opened auth=true"])
        // Any other origin: 403 naming the flag.
        let refused = run([upgrade("Origin: https://evil.example\r\n")])
        #expect(refused.http.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(refused.http.contains("--allow-origin https://evil.example"))
        #expect(refused.events == [#"closing http(status: 403, refusal: Optional("origin"))"#])
        // Allowed by flag, or by "*".
        #expect(run([upgrade("Origin: https://evil.example\r\n")], config: config(allowed: ["https://evil.example"])).events == ["opened auth=true"])
        #expect(run([upgrade("Origin: https://other.example\r\n")], config: config(allowed: ["*"])).events == ["opened auth=true"])
        // A Host that is not loopback (DNS rebinding) is refused unless --bind-any.
        let rebound = Array(String(decoding: upgrade(), as: UTF8.self).replacingOccurrences("Host: 127.0.0.1:8765", "Host: attacker.example:8765").utf8)
        #expect(run([rebound]).events == [#"closing http(status: 403, refusal: Optional("host"))"#])
        #expect(run([rebound], config: config(bindAny: true, token: "t")).events == ["opened auth=false"])
    }

    @Test func tokenInTheUpgrade() {
        let c = config(bindAny: true, token: "s3cret")
        #expect(run([upgrade()], config: c).events == ["opened auth=false"])
        #expect(run([upgrade(target: "/rpc?token=s3cret")], config: c).events == ["opened auth=true"])
        let viaProtocol = run([upgrade("Sec-WebSocket-Protocol: greenroom, greenroom.token.s3cret\r\n")], config: c)
        #expect(viaProtocol.events == ["opened auth=true"])
        #expect(viaProtocol.http.contains("Sec-WebSocket-Protocol: greenroom\r\n"))
        let wrong = run([upgrade(target: "/rpc?token=guess")], config: c)
        #expect(wrong.http.hasPrefix("HTTP/1.1 401 "))
        #expect(!wrong.http.contains("guess") && !wrong.http.contains("s3cret"), "tokens are never echoed")
    }
}

extension String {
    func replacingOccurrences(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
