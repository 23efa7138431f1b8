import GreenroomJSON

/// Compares what a transcript recorded with what was received again (docs/transcripts.md): values that
/// legitimately differ between two runs are left out, and the first difference is told in short lines
/// under the request that caused it.
public struct TranscriptComparison {
    /// Members left out wherever they are: process ids, measured memory and costs, addresses and paths.
    static let varying: Set<String> = ["pid", "rssBytes", "listen", "path", "avgCostMs", "passes", "lane"]

    public let recorded: Transcript
    public let received: [JSONValue]

    public init(recorded: Transcript, received: [JSONValue]) {
        self.recorded = recorded
        self.received = received
    }

    /// The first difference in words (nil: the same).
    public func difference() -> String? {
        let a = recorded.received.map(normalised)
        let b = received.map(normalised)
        guard let i = a.indices.first(where: { $0 >= b.count || a[$0] != b[$0] }) ?? (a.count == b.count ? nil : a.count) else {
            return nil
        }
        let expected = recorded.received
        let got = received
        let anchor = i < expected.count ? expected[i] : got[i]
        var out = "transcripts differ at message \(i + 1) of \(expected.count) recorded (\(got.count) replayed)"
        if let request = request(causing: anchor) { out += ", under request \(request)" }
        out += ":\n"
        let lo = max(0, i - 3), hi = min(max(expected.count, got.count), i + 4)
        let width = max(8, (lo..<hi).map { $0 < expected.count ? Self.short(expected[$0]).count : 0 }.max() ?? 8) + 2
        out += "     " + "recorded".rightPadded(to: width) + "replayed\n"
        for k in lo..<hi {
            let left = k < expected.count ? Self.short(expected[k]) : "(nothing)"
            let right = k < got.count ? Self.short(got[k]) : "(nothing)"
            let mark = k == i ? ">" : " "
            out += "\(mark)\(String(k + 1).leftPadded(to: 4)) \(left.rightPadded(to: width))\(right)\n"
        }
        if i < expected.count, i < got.count {
            out += "  recorded: \(JSONCodec.encodeString(expected[i]))\n  replayed: \(JSONCodec.encodeString(got[i]))\n"
        }
        return out
    }

    /// The value without what legitimately varies (and `t` under a real clock).
    func normalised(_ v: JSONValue) -> JSONValue {
        normalise(v, realClock: recorded.clock == "real", key: nil)
    }

    private func normalise(_ v: JSONValue, realClock: Bool, key: String?) -> JSONValue {
        switch v {
        case .object(let o):
            var out = JSONObject()
            for m in o.members {
                if Self.varying.contains(m.key) || (realClock && m.key == "t") { out[m.key] = "*"; continue }
                // Connection ids depend on how many connections the host saw before; host.stats' counts of
                // them on a harness's own checks.
                if m.key == "connection" || (m.key == "connections" && key == "result") { out[m.key] = "*"; continue }
                if (m.key == "open" || m.key == "close") && key == "cause" { out[m.key] = "*"; continue }
                out[m.key] = normalise(m.value, realClock: realClock, key: m.key)
            }
            return .object(out)
        case .array(let a):
            return .array(a.map { normalise($0, realClock: realClock, key: key) })
        default:
            return v
        }
    }

    /// The request a received message comes under: a reply's id, or the id an event's cause names,
    /// with the request's method and params.
    private func request(causing m: JSONValue) -> String? {
        var id: JSONValue?
        if let i = m["id"] { id = i } else if let c = m["params"]?["cause"] {
            switch c {
            case .object(let o): id = o["id"] ?? o["scheduledBy"].flatMap { $0.objectValue == nil ? $0 : $0["id"] }
            default: id = c
            }
        }
        guard let id else { return nil }
        for e in recorded.entries {
            guard case .send(let s) = e else { continue }
            for req in s.arrayValue ?? [s] where req["id"] == id {
                let method = req["method"]?.stringValue ?? "?"
                let params = req["params"].map { " " + JSONCodec.encodeString($0) } ?? ""
                return "\(JSONCodec.encodeString(id)) (\(method)\(params.count > 120 ? String(params.prefix(117)) + "..." : params))"
            }
        }
        return JSONCodec.encodeString(id)
    }

    /// One received message in a few words: `c-3 viewWillAppear (cause 12)`, `page willTransition 1 -> 2`,
    /// `reply 12 {...}`, `error 12 -32003 invalidState`.
    public static func short(_ m: JSONValue) -> String {
        if let batch = m.arrayValue { return "batch of \(batch.count) replies" }
        let cause = m["params"]?["cause"].map { " (cause \(causeWords($0)))" } ?? ""
        if let topic = m["method"]?.stringValue, let p = m["params"] {
            switch topic {
            case "lifecycle":
                return "\(p["container"]?.stringValue ?? "?") \(p["event"]?.stringValue ?? "?")\(cause)"
            case "page":
                return "page \(p["kind"]?.stringValue ?? "?") \(p["from"].map(JSONCodec.encodeString) ?? "?") -> \(p["to"].map(JSONCodec.encodeString) ?? "?")\(cause)"
            default:
                return "\(topic) \(p["kind"]?.stringValue ?? p["mode"]?.stringValue ?? "")\(cause)"
            }
        }
        let id = m["id"].map(JSONCodec.encodeString) ?? "?"
        if let e = m["error"] {
            return "error \(id) \(e["code"].map(JSONCodec.encodeString) ?? "?") \(e["data"]?["kind"]?.stringValue ?? "")"
        }
        let result = m["result"].map(JSONCodec.encodeString) ?? "null"
        return "reply \(id) \(result.count > 48 ? String(result.prefix(45)) + "..." : result)"
    }

    private static func causeWords(_ c: JSONValue) -> String {
        guard case .object(let o) = c else { return JSONCodec.encodeString(c) }
        if let id = o["id"] { return JSONCodec.encodeString(id) }
        if let t = o["timer"]?.stringValue {
            return "timer \(t)" + (o["scheduledBy"].map { ", scheduled by \(causeWords($0))" } ?? "")
        }
        if let first = o.members.first { return "\(first.key) \(first.value.stringValue ?? JSONCodec.encodeString(first.value))" }
        return "?"
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
    fileprivate func rightPadded(to n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}
