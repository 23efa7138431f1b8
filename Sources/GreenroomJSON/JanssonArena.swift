import CJansson
import Glibc

/// Bump allocators for Jansson trees that live only inside one decode or encode on a chosen thread:
/// one for the server's loop thread, one for the thread that parses pipelined requests ahead of it.
/// Jansson allocates a handful of small blocks per value (object, hashtable, pairs, strings, lexer
/// buffers); from an arena they cost a pointer bump, and the whole tree is released by resetting the
/// arena when the outermost scope ends. Allocations on any other thread, outside a scope, or past the
/// arena's end go to malloc, and `free` tells them apart by address.
///
/// The two threads allocate at once, on two cores: what each writes per allocation (its cursor) sits
/// on cache lines of its own, apart from the other's and from what both read (owners and bounds,
/// written once in `adopt`, before any other thread can allocate through Jansson). Sharing one line,
/// each bump would take the line from the other core.
enum JanssonArena {
    /// An arena's fixed part: read by both threads, written once.
    struct Arena {
        var owner: pthread_t = 0
        var base: UnsafeMutableRawPointer? = nil
        var end: UnsafeMutableRawPointer? = nil
        /// Its moving part, on lines of its own.
        var cursor: UnsafeMutablePointer<Cursor>? = nil
    }

    /// What the owner thread writes: the next free byte and the scope depth.
    struct Cursor {
        var next: UnsafeMutableRawPointer?
        var depth: Int
    }

    /// Which arena a thread adopts.
    enum Role: Int { case loop = 0, parser = 1 }

    static let size = 1 << 20
    /// A cursor's allocation: two cache lines (adjacent-line prefetch pairs them), aligned.
    private static let cursorBytes = 128

    /// Two arenas, each allocated from only by the thread that owns it (`mine()` checks `pthread_self`).
    /// They live behind a pointer made once: both threads read through it, and neither makes a Swift
    /// access to a shared variable (an `inout` of a global is a write to Swift's exclusivity checks and
    /// to ThreadSanitizer, even when only read through).
    nonisolated(unsafe) static let arenas: UnsafeMutablePointer<Arena> = {
        let p = UnsafeMutablePointer<Arena>.allocate(capacity: 2)
        p.initialize(repeating: Arena(), count: 2)
        return p
    }()

    /// The arena owned by the calling thread, if any.
    @inline(__always)
    static func mine() -> UnsafeMutablePointer<Arena>? {
        let me = pthread_self()
        let s = arenas
        if s[0].owner == me { return s }
        if s[1].owner == me { return s + 1 }
        return nil
    }

    /// Set once, on the loop thread, before any other thread makes a Jansson value.
    nonisolated(unsafe) static var installed = false

    /// Gives an arena to `thread`. Call on the loop thread before `thread` makes Jansson values (for
    /// the parser: before its first job is posted).
    static func adopt(_ role: Role, thread: pthread_t) {
        let s = arenas + role.rawValue
        if s.pointee.owner == 0 {
            let b = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            let c = UnsafeMutableRawPointer.allocate(byteCount: cursorBytes, alignment: cursorBytes)
                .bindMemory(to: Cursor.self, capacity: 1)
            c.initialize(to: Cursor(next: b, depth: 0))
            s.pointee = Arena(owner: thread, base: b, end: b + size, cursor: c)
        }
        guard !installed else { return }
        installed = true
        json_set_alloc_funcs({ n in
            if let a = JanssonArena.mine(), let c = a.pointee.cursor, c.pointee.depth > 0, let p = c.pointee.next {
                let aligned = (n + 15) & ~15
                if p + aligned <= a.pointee.end! {
                    c.pointee.next = p + aligned
                    return p
                }
            }
            return malloc(n)
        }, { p in
            guard let p else { return }
            if JanssonArena.owns(p) { return }
            free(p)
        })
    }

    /// True for memory inside either arena (freed by the reset, not by `free`).
    @inline(__always)
    static func owns(_ p: UnsafeMutableRawPointer) -> Bool {
        let s = arenas
        for i in 0..<2 {
            if let b = s[i].base, p >= b && p < s[i].end! { return true }
        }
        return false
    }

    /// Runs `body` with the calling thread's arena active, if it has one; the arena resets when the
    /// outermost scope ends. Every Jansson value made inside must be released inside.
    @inline(__always)
    static func scope<R>(_ body: () throws -> R) rethrows -> R {
        guard let a = mine(), let c = a.pointee.cursor else { return try body() }
        c.pointee.depth += 1
        defer {
            c.pointee.depth -= 1
            if c.pointee.depth == 0 { c.pointee.next = a.pointee.base }
        }
        return try body()
    }
}

extension JSONCodec {
    /// Makes the calling thread (the server's loop) decode and encode through its own arena.
    public static func useArenaOnThisThread() { JanssonArena.adopt(.loop, thread: pthread_self()) }

    /// Gives `thread` (the one that parses pipelined requests ahead of the loop) the second arena.
    /// Call from the loop thread before that thread parses anything.
    public static func useParserArena(on thread: pthread_t) { JanssonArena.adopt(.parser, thread: thread) }
}
