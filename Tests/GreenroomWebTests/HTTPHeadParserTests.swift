import Testing
@testable import GreenroomWeb

private func parse(_ chunks: [[UInt8]]) -> HTTPHeadParser.Result {
    var parser = HTTPHeadParser(maxBytes: 256)
    var result = HTTPHeadParser.Result.needMore
    for chunk in chunks {
        // Once the head is complete, what follows is the caller's (as the codec does).
        if case .head(let head, let rest) = result { result = .head(head, rest: rest + chunk); continue }
        let r = chunk.withUnsafeBytes { parser.feed($0) }
        if r != .needMore { result = r }
    }
    return result
}

@Suite struct HTTPHeadParserTests {
    @Test func headAndTheBytesAfterIt() {
        let stream = Array("GET /rpc?token=abc HTTP/1.1\r\nHost: localhost:1\r\nX-Two:  a, b \r\nx-two: c\r\n\r\n\u{81}\u{85}".utf8)
        for (name, chunks) in Feeding.cuts(stream) {
            guard case .head(let head, let rest) = parse(chunks) else { Issue.record("\(name): no head"); continue }
            #expect(head.method == "GET" && head.target == "/rpc?token=abc" && head.minorVersion == 1, "\(name)")
            #expect(head.path == "/rpc" && head.queryParameter("token") == "abc", "\(name)")
            #expect(head.value("host") == "localhost:1", "\(name)")
            #expect(head.values("X-TWO") == ["a, b", "c"] && head.tokens("x-two") == ["a", "b", "c"], "\(name)")
            #expect(head.value("x-two") == nil, "a repeated header has no single value")
            #expect(rest == Array("\u{81}\u{85}".utf8), "\(name)")
        }
    }

    @Test func incompleteHeadNeedsMore() {
        #expect(parse([Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)]) == .needMore)
    }

    @Test func strictRefusals() {
        let cases: [(String, Int)] = [
            ("GET / HTTP/1.1\nHost: x\n\n", 400),             // bare LF
            ("GET  / HTTP/1.1\r\n\r\n", 400),                 // two spaces
            ("GET / HTTP/1.1 extra\r\n\r\n", 400),
            ("G(T / HTTP/1.1\r\n\r\n", 400),                  // not a token
            ("GET / HTTP/2.0\r\n\r\n", 505),
            ("GET / FTP/1.0\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nName : v\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\n folded: v\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nA: b\u{01}c\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", 400),
            ("GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\n\r\n", 431),
        ]
        for (text, status) in cases {
            for (name, chunks) in Feeding.cuts(Array(text.utf8)) {
                guard case .failed(let s, _) = parse(chunks) else { Issue.record("\(text.debugDescription) \(name): not refused"); continue }
                #expect(s == status, "\(text.debugDescription) \(name)")
            }
        }
    }

    @Test func aBareLFIsRefusedWithoutWaitingForTheEnd() {
        #expect(parse([Array("GET / HTTP/1.1\n".utf8)]) != .needMore)
    }
}

@Suite struct BrowserPolicyTests {
    @Test func loopbackHosts() {
        for h in ["localhost", "LOCALHOST", "app.localhost", "localhost.", "127.0.0.1", "127.1.2.3", "::1"] {
            #expect(BrowserPolicy.isLoopbackHost(h), "\(h)")
        }
        for h in ["example.com", "localhost.example.com", "128.0.0.1", "127.0.0.256", "127.0.0", "0.0.0.0", "::", "127.0.0.1.nip.io"] {
            #expect(!BrowserPolicy.isLoopbackHost(h), "\(h)")
        }
        #expect(BrowserPolicy.hostName(ofAuthority: "[::1]:8765") == "::1")
        #expect(BrowserPolicy.hostName(ofAuthority: "localhost:8765") == "localhost")
        #expect(BrowserPolicy.hostName(ofAuthority: "localhost") == "localhost")
    }

    @Test func ownOrigins() {
        #expect(BrowserPolicy(listenerAuthority: "127.0.0.1:80").ownOrigins == ["http://127.0.0.1:80", "http://localhost:80"])
        #expect(BrowserPolicy(listenerAuthority: "[::1]:9").ownOrigins == ["http://[::1]:9", "http://localhost:9"])
        #expect(BrowserPolicy(listenerAuthority: "10.0.0.2:9", bindAny: true).ownOrigins == ["http://10.0.0.2:9"])
    }

    @Test func origins() {
        let p = BrowserPolicy(listenerAuthority: "127.0.0.1:80", allowedOrigins: ["http://dev.local:3000"])
        #expect(p.checkOrigin(nil) == nil)
        #expect(p.checkOrigin("http://127.0.0.1:80") == nil)
        #expect(p.checkOrigin("http://dev.local:3000") == nil)
        #expect(p.checkOrigin("http://127.0.0.1:81")?.status == 403)
        #expect(p.checkOrigin("null")?.status == 403, "a sandboxed or file: page is another origin")
        #expect(p.checkOrigin("https://127.0.0.1:80")?.message.contains("--allow-origin https://127.0.0.1:80") == true)
    }

    @Test func tokens() {
        let p = BrowserPolicy(listenerAuthority: "127.0.0.1:80", token: "abc")
        #expect(p.checkToken(nil) == .success(false))
        #expect(p.checkToken("abc") == .success(true))
        if case .failure(let r) = p.checkToken("abd") { #expect(r.status == 401) } else { Issue.record("a wrong token passed") }
        #expect(BrowserPolicy(listenerAuthority: "127.0.0.1:80").checkToken(nil) == .success(true), "no token to check: authenticated")
    }
}
