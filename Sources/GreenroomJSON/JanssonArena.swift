import CJansson
import Glibc

/// Bump allocators for Jansson trees that live only inside one decode or encode on a chosen thread:
/// one for the server's loop thread, one for the thread that parses pipelined requests ahead of it.
/// Jansson allocates a handful of small blocks per value (object, hashtable, pairs, strings, lexer
/// buffers); from an arena they cost a pointer bump, and the whole tree is released by resetting the
/// arena when the outermost scope ends. Allocations on any other thread, outside a scope, or past the
/// arena's end go to malloc, and `free` tells them apart by address.
///
/// The state is a statically initialised global (no lazy-initialisation check per allocation) that
/// each owner thread mutates alone: `base`, `end` and `owner` are written once in `adopt`, before
/// any other thread can allocate through Jansson; `next` and `depth` only by the owner.
enum JanssonArena {
    struct Slot {
        var base: UnsafeMutableRawPointer? = nil
        var end: UnsafeMutableRawPointer? = nil
        var next: UnsafeMutableRawPointer? = nil
        var depth = 0
        var owner: pthread_t = 0
    }

    /// Which arena a thread adopts.
    enum Role: Int { case loop = 0, parser = 1 }

    static let size = 1 << 20

    /// Two arenas, each touched only by the thread that owns it (`mine()` checks `pthread_self`), so the
    /// shared storage is never raced although Swift cannot prove it.
    nonisolated(unsafe) static var slots: (Slot, Slot) = (Slot(), Slot())

    /// The arena owned by the calling thread, if any.
    @inline(__always)
    static func mine() -> UnsafeMutablePointer<Slot>? {
        let me = pthread_self()
        return withUnsafeMutablePointer(to: &slots) { p in
            let s = UnsafeMutableRawPointer(p).assumingMemoryBound(to: Slot.self)
            if s[0].owner == me { return s }
            if s[1].owner == me { return s + 1 }
            return nil
        }
    }

    /// Set once, on the loop thread, before any other thread makes a Jansson value.
    nonisolated(unsafe) static var installed = false

    /// Gives an arena to `thread`. Call on the loop thread before `thread` makes Jansson values (for
    /// the parser: before its first job is posted).
    static func adopt(_ role: Role, thread: pthread_t) {
        withUnsafeMutablePointer(to: &slots) { p in
            let s = UnsafeMutableRawPointer(p).assumingMemoryBound(to: Slot.self) + role.rawValue
            guard s.pointee.owner == 0 else { return }
            let b = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
            s.pointee = Slot(base: b, end: b + size, next: b, depth: 0, owner: thread)
        }
        guard !installed else { return }
        installed = true
        json_set_alloc_funcs({ n in
            if let s = JanssonArena.mine(), s.pointee.depth > 0, let p = s.pointee.next {
                let aligned = (n + 15) & ~15
                if p + aligned <= s.pointee.end! {
                    s.pointee.next = p + aligned
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
        withUnsafeMutablePointer(to: &slots) { q in
            let s = UnsafeMutableRawPointer(q).assumingMemoryBound(to: Slot.self)
            for i in 0..<2 {
                if let b = s[i].base, p >= b && p < s[i].end! { return true }
            }
            return false
        }
    }

    /// Runs `body` with the calling thread's arena active, if it has one; the arena resets when the
    /// outermost scope ends. Every Jansson value made inside must be released inside.
    @inline(__always)
    static func scope<R>(_ body: () throws -> R) rethrows -> R {
        guard let s = mine() else { return try body() }
        s.pointee.depth += 1
        defer {
            s.pointee.depth -= 1
            if s.pointee.depth == 0 { s.pointee.next = s.pointee.base }
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
