import GreenroomPluginKit

/// A Mustache-style template, parsed once and rendered many times: `{{name}}` (HTML-escaped),
/// `{{{name}}}` or `{{&name}}` (raw), `{{#name}}...{{/name}}` (repeated for each element of an array,
/// once for any other truthy value), `{{^name}}...{{/name}}` (when falsy), `{{! comment}}`. Names may
/// be dotted (`author.name`); `.` is the current element.
struct Template {
    indirect enum Node {
        case text(String)
        case variable([String], escaped: Bool)
        case section([String], inverted: Bool, body: [Node])
    }

    struct ParseError: Error, CustomStringConvertible {
        let message: String
        let line: Int
        var description: String { "template line \(line): \(message)" }
    }

    let nodes: [Node]
    /// Bytes the parsed form holds (text, names and per-node overhead), for `memoryBytes`.
    let byteCount: Int
    /// Nodes, counting those inside sections.
    let nodeCount: Int

    init(parsing source: String) throws {
        var parser = Parser(bytes: Array(source.utf8))
        let (nodes, closing) = try parser.parse(until: nil)
        if let closing { throw ParseError(message: "{{/\(closing)}} closes no section", line: parser.line) }
        self.nodes = nodes
        (byteCount, nodeCount) = Template.measure(nodes)
    }

    private static func measure(_ nodes: [Node]) -> (bytes: Int, count: Int) {
        var bytes = 0, count = 0
        for node in nodes {
            count += 1
            bytes += 32
            switch node {
            case .text(let s): bytes += s.utf8.count
            case .variable(let path, _): bytes += path.reduce(0) { $0 + $1.utf8.count + 16 }
            case .section(let path, _, let body):
                bytes += path.reduce(0) { $0 + $1.utf8.count + 16 }
                let inner = measure(body)
                bytes += inner.bytes
                count += inner.count
            }
        }
        return (bytes, count)
    }

    /// Renders with `data` as the outermost context.
    func render(_ data: JSONValue) -> String {
        var out = ""
        out.reserveCapacity(byteCount * 2)
        var stack = [data]
        Template.render(nodes, &stack, into: &out)
        return out
    }

    private static func render(_ nodes: [Node], _ stack: inout [JSONValue], into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let s):
                out += s
            case .variable(let path, let escaped):
                guard let value = lookup(path, in: stack) else { continue }
                let text = format(value)
                if escaped { escapeHTML(text, into: &out) } else { out += text }
            case .section(let path, let inverted, let body):
                let value = lookup(path, in: stack)
                if inverted {
                    if !isTruthy(value) { render(body, &stack, into: &out) }
                    continue
                }
                guard let value, isTruthy(value) else { continue }
                if case .array(let items) = value {
                    for item in items {
                        stack.append(item)
                        render(body, &stack, into: &out)
                        stack.removeLast()
                    }
                } else {
                    stack.append(value)
                    render(body, &stack, into: &out)
                    stack.removeLast()
                }
            }
        }
    }

    /// The first name is looked up from the innermost context outwards; the rest are members.
    private static func lookup(_ path: [String], in stack: [JSONValue]) -> JSONValue? {
        if path == ["."] { return stack.last }
        var value: JSONValue?
        for context in stack.reversed() {
            if let v = context[path[0]] {
                value = v
                break
            }
        }
        for name in path.dropFirst() { value = value?[name] }
        return value
    }

    private static func isTruthy(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?, .bool(false)?: false
        case .array(let a)?: !a.isEmpty
        case .string(let s)?: !s.isEmpty
        default: true
        }
    }

    private static func format(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .string(let s): s
        case .array, .object: JSONCodec.encodeString(value)
        }
    }

    private static func escapeHTML(_ text: String, into out: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
    }

    /// A recursive-descent parser over the template's UTF-8 bytes.
    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        var line = 1

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Parses nodes until `{{/name}}` (returned) or the end.
        mutating func parse(until section: String?) throws -> ([Node], closing: String?) {
            var nodes: [Node] = []
            var textStart = i
            func flushText(_ end: Int) {
                if end > textStart { nodes.append(.text(String(decoding: bytes[textStart..<end], as: UTF8.self))) }
            }
            while i < bytes.count {
                guard bytes[i] == UInt8(ascii: "{"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{") else {
                    if bytes[i] == UInt8(ascii: "\n") { line += 1 }
                    i += 1
                    continue
                }
                flushText(i)
                let tagLine = line
                let triple = i + 2 < bytes.count && bytes[i + 2] == UInt8(ascii: "{")
                let open = i + (triple ? 3 : 2)
                let close: [UInt8] = triple ? Array("}}}".utf8) : Array("}}".utf8)
                guard let end = find(close, from: open) else {
                    throw ParseError(message: "unclosed tag", line: tagLine)
                }
                let raw = bytes[open..<end]
                for b in raw where b == UInt8(ascii: "\n") { line += 1 }
                i = end + close.count
                textStart = i
                var tag = String(decoding: raw, as: UTF8.self)
                if triple {
                    nodes.append(.variable(try Parser.path(tag, line: tagLine), escaped: false))
                    continue
                }
                let sigil = tag.first
                if let sigil, "#^/!&".contains(sigil) { tag.removeFirst() }
                switch sigil {
                case "!":
                    continue
                case "&":
                    nodes.append(.variable(try Parser.path(tag, line: tagLine), escaped: false))
                case "#", "^":
                    let path = try Parser.path(tag, line: tagLine)
                    let name = path.joined(separator: ".")
                    let (body, closing) = try parse(until: name)
                    guard closing == name else {
                        throw ParseError(message: "section {{\(sigil!)\(name)}} is never closed", line: tagLine)
                    }
                    nodes.append(.section(path, inverted: sigil == "^", body: body))
                    textStart = i
                case "/":
                    let name = try Parser.path(tag, line: tagLine).joined(separator: ".")
                    guard name == section else {
                        throw ParseError(message: section.map { "{{/\(name)}} closes {{#\($0)}}" }
                            ?? "{{/\(name)}} closes no section", line: tagLine)
                    }
                    return (nodes, name)
                default:
                    nodes.append(.variable(try Parser.path(tag, line: tagLine), escaped: true))
                }
            }
            flushText(bytes.count)
            return (nodes, nil)
        }

        private func find(_ needle: [UInt8], from start: Int) -> Int? {
            var j = start
            while j + needle.count <= bytes.count {
                if bytes[j] == needle[0] && bytes[j..<j + needle.count].elementsEqual(needle) { return j }
                j += 1
            }
            return nil
        }

        static func path(_ tag: String, line: Int) throws -> [String] {
            let name = tag.trimmingWhitespace()
            guard !name.isEmpty else { throw ParseError(message: "empty tag", line: line) }
            if name == "." { return ["."] }
            let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !parts.contains(where: \.isEmpty) else { throw ParseError(message: "bad name \(name)", line: line) }
            return parts
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
