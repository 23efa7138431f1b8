import Glibc

/// A page of memory a plugin worker shares with its host: the worker writes how many hooks of the
/// current batch it has started. A batch's replies come back in one message at its end (one write, one
/// wake-up), so when the worker dies or runs late in the middle of one, this says which hook it was in:
/// that hook fails (crashed, or past its deadline), the ones before it ran, the ones after it did not.
package final class BatchProgress {
    private let page: UnsafeMutableRawPointer
    package static let size = 4096

    private init(page: UnsafeMutableRawPointer) { self.page = page }

    deinit { munmap(page, Self.size) }

    /// Hooks of the current batch started so far (the worker sets it before each; the host clears it
    /// before sending a batch). A volatile word: the other process changes it.
    package var started: Int {
        get { Int(page.assumingMemoryBound(to: UInt32.self).pointee) }
        set { page.assumingMemoryBound(to: UInt32.self).pointee = UInt32(truncatingIfNeeded: newValue) }
    }

    /// Maps the page behind `fd` (the worker's side, from `--progress-fd`).
    package static func map(fd: Int32) -> BatchProgress? {
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else { return nil }
        return BatchProgress(page: p)
    }

    /// A new shared page (the host's side): an unlinked file in /dev/shm (or the temporary directory),
    /// mapped, and its descriptor for the worker to inherit (the caller closes it once the worker started).
    package static func create() -> (progress: BatchProgress, fd: Int32)? {
        for dir in ["/dev/shm", getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"] {
            var template = Array("\(dir)/greenroom-progress-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { continue }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            guard ftruncate(fd, off_t(size)) == 0, let progress = map(fd: fd) else {
                close(fd)
                continue
            }
            return (progress, fd)
        }
        return nil
    }
}
