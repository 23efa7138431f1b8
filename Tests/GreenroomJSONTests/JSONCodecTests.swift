import Testing
@testable import GreenroomJSON

@Suite struct JSONCodecTests {
    @Test func roundTripsEveryType() throws {
        let v: JSONValue = ["a": nil, "b": true, "c": 42, "d": 1.5, "e": "x\ny\u{0}é😀", "f": [1, [2, [3]]], "g": ["h": false]]
        let bytes = JSONCodec.encode(v)
        #expect(!bytes.contains(0x0A), "encoded JSON must not contain a raw newline")
        #expect(try JSONCodec.decode(bytes) == v)
    }

    @Test func keepsMemberOrder() throws {
        let text = #"{"z":1,"a":2,"m":3}"#
        let v = try JSONCodec.decode(text)
        #expect(v.objectValue?.keys == ["z", "a", "m"])
        #expect(JSONCodec.encodeString(v) == text)
    }

    @Test func compactOutput() {
        #expect(JSONCodec.encodeString(["a": [1, 2], "b": "c"]) == #"{"a":[1,2],"b":"c"}"#)
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONCodec.encodeString([.double(.nan), .double(.infinity)]) == "[null,null]")
    }

    @Test func decodesTopLevelScalars() throws {
        #expect(try JSONCodec.decode("5") == 5)
        #expect(try JSONCodec.decode("\"s\"") == "s")
        #expect(try JSONCodec.decode("null") == .null)
    }

    @Test func syntaxErrorsSayWhere() {
        #expect(throws: JSONDecodeError.self) { try JSONCodec.decode("{\"a\":") }
        do {
            _ = try JSONCodec.decode("[1,,2]")
            Issue.record("expected a syntax error")
        } catch {
            guard case .syntax(_, let line, _, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(line == 1)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONDecodeError.self) { try JSONCodec.decode([0x22, 0xFF, 0x22]) }
    }

    @Test func depthLimitCountsContainers() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        _ = try JSONCodec.decode(ok, maxDepth: 64)
        #expect(throws: JSONDecodeError.tooDeep(limit: 64)) { try JSONCodec.decode(deep, maxDepth: 64) }
    }

    @Test func numbers() throws {
        #expect(try JSONCodec.decode("9007199254740993") == .int(9007199254740993))
        #expect(try JSONCodec.decode("-0.25") == .double(-0.25))
        #expect(JSONValue.double(3).intValue == 3)
        #expect(JSONValue.double(3.5).intValue == nil)
    }
}

/// The encoder's direct paths for scalars write exactly what Jansson writes.
@Suite struct ScalarFastPathTests {
    private func viaJansson(_ v: JSONValue) -> [UInt8] { JSONCodec.encodeWithJansson(v) }

    @Test func integersMatchJansson() {
        for i in [0, 1, -1, 9, 10, 99, 100, -100, 1 << 31, Int(Int32.min), Int.max, Int.min, 1234567890123] {
            #expect(JSONCodec.encode(.int(i)) == viaJansson(.int(i)), "\(i)")
        }
    }

    @Test func plainStringsMatchJansson() {
        for s in ["", "a", "host.ping", "p-12", "ünïcödé 中文", "tab\there", "quote\"", "back\\slash", "\u{1}", "/slash", "\u{7F}"] {
            #expect(JSONCodec.encode(.string(s)) == viaJansson(.string(s)), "\(s)")
        }
        #expect(JSONCodec.encode(.null) == Array("null".utf8))
        #expect(JSONCodec.encode(.bool(true)) == Array("true".utf8))
        #expect(JSONCodec.encode(.bool(false)) == Array("false".utf8))
    }

    @Test func unicodeLineSeparatorsAreEscaped() throws {
        for (s, escaped) in [("a\u{2028}b", #""a\u2028b""#), ("\u{2029}", #""\u2029""#), ("x\u{85}y", #""x\u0085y""#),
                             ("\u{2028}\u{2029}\u{85}–é", #""\u2028\u2029\u0085–é""#)] {
            let bytes = JSONCodec.encode(.string(s))
            #expect(String(decoding: bytes, as: UTF8.self) == escaped)
            #expect(try JSONCodec.decode(bytes) == .string(s), "still the same string")
            let nested = JSONCodec.encode(["k": .array([.string(s)])])
            #expect(try JSONCodec.decode(nested) == ["k": .array([.string(s)])])
            #expect(!String(decoding: nested, as: UTF8.self).contains("\u{2028}"))
        }
    }
}
