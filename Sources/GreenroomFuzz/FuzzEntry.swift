import Glibc
import GreenroomHost
import GreenroomJSON

/// Coverage-guided fuzzing of everything a client's bytes reach: the line framer, the JSON-RPC
/// processor and method dispatch, on a virtual-clock host over an in-memory connection.
///
/// Built with `-sanitize=fuzzer` (`make fuzz`, scripts/fuzz.sh), libFuzzer calls
/// `LLVMFuzzerTestOneInput` with mutated inputs; without it (a plain `swift build`), `main` replays
/// the files it is given, so a crash found by the fuzzer is re-run with `greenroom-fuzz FILE`.
///
/// One input: the first byte picks how the rest is cut into reads (so framing sees lines split
/// anywhere); the rest is what a client writes. Afterwards the connection closes, as a peer's would.
/// A crash, a reply that is not JSON, an internal error (-32603) or an unbalanced appearance call
/// is a finding.
///
/// The host runs its calls that wait as the server does (a driven call lane on a loop, `FuzzLoop`): a
/// scripted hook's `costMs` suspends its call at its `await`, and the harness fires the wait when it
/// turns the loop after each read, at once (no real time passes), so other reads run while calls wait.
@_cdecl("LLVMFuzzerTestOneInput")
public func greenroomFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // container.beginAppearanceTransition / endAppearanceTransition let a client make unbalanced calls
    // on purpose (UIKit's own warning, shown by the inspector); the invariant is for host-driven flows.
    if contains(bytes, Array("AppearanceTransition".utf8)) { return -1 }
    fuzzOne(bytes)
    return 0
}

func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
        if Array(haystack[i..<(i + needle.count)]) == needle { return true }
    }
    return false
}

func fuzzOne(_ input: UnsafeBufferPointer<UInt8>) {
    var config = HostConfig()
    config.clockMode = .virtual
    config.limits.maxMessageBytes = 64 << 10
    // Scripted classes hold real memory: a small budget keeps each input cheap (and tests the limit).
    config.scriptedMemoryBudgetBytes = 1 << 20
    let host = Host(config: config)
    let loop = FuzzLoop(host.lane)
    let conn = host.openConnection(kind: .memory, transport: MemoryTransport())
    let chunk = input.isEmpty ? 1 : Int(input[0] % 64) + 1
    var rest = input.isEmpty ? input[...] : input[1...]
    while !rest.isEmpty {
        let n = min(chunk, rest.count)
        conn.receive(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: rest.prefix(n))))
        rest = rest.dropFirst(n)
        // Half the time the calls that wait are left waiting while the next read runs.
        if n % 2 == 0 { loop.settle() }
        check(conn.out.take())
    }
    loop.settle()
    host.connectionClosed(conn)
    loop.settle()
    // As the server does once its loop has ended.
    host.lane.waits = nil
    check(conn.out.take())
    let stats = host.containers.unbalancedTransitions
    if stats != 0 { fatalError("\(stats) unbalanced appearance transitions") }
}

/// The loop a fuzzed host runs its waiting calls on: a wait for time is kept until the harness turns
/// the loop, then fired as though its time had passed (the lane's scripted costs, a worker's grace).
final class FuzzLoop: LoopWaits {
    private final class Wait {
        let done: () -> Void
        var cancelled = false
        init(_ done: @escaping () -> Void) { self.done = done }
    }
    // The lane holds its loop (`waits`); the loop does not hold the lane back.
    private unowned let lane: CallLane
    private var waits: [Wait] = []

    init(_ lane: CallLane) {
        self.lane = lane
        lane.executor.adoptCurrentThread()
        lane.waits = self
        lane.isDriven = true
    }

    func link(fd: Int32) -> WorkerLink { fatalError("the fuzzed host starts no plugin workers") }

    func after(ms: Int, _ done: @escaping () -> Void) -> () -> Void {
        let w = Wait(done)
        waits.append(w)
        return { w.cancelled = true }
    }

    func runOnce() { settle() }

    /// Runs the lane and fires every wait until nothing is left to run or to wait for.
    func settle() {
        while true {
            lane.drain()
            guard !waits.isEmpty else { return }
            let due = waits
            waits.removeAll()
            for w in due where !w.cancelled { w.done() }
        }
    }
}

/// Every line the host wrote is JSON, and none is an internal error. With `GREENROOM_FUZZ_PRINT` set
/// (replaying a crash by hand), the lines are printed too.
func check(_ out: [UInt8]) {
    if getenv("GREENROOM_FUZZ_PRINT") != nil { out.withUnsafeBufferPointer { _ = write(1, $0.baseAddress, $0.count) } }
    for line in out.split(separator: 0x0A) {
        guard let v = try? JSONCodec.decode(Array(line)) else {
            fatalError("the host wrote a line that is not JSON: \(String(decoding: line, as: UTF8.self))")
        }
        if v["error"]?["code"] == -32603 { fatalError("internal error: \(String(decoding: line, as: UTF8.self))") }
    }
}

#if GREENROOM_LIBFUZZER
/// libFuzzer's driver (linked by -sanitize=fuzzer). SwiftPM renames an executable's `main`, so the
/// entry point calls the driver itself rather than relying on libFuzzer's own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@main
struct RunFuzzer {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            greenroomFuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size)
        })
    }
}
#else
/// Without libFuzzer: replays each file named on the command line (a crash or a corpus).
@main
struct ReplayInputs {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let f = fopen(path, "rb") else { fatalError("cannot open \(path)") }
            var bytes: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = fread(&buf, 1, buf.count, f)
                if n <= 0 { break }
                bytes += buf[0..<n]
            }
            fclose(f)
            _ = bytes.withUnsafeBufferPointer { greenroomFuzzOneInput($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
        }
        print("replayed \(CommandLine.arguments.count - 1) inputs")
    }
}
#endif
