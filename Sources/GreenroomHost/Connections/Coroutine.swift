import CCoroutine

/// A body that runs on a stack of its own, on the loop's thread, and can stop part-way (`suspend`) to be
/// carried on later (`resume`) — the call lane's way of letting a call wait on a plugin worker without
/// holding the loop: the loop goes on serving everyone else, and the worker's reply (which the loop
/// reads) carries the call on. There is no other thread: only one stack runs at a time, and the switch
/// happens only where the lane parks a call, so the host stays single-threaded in effect.
///
/// The stack is mapped once (lazily committed, with a guard page) and reused for each body.
final class Coroutine {
    /// Big enough for the deepest host call (JSON nested to the depth limit, hooks inside page
    /// sessions inside ranges) in a debug build; only the pages a call touches are ever committed.
    static let stackBytes = 8 << 20

    private let raw: OpaquePointer
    private var body: (() -> Void)?
    /// Whether the coroutine's code runs now (it is the one on the thread's stack).
    private(set) var isRunning = false
    /// Whether the body has returned (the coroutine can take another with `reset`).
    private(set) var isFinished = true

    /// Nil when the stack cannot be mapped.
    init?() {
        guard let raw = gr_coroutine_create(Self.stackBytes, { _ in }, nil) else { return nil }
        self.raw = raw
    }

    deinit { gr_coroutine_destroy(raw) }

    /// Gives the coroutine `body` to run from its start at the next `resume` (its previous body must
    /// have returned).
    func start(_ body: @escaping () -> Void) {
        precondition(isFinished, "a coroutine takes a new body only once its last one returned")
        self.body = body
        isFinished = false
        gr_coroutine_reset(raw, { arg in
            let me = Unmanaged<Coroutine>.fromOpaque(arg!).takeUnretainedValue()
            let body = me.body
            me.body = nil
            body?()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs the body from where it stopped until it suspends or returns; true when it returned. Called
    /// from the loop's own stack.
    @discardableResult
    func resume() -> Bool {
        precondition(!isRunning, "a coroutine resumed from inside itself")
        isRunning = true
        let finished = gr_coroutine_resume(raw) != 0
        isRunning = false
        if finished { isFinished = true }
        return finished
    }

    /// Stops the body here and goes back to whoever resumed it; returns when it is resumed again.
    /// Called from inside the body.
    func suspend() {
        precondition(isRunning, "suspend is called from inside the coroutine")
        isRunning = false
        gr_coroutine_yield(raw)
        isRunning = true
    }
}
