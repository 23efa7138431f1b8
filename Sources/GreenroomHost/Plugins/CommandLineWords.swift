/// How `serve --plugin-command "CMD ARGS"` is split into the words of the command it runs: like a shell's
/// words, without a shell (docs/worker-protocol.md, "Starting a worker").
///
/// - Unquoted spaces and tabs separate words; several in a row are one separator.
/// - `'...'` keeps everything inside as it is (no escape works inside it).
/// - `"..."` keeps everything inside as it is, except that `\"` is `"` and `\\` is `\`.
/// - Outside quotes, `\` makes the next character an ordinary one (`\ ` is a space within a word).
/// - Quoted and unquoted parts next to each other make one word (`--name='a b'` is one word).
/// - Nothing else is special: no `$VARIABLES`, `~`, globs, pipes or redirections. The first word is the
///   executable, looked up in `PATH` when it has no `/`.
public enum CommandLineWords {
    public struct SplitError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static func split(_ line: String) throws(SplitError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var chars = Array(line)[...]
        while let c = chars.popFirst() {
            switch c {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                guard let end = chars.firstIndex(of: "'") else {
                    throw SplitError(description: "a single quote (') is never closed in: \(line)")
                }
                word += String(chars[chars.startIndex..<end])
                chars = chars[(end + 1)...]
            case "\"":
                inWord = true
                var closed = false
                while let d = chars.popFirst() {
                    if d == "\"" { closed = true; break }
                    if d == "\\", let e = chars.first, e == "\"" || e == "\\" {
                        word.append(e)
                        chars = chars.dropFirst()
                    } else {
                        word.append(d)
                    }
                }
                guard closed else { throw SplitError(description: "a double quote (\") is never closed in: \(line)") }
            case "\\":
                inWord = true
                guard let e = chars.popFirst() else {
                    throw SplitError(description: "a backslash ends the command with nothing to escape: \(line)")
                }
                word.append(e)
            default:
                inWord = true
                word.append(c)
            }
        }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw SplitError(description: "the command is empty") }
        return words
    }

    /// Words as one line that `split` reads back as the same words (for messages and `host.info`).
    public static func join(_ words: [String]) -> String {
        words.map { w in
            let plain = !w.isEmpty && w.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
            return plain ? w : "'" + w.replacingAll("'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
