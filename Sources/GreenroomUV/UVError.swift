import CLibUV
import Glibc

/// A libuv or POSIX failure, with what was being done.
public struct UVError: Error, CustomStringConvertible {
    public let code: Int32
    public let what: String
    public var description: String {
        "\(what): \(String(cString: uv_strerror(code)))"
    }
}

/// The one funnel every libuv result goes through: a negative code becomes a thrown `UVError`.
@discardableResult
func uvCheck(_ rc: Int32, _ what: @autoclosure () -> String) throws -> Int32 {
    if rc < 0 { throw UVError(code: rc, what: what()) }
    return rc
}

/// A start-up problem worth a clear message and a non-zero exit.
public struct ServerSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Reinterprets a libuv handle pointer as its base type.
@inline(__always) func asHandle<T>(_ p: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_handle_t> {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: uv_handle_t.self)
}

@inline(__always) func asStream<T>(_ p: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_stream_t> {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: uv_stream_t.self)
}

/// Closes a heap-allocated handle and frees its memory in the close callback, as libuv requires.
func closeAndFree(_ handle: UnsafeMutablePointer<uv_handle_t>) {
    if uv_is_closing(handle) != 0 { return }
    uv_close(handle) { h in
        h.map { UnsafeMutableRawPointer($0).deallocate() }
    }
}

/// Allocates a zeroed libuv handle or request on the heap.
func allocateZeroed<T>(_ type: T.Type) -> UnsafeMutablePointer<T> {
    let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
    memset(raw, 0, MemoryLayout<T>.size)
    return raw.assumingMemoryBound(to: T.self)
}

/// Resident set size of this process, from /proc/self/statm.
public func residentSetBytes() -> Int {
    guard let f = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(f) }
    var size = 0, resident = 0
    guard withUnsafeMutablePointer(to: &size, { s in
        withUnsafeMutablePointer(to: &resident) { r in readStatm(f, s, r) }
    }) else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

private func readStatm(_ f: UnsafeMutablePointer<FILE>, _ s: UnsafeMutablePointer<Int>, _ r: UnsafeMutablePointer<Int>) -> Bool {
    var buf = [CChar](repeating: 0, count: 128)
    guard fgets(&buf, 128, f) != nil else { return false }
    let fields = String(cString: buf).split(separator: " ")
    guard fields.count >= 2, let a = Int(fields[0]), let b = Int(fields[1]) else { return false }
    s.pointee = a
    r.pointee = b
    return true
}
