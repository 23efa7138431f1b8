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

/// The direct path for whole values (objects, arrays, whole doubles) writes exactly what Jansson writes,
/// and hands Jansson anything it cannot write the same.
@Suite struct DirectEncodingTests {
    private func viaJansson(_ v: JSONValue) -> [UInt8] { JSONCodec.encodeWithJansson(v) }

    @Test func doublesMatchJansson() {
        let values: [Double] = [0, -0.0, 1, -1, 375, 667, 0.5, -2.25, 1e15, -1e15, 9_007_199_254_740_991, 9_007_199_254_740_992,
                                1e16, 1e17, 1e300, 0.1, 123.456, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .nan, .infinity]
        for d in values {
            #expect(JSONCodec.encode(.double(d)) == viaJansson(.double(d)), "\(d)")
            #expect(JSONCodec.encode(["size": ["width": .double(d), "height": 2]]) == viaJansson(["size": ["width": .double(d), "height": 2]]), "\(d)")
        }
        #expect(String(decoding: JSONCodec.encode(.double(375)), as: UTF8.self) == "375.0")
    }

    @Test func anyFiniteDoubleMatchesJansson() {
        var rng = SplitMix(seed: 11)
        var direct = 0
        for _ in 0..<5000 {
            // Every exponent, sign and mantissa: random bit patterns (NaN and the infinities included).
            let d = Double(bitPattern: rng.next())
            #expect(JSONCodec.encode(.double(d)) == viaJansson(.double(d)), "\(d)")
            let out = ByteBuffer(capacity: 32)
            if out.appendReal(d) { direct += 1 }
        }
        #expect(direct > 4900, "finite doubles are written directly")
        for d in [1e-5, -1e-300, 1.5e300, 1e21, 1e-7, 0.000123, 123456789.125] {
            #expect(JSONCodec.encode(.double(d)) == viaJansson(.double(d)), "\(d)")
        }
        #expect(String(decoding: JSONCodec.encode(.double(1e-5)), as: UTF8.self) == "1.0000000000000001e-5")
    }

    @Test func nestedValuesMatchJansson() {
        var rng = SplitMix(seed: 7)
        for _ in 0..<3000 {
            let v = rng.value(depth: 0)
            #expect(JSONCodec.encode(v) == viaJansson(v), "\(v)")
        }
    }

    @Test func repeatedKeysAreLeftToJansson() {
        let small = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        #expect(JSONCodec.encode(.object(small)) == viaJansson(.object(small)))
        var big = JSONObject((0..<20).map { (key: "k\($0)", value: JSONValue.int($0)) })
        #expect(JSONCodec.encode(.object(big)) == viaJansson(.object(big)))
        big.members.append((key: "k3", value: "again"))
        #expect(JSONCodec.encode(.object(big)) == viaJansson(.object(big)))
    }

    @Test func aFallbackLeavesNothingHalfWritten() throws {
        let out = ByteBuffer(capacity: 8)
        out.append("x")
        // The string needs escaping only after the direct path wrote the first members.
        JSONCodec.encode(["a": 1, "b": [true, "quote\"", 2.5]], into: out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"x{"a":1,"b":[true,"quote\"",2.5]}"#)
    }
}

/// A small deterministic generator of JSON values for comparing encoders.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    private static let strings = ["", "a", "c-12", "viewWillAppear", "ünï", "tab\t", "q\"", "\u{2028}", "/", "\u{1}", "中文"]
    private static let doubles: [Double] = [0, -0.0, 1, 375, -667, 0.5, 1e16, 3.25, 1e20, .nan]

    mutating func value(depth: Int) -> JSONValue {
        switch below(depth < 4 ? 8 : 6) {
        case 0: return .null
        case 1: return .bool(below(2) == 0)
        case 2: return .int(Int(truncatingIfNeeded: next()) >> below(64))
        case 3: return .string(Self.strings[below(Self.strings.count)])
        case 4: return .double(Self.doubles[below(Self.doubles.count)])
        case 5: return .double(Double(below(2_000_001)) - 1_000_000)
        case 6: return .array((0..<below(5)).map { _ in value(depth: depth + 1) })
        default:
            let keys = ["container", "class", "k", "width", "ünï", "q\"", "k"]
            return .object(JSONObject((0..<below(6)).map { _ in (key: keys[below(keys.count)], value: value(depth: depth + 1)) }))
        }
    }
}
