import Testing
import GreenroomJSON
@testable import GreenroomServe

/// `greenroom serve` hands its options to `greenroom-host` as JSON: every option must arrive as given.
@Suite struct ServeOptionsTests {
    /// Every member changed from its default, so a member the JSON forgets comes back as the default
    /// and the comparison fails.
    private static var changed: ServeOptions {
        var o = ServeOptions()
        o.socket = "/tmp/x/host.sock"
        o.listen = ["tcp:127.0.0.1:0", "ws:127.0.0.1:0"]
        o.allowOrigin = ["http://localhost:3000"]
        o.bindAny = true
        o.tokenFile = "/tmp/token"
        o.clock = "virtual"
        o.allowUid = [0, 4_000_000_000]
        o.plugins = ["/lib/a.so", "/lib/b.so"]
        o.pluginCommands = ["python3 worker.py 'a b'"]
        o.pluginStartTimeoutMs = 1
        o.pluginIsolation = "none"
        o.hookTimeoutMs = 7
        o.pluginOutputLimit = 3
        o.hookBatching = "off"
        o.pluginRestartLimit = 0
        o.maxMessageBytes = 11
        o.maxBatch = 12
        o.maxDepth = 13
        o.maxConnections = 14
        o.maxOutboundBytes = 15
        o.slowReaderGraceMs = 16
        o.authTimeoutMs = 17
        o.maxUnauthenticated = 18
        o.maxBufferedInputBytes = 19
        o.maxWaitingCalls = 23
        o.taskSliceMs = 0.5
        o.poolCooldownMs = 2.25
        o.poolBudgetBytes = 20
        o.scriptedMemoryBudgetBytes = 21
        o.readAhead = "off"
        o.record = "/tmp/rec"
        o.allowReset = true
        o.logLevel = "trace"
        o.workerExecutable = "/usr/bin/greenroom"
        return o
    }

    @Test func everyOptionSurvivesTheJSON() throws {
        let o = Self.changed
        let text = JSONCodec.encodeString(o.json)
        #expect(try ServeOptions(json: try JSONCodec.decode(text)) == o)
        #expect(try ServeOptions(json: ServeOptions().json) == ServeOptions())
        // Every stored member is in the JSON (the mirror counts them).
        #expect(o.json.objectValue?.members.count == Mirror(reflecting: o).children.count)
    }

    @Test func aMissingOrMistypedMemberIsRefusedByName() {
        var json = Self.changed.json.objectValue!
        json["maxBatch"] = nil
        #expect(throws: ServeRefusal.self) { try ServeOptions(json: .object(json)) }
        do {
            _ = try ServeOptions(json: .object(json))
        } catch {
            #expect(error.message == "options: maxBatch is missing or has the wrong type")
        }
        json["maxBatch"] = "12"
        #expect(throws: ServeRefusal.self) { try ServeOptions(json: .object(json)) }
        json["maxBatch"] = 12
        json["allowUid"] = [-1]
        #expect(throws: ServeRefusal.self) { try ServeOptions(json: .object(json)) }
        #expect(throws: ServeRefusal.self) { try ServeOptions(json: [1, 2]) }
    }
}
