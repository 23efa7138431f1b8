import Glibc

/// Writes `text` to standard error at once (unbuffered, as `fputs` to `stderr` is). A plain `write(2)`:
/// Glibc's `stderr` is a mutable global that Swift 6's strict concurrency will not let code read.
public func writeStandardError(_ text: String) {
    var rest = Array(text.utf8)[...]
    while !rest.isEmpty {
        let n = rest.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        rest = rest.dropFirst(n)
    }
}
