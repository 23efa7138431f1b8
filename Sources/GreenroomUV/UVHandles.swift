import CLibUV
import Glibc

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
