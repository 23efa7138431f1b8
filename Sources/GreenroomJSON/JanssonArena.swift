import CJansson
import Glibc

/// A bump allocator for Jansson trees that live only inside one decode or encode on one chosen thread
/// (the server's loop thread). Jansson allocates a handful of small blocks per value (object,
/// hashtable, pairs, strings, lexer buffers); from the arena they cost a pointer bump, and the whole
/// tree is released by resetting the arena when the scope ends. Allocations on any other thread,
/// outside a scope, or past the arena's end go to malloc, and `free` tells them apart by address.
///
/// The state sits behind a raw pointer: Swift would check exclusive access to mutable globals on
/// every allocation, which costs more than the allocation itself.
enum JanssonArena {
    struct State {
        var base: UnsafeMutableRawPointer
        var end: UnsafeMutableRawPointer
        var next: UnsafeMutableRawPointer
        /// Only the owner thread reads or writes `depth` and `next`.
        var depth: Int
        var owner: pthread_t
    }

    static let size = 1 << 20
    /// Set once by `adopt`; nil until then (everything goes to malloc).
    nonisolated(unsafe) static let state: UnsafeMutablePointer<State> = {
        let s = UnsafeMutablePointer<State>.allocate(capacity: 1)
        let b = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        s.initialize(to: State(base: b, end: b + size, next: b, depth: 0, owner: 0))
        return s
    }()

    /// Gives the arena to the calling thread. Call once, before that thread makes Jansson values.
    static func adopt() {
        let s = state
        guard s.pointee.owner == 0 else { return }
        s.pointee.owner = pthread_self()
        json_set_alloc_funcs({ n in
            let s = JanssonArena.state
            if s.pointee.depth > 0, pthread_equal(pthread_self(), s.pointee.owner) != 0 {
                let p = s.pointee.next
                let aligned = (n + 15) & ~15
                if p + aligned <= s.pointee.end {
                    s.pointee.next = p + aligned
                    return p
                }
            }
            return malloc(n)
        }, { p in
            guard let p else { return }
            let s = JanssonArena.state
            if p >= s.pointee.base && p < s.pointee.end { return }
            free(p)
        })
    }

    /// Runs `body` with the arena active when this is the owner thread; the arena resets when the
    /// outermost scope ends. Every Jansson value made inside must be released inside.
    @inline(__always)
    static func scope<R>(_ body: () throws -> R) rethrows -> R {
        let s = state
        guard s.pointee.owner != 0, pthread_equal(s.pointee.owner, pthread_self()) != 0 else { return try body() }
        s.pointee.depth += 1
        defer {
            s.pointee.depth -= 1
            if s.pointee.depth == 0 { s.pointee.next = s.pointee.base }
        }
        return try body()
    }
}

extension JSONCodec {
    /// Makes the calling thread (the server's loop) decode and encode through the arena.
    public static func useArenaOnThisThread() { JanssonArena.adopt() }
}
