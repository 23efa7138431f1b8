import GreenroomCore

/// What one piece of work — a call, a timer, an idle pass, a connection's teardown — has set on the host's
/// shared parts: the causes its events name and the events it holds back (`EventRouter.CallState`), how
/// its hooks run and the failures they had (`Containers.CallState`), the records its plan saved
/// (`RecordJournal.Recording`), and what it queued for the virtual clock's note (`Host.CallNotes`). The
/// call's own id, method and held reply are the processor's (`RPCCall`).
///
/// It belongs to the work: bound as a task-local for as long as the work runs, so a call that waits keeps
/// its own while others run, and nothing one sets is seen by another. Work that never waits (a ping, a
/// range stream, a timer that runs no hook) uses the host's base scope: it runs to its end before anything
/// else runs, and leaves the base scope as it found it. `@unchecked Sendable` because a task-local's value
/// must be: it is made and used on the host's loop thread only.
final class CallScope: @unchecked Sendable {
    @TaskLocal static var current: CallScope?

    var events = EventRouter.CallState()
    var containers = Containers.CallState()
    let journal = RecordJournal.Recording()
    var notes = Host.CallNotes()
}

/// The scope of the work being run: its own (a task-local), else the host's base scope.
final class CallScopes {
    let base = CallScope()

    @inline(__always)
    var current: CallScope { CallScope.current ?? base }

    /// Runs `body` in a scope of its own (work that may wait).
    func withOwnScope<T>(_ body: () async -> T) async -> T {
        await CallScope.$current.withValue(CallScope()) { await body() }
    }
}
