import GreenroomJSON
import GreenroomRPC

/// Sweeps up after plugin workers that ended (their lost containers torn down, due restarts made)
/// before a call could see them.
protocol WorkerSweeper: AnyObject {
    /// A worker ended and its sweep has not run yet.
    var needsSweep: Bool { get }
    func sweepIfDue(before method: String) async
}

/// The one path every line and call takes through the host, built here and nowhere else. In the order a
/// line meets it:
///
/// 1. **The call lane** takes a line whose calls may run a container hook, while the lane is on
///    (`CallLane.takes`): it runs later, when nothing it depends on runs, on a stack that can park.
/// 2. **Admission**: a TCP connection authenticates first (`host.auth`); a plugin worker's end is swept
///    before the next call that could see its lost containers (`WorkerSweeper`).
/// 3. **The handler**, inside failure reporting: every hook failure the call caused goes into its reply
///    (`Containers.reportingFailures`).
/// 4. **Virtual-clock notes**: under the virtual clock, the replies of the methods that may leave work
///    waiting say what waits and which call runs it (VirtualClockNotes.swift).
final class HostPipeline: CallPipeline {
    typealias Context = HostConnection

    // Read on every line and call: `unowned(unsafe)` spares the atomic strong-retain an `unowned` read
    // costs. The host owns the pipeline, the lane and the containers, and outlives them all.
    private unowned(unsafe) let lane: CallLane
    private unowned(unsafe) let containers: Containers
    /// Set by the plugin supervisor when it is installed.
    var sweeper: (any WorkerSweeper)?
    /// The methods whose replies may carry a note, when the clock is virtual (else none).
    private let noted: Set<String>
    /// What the call being run queued and scheduled so far, and its result with its note
    /// (`Host.callNotes`, `Host.noted`).
    private let notes: () -> Host.CallNotes
    private let withNote: (JSONValue, Host.CallNotes) -> JSONValue

    init(lane: CallLane, containers: Containers, virtualClock: Bool,
         notes: @escaping () -> Host.CallNotes, withNote: @escaping (JSONValue, Host.CallNotes) -> JSONValue) {
        self.lane = lane
        self.containers = containers
        self.notes = notes
        self.withNote = withNote
        noted = virtualClock ? Set(Host.notedMethods.map { $0.name }) : []
    }

    func takes(_ read: RPCProcessor<HostConnection>.ReadLine, from c: HostConnection) -> Bool {
        lane.takes(read, from: c)
    }

    func lineNumber(of c: HostConnection) -> Int {
        c.linesRead += 1
        return c.linesRead
    }

    func admit(_ c: HostConnection, method: String) throws(RPCError) {
        if !c.isAuthenticated && method != "host.auth" {
            throw RPCError(.unauthorized, "Unauthorized: call host.auth with the host's token first", ["method": .string(method)])
        }
    }

    /// A call run where it was read: it never waits and runs no hook (so it has no hook failures to report).
    func run(_ spec: MethodSpec<HostConnection>, _ c: HostConnection, _ params: Params) throws(RPCError) -> RPCResult {
        guard !noted.isEmpty, noted.contains(spec.name) else { return try spec.call(c, params) }
        let before = notes()
        return .value(withNote(try spec.call(c, params).value, before))
    }

    /// A call of a line the lane took, in its task.
    func run(_ spec: MethodSpec<HostConnection>, _ c: HostConnection, _ params: Params) async throws(RPCError) -> RPCResult {
        await sweeper?.sweepIfDue(before: spec.name)
        return try await containers.reportingFailures { () async throws(RPCError) -> RPCResult in
            guard !noted.isEmpty, noted.contains(spec.name) else { return try await spec.callTaken(c, params) }
            let before = notes()
            return .value(withNote(try await spec.callTaken(c, params).value, before))
        }
    }
}
