import GreenroomCore
import GreenroomJSON

/// What one connection said and heard, in order (docs/transcripts.md): the requests it sent and the
/// replies and events it received, after a header naming the format, the wire protocol and the clock.
public struct Transcript {
    /// The format this host writes and reads (a newer one is refused with a sentence).
    public static let formatVersion = 1

    public enum Entry: Equatable {
        /// A message the client sent (a request, a notification or a batch).
        case send(JSONValue)
        /// A line the client sent that was not JSON.
        case sendText(String)
        /// A message it received (a reply, a batch's replies, an event).
        case recv(JSONValue)
        /// A line for people; replay skips it.
        case comment(String)
    }

    public var protocolVersion: Int
    public var clock: String
    /// The UIKit the recording host modelled (its header's `uikit`): a transcript recorded before the
    /// member existed was recorded without `viewIsAppearing`, so it replays on `.ios16`.
    public var uikit: UIKitGeneration {
        header["uikit"]?.intValue.flatMap(UIKitGeneration.init(rawValue:)) ?? .ios16
    }
    /// The header as read (extra members, such as `host` and `plugins`, are kept for `--update`).
    public var header: JSONObject
    public var entries: [Entry]

    public init(protocolVersion: Int = GreenroomVersion.protocolVersion, clock: String, entries: [Entry] = [],
                extra: JSONObject = [:]) {
        self.protocolVersion = protocolVersion
        self.clock = clock
        var h: JSONObject = ["transcript": "greenroom", "version": .int(Self.formatVersion),
                             "protocol": .int(protocolVersion), "clock": .string(clock)]
        for m in extra.members { h[m.key] = m.value }
        header = h
        self.entries = entries
    }

    /// Why a file is not a transcript this host can replay: one sentence for a person.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a transcript from its text. Refuses (with the line number) a file that is empty, cut off
    /// mid-line, not JSON, without its header, or written by a newer format or protocol.
    public static func parse(_ text: String, name: String = "the transcript") throws(Refusal) -> Transcript {
        guard !text.isEmpty else { throw Refusal(description: "\(name) is empty: it has no header line") }
        guard text.hasSuffix("\n") else {
            throw Refusal(description: "\(name) is cut off: its last line has no newline (was it still being written?)")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        var transcript: Transcript?
        for (i, raw) in lines.enumerated() {
            let n = i + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy(\.isWhitespace) { continue }
            let value: JSONValue
            do { value = try JSONCodec.decode(Array(line.utf8)) } catch {
                throw Refusal(description: "\(name), line \(n), is not JSON: \(String(line.prefix(80)))")
            }
            guard case .object(let o) = value else {
                throw Refusal(description: "\(name), line \(n), is not a JSON object")
            }
            guard var t = transcript else {
                guard o["transcript"] == "greenroom" else {
                    throw Refusal(description: "\(name) has no transcript header: its first line must be {\"transcript\":\"greenroom\",\"version\":1,...}")
                }
                guard let version = o["version"]?.intValue else {
                    throw Refusal(description: "\(name)'s header has no format version")
                }
                guard version <= formatVersion else {
                    throw Refusal(description: "\(name) is transcript format \(version), written by a newer Greenroom; this one reads up to format \(formatVersion)")
                }
                let proto = o["protocol"]?.intValue ?? GreenroomVersion.protocolVersion
                guard proto <= GreenroomVersion.protocolVersion else {
                    throw Refusal(description: "\(name) was recorded with wire protocol \(proto), newer than this host's \(GreenroomVersion.protocolVersion)")
                }
                var parsed = Transcript(protocolVersion: proto, clock: o["clock"]?.stringValue ?? "virtual")
                parsed.header = o
                transcript = parsed
                continue
            }
            if let m = o["send"] {
                t.entries.append(.send(m))
            } else if case .string(let s)? = o["sendText"] {
                t.entries.append(.sendText(s))
            } else if let m = o["recv"] {
                t.entries.append(.recv(m))
            } else if case .string(let s)? = o["comment"] {
                t.entries.append(.comment(s))
            } else {
                throw Refusal(description: "\(name), line \(n), is neither send, sendText, recv nor comment")
            }
            transcript = t
        }
        guard let transcript else { throw Refusal(description: "\(name) has no header line") }
        return transcript
    }

    /// The transcript as its file holds it: the header, then one line per entry.
    public var text: String {
        var out = JSONCodec.encodeString(.object(header)) + "\n"
        for e in entries { out += Self.line(e) + "\n" }
        return out
    }

    /// One entry's line.
    public static func line(_ e: Entry) -> String {
        switch e {
        case .send(let m): JSONCodec.encodeString(["send": m])
        case .sendText(let s): JSONCodec.encodeString(["sendText": .string(s)])
        case .recv(let m): JSONCodec.encodeString(["recv": m])
        case .comment(let s): JSONCodec.encodeString(["comment": .string(s)])
        }
    }

    /// What the client received, in order.
    public var received: [JSONValue] {
        entries.compactMap { if case .recv(let m) = $0 { m } else { nil } }
    }
}
