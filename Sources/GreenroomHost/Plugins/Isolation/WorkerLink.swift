/// The host's end of a plugin worker's socket, as the loop serves it: the loop reads what the worker
/// writes as it comes (a libuv pipe's read callback) and keeps it until a call takes it; a call that
/// needs more parks (`CallLane.waitReceived`) until the loop has some. Writes are queued in order.
///
/// The server's link is a libuv pipe (`uv_pipe_open` on the socket); a host with no loop (`greenroom
/// replay` in process) reads and writes the socket itself, blocking where it waits.
package protocol WorkerLink: AnyObject {
    /// Queues `bytes` for the worker, after anything queued before. A write that fails shows in `take`.
    func send(_ bytes: [UInt8])
    /// Moves what arrived into `buffer`: true when something did, false when nothing is waiting. Throws
    /// `closed` once the worker closed its end (or reset it) and everything it wrote was taken, `io`
    /// when the socket failed.
    func take(into buffer: inout FrameBuffer) throws(WireError) -> Bool
    /// Calls `done(true)` once something arrived (or the socket ended), at once when something waits
    /// already, or `done(false)` when `timeoutMs` passes first (nil: no limit).
    func whenReceived(timeoutMs: Int?, _ done: @escaping (Bool) -> Void)
    /// Calls `hungUp` on the loop, once, when the worker closes its end while no call waits on it (a
    /// worker that died between calls).
    func watchHangUp(_ hungUp: @escaping () -> Void)
    /// Ends the hang-up watch.
    func stopWatching()
    /// Whether the worker's end is known to be gone.
    var hasHungUp: Bool { get }
    /// Closes the socket (a queued write is dropped; the worker reads end of file).
    func close()
}
