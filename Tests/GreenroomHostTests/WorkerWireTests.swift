import Testing
import Glibc
import GreenroomCore
import GreenroomJSON
@testable import GreenroomHost

/// The frames a plugin worker reads: a batch written in place holds, after its count, each hook's request
/// exactly as it would be sent alone, which is also what a worker without the shared page is sent.
@Suite struct WorkerWireTests {
    private func alone(_ hook: Hook, handle: UInt64, input: JSONObject) -> [UInt8] {
        var w = WireWriter(.hook)
        w.hookBody(hook, handle: handle, input: input)
        return w.finished()
    }

    private let hooks: [(Hook, UInt64, JSONObject)] = [
        (.willMoveToParent, 7, ["parent": "s-1"]),
        (.viewWillAppear, 7, ["animated": false]),
        (.viewWillLayoutSubviews, 9, ["size": ["width": 375, "height": 667.5]]),
        (.deinitialize, 1 << 40, [:]),
        (.didMoveToParent, 7, ["parent": .null]),
    ]

    @Test func aBatchHoldsEachHookAsSentAlone() throws {
        var batch = BatchRequest()
        for (hook, handle, input) in hooks { batch.add(hook, handle: handle, input: input) }
        let frame = batch.frame()
        #expect(batch.count == hooks.count)

        // The whole frame: its length, the batch kind, the count, then the hooks one after another.
        var buffer = FrameBuffer(maxBody: 1 << 20)
        var reader = try #require(try withFrames([frame], into: &buffer))
        #expect(reader.kind == WorkerFrame.batch.rawValue)
        #expect(reader.u32() == hooks.count)
        for (k, (hook, handle, input)) in hooks.enumerated() {
            let expected = alone(hook, handle: handle, input: input)
            #expect(batch.hookFrame(k, in: frame) == expected, "\(hook)")
            let length = reader.u32()
            let n = try #require(length)
            let body = reader.bytes(n)
            #expect(body.map(Array.init) == Array(expected.dropFirst(4)), "\(hook)")
        }
        #expect(reader.rest.isEmpty)
    }

    @Test func aHookRequestSaysWhichInstanceAndHook() throws {
        var buffer = FrameBuffer(maxBody: 1 << 20)
        var reader = try #require(try withFrames([alone(.viewDidLayoutSubviews, handle: 42, input: ["size": Containers.sizeJSON(Size(width: 1, height: 2))])], into: &buffer))
        #expect(reader.kind == WorkerFrame.hook.rawValue)
        #expect(reader.u64() == 42)
        let length = reader.u16()
        let n = try #require(length)
        let name = reader.bytes(n)
        #expect(name.flatMap(Hook.named) == .viewDidLayoutSubviews)
        #expect(String(decoding: reader.rest, as: UTF8.self) == #"{"size":{"width":1.0,"height":2.0}}"#)
    }

    @Test func hooksAreFoundByTheirWireNames() {
        for hook in Hook.allCases { #expect(Hook.named(ArraySlice(hook.rawValue.utf8)) == hook) }
        for name in ["", "initialize", "deinitialize", "viewWillAppea", "viewWillAppearX", "VIEWWILLAPPEAR"] {
            #expect(Hook.named(ArraySlice(name.utf8)) == nil, "\(name)")
        }
    }

    /// The first whole frame in `chunks`, read as the host reads a worker's replies.
    private func withFrames(_ chunks: [[UInt8]], into buffer: inout FrameBuffer) throws -> WireReader? {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return nil }
        defer { close(fds[0]); close(fds[1]) }
        // A socketpair's buffer takes these few bytes at once: no wait is ever asked for.
        for chunk in chunks { try Wire.writeAll(fds[0], chunk, deadline: nil) { _, _, _ throws(WireError) in throw .timeout } }
        _ = try buffer.receive(fds[1])
        return try buffer.next()
    }
}
