import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// A connection asks its host for host-wide acts through `ConnectionOwner`, and nothing else: one can
/// run on an owner that only records what it was asked, with a processor of its own.
private final class RecordingOwner: ConnectionOwner {
    var asked: [String] = []
    var buffered = 0
    func finishClosing(_ c: HostConnection, reason: String) { asked.append("finishClosing \(reason)") }
    func countPause() { asked.append("countPause") }
    func countUpgrade() { asked.append("countUpgrade") }
    func countCodecClose(_ why: CodecClose) { asked.append("countCodecClose") }
    func inputBuffered(_ delta: Int) { buffered += delta }
    func connectionAuthenticated() { asked.append("connectionAuthenticated") }
}

@Suite struct ConnectionOwnerTests {
    @Test func aConnectionRunsOnAnOwnerOfItsOwn() {
        var registry = MethodRegistry<HostConnection>()
        registry.register(MethodSpec("echo", params: ["n"]) { _, p throws(RPCError) in ["n": .int(try p.require("n"))] })
        let processor = RPCProcessor(registry: registry)
        let owner = RecordingOwner()
        var config = HostConfig()
        config.limits.maxMessageBytes = 128
        config.maxUnauthenticatedMessageBytes = 60
        let c = HostConnection(id: "c-1", kind: .tcp, owner: owner, processor: processor, config: config,
                               authenticated: false, codec: LineCodec(maxMessageBytes: 128))
        // A partial line counts against the host's input budget; the rest of it runs the call.
        c.receive(Array(#"{"jsonrpc":"2.0","id":1,"#.utf8))
        #expect(owner.buffered == 24)
        c.receive(Array(#""method":"echo","params":{"n":7}}"#.utf8) + [0x0A])
        #expect(owner.buffered == 0)
        // Over the limit before authenticating: the smaller limit, counted as the processor's error.
        c.receive(Array(String(repeating: " ", count: 70).utf8) + [0x0A])
        c.authenticated()
        c.refuse(RPCError(.unauthorized, "bye"))
        let lines = String(decoding: c.out.bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first == #"{"jsonrpc":"2.0","id":1,"result":{"n":7}}"#)
        #expect(lines.dropFirst().first?.contains("longer than 60 bytes before host.auth") == true)
        #expect(processor.counters.errors == 1)
        #expect(owner.asked == ["connectionAuthenticated"])
    }
}
