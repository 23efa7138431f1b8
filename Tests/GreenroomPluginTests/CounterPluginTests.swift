import CLibUV
import GreenroomCore
import GreenroomHost
import GreenroomJSON
import GreenroomUV
import Testing

/// The plain-C example plugin, loaded from its shared library.
@Suite struct CounterPluginTests {
    @Test func registersTheCounterClass() throws {
        let host = makeHost()
        let info = try load("CounterPlugin", into: host)
        #expect(info.name == "counter")
        #expect(info.version == "1.0.0")
        #expect(info.classes == ["Counter"])
        #expect(host.classes["Counter"]?.pluginName == "counter")
    }

    @Test func countsEveryHook() async throws {
        let host = makeHost()
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host)
        #expect(counter.memoryBytes > 0)
        for (n, hook) in lifeOrder.enumerated() {
            let output = try await counter.run(hook, input: input(for: hook, data: [:]))
            if hook == .configure {
                #expect(output == ["calls": .int(n + 1), "lastHook": "viewDidAppear", "workPending": 0,
                                   "workDone": 0, "sum": nil])
            } else {
                #expect(output == nil)
            }
        }
        await counter.destroy()
        #expect(counter.memoryBytes == 0)
    }

    @Test func aHookNamedInFailOnFails() async throws {
        let host = makeHost()
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host, id: "c-9")
        _ = try await counter.run(.configure, input: ["data": ["failOn": "viewDidAppear"]])
        _ = try await counter.run(.viewWillAppear, input: ["animated": true])
        let failure = try await #require(throws: HookFailure.self) {
            try await counter.run(.viewDidAppear, input: ["animated": true])
        }
        #expect(failure.message == "Counter: viewDidAppear failed because data.failOn names it (call 3)")
        #expect(failure.data["hook"] == "viewDidAppear")
        #expect(failure.data["plugin"] == "counter")
        #expect(failure.data["class"] == "Counter")
        #expect(failure.data["container"] == "c-9")
        #expect(failure.data["status"] == 1)
        // Naming configure fails that very configure; null clears it.
        await #expect(throws: HookFailure.self) { try await counter.run(.configure, input: ["data": ["failOn": "configure"]]) }
        let cleared = try await counter.run(.configure, input: ["data": ["failOn": nil]])
        #expect(cleared?["calls"] == 5)
        await counter.destroy()
    }

    @Test func backgroundWorkRunsAtOnceWithoutAThreadPool() async throws {
        let host = makeHost()
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host)
        let output = try await counter.run(.configure, input: ["data": ["work": 100]])
        #expect(output?["sum"] == 5050)
        #expect(output?["workDone"] == 1)
        #expect(output?["workPending"] == 0)
        await counter.destroy()
    }

    @Test func backgroundWorkRunsOffTheCallersThreadAndReportsLater() async throws {
        let host = makeHost()
        let scheduler = DeferredScheduler()
        host.workScheduler = scheduler
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host)
        let idle = counter.memoryBytes
        let queued = try await counter.run(.configure, input: ["data": ["work": 1000]])
        #expect(queued?["workPending"] == 1)
        #expect(queued?["sum"] == .null)
        #expect(scheduler.count == 1)
        #expect(counter.memoryBytes > idle)

        scheduler.runAll()
        #expect(scheduler.workThreads.allSatisfy { pthread_equal($0, pthread_self()) == 0 })
        let reported = try await counter.run(.configure, input: ["data": [:]])
        #expect(reported?["sum"] == 500500)
        #expect(reported?["workDone"] == 1)
        #expect(reported?["workPending"] == 0)
        #expect(counter.memoryBytes == idle)
        await counter.destroy()
    }

    @Test func anInstanceDestroyedWithWorkPendingIsFreedByTheWork() async throws {
        let host = makeHost()
        let scheduler = DeferredScheduler()
        host.workScheduler = scheduler
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host)
        _ = try await counter.run(.configure, input: ["data": ["work": 10]])
        _ = try await counter.run(.deinitialize, input: [:])
        await counter.destroy()
        scheduler.runAll()  // the last done frees the instance
        #expect(counter.memoryBytes == 0)
    }

    @Test func badWorkIsAHookFailure() async throws {
        let host = makeHost()
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host)
        for bad: JSONValue in [-1, "ten", 1.5, .int(1 << 40)] {
            let failure = try await #require(throws: HookFailure.self) {
                try await counter.run(.configure, input: ["data": ["work": bad]])
            }
            #expect(failure.message == "Counter: data.work must be an integer from 0 to 4294967295")
        }
        await counter.destroy()
    }

    @Test func backgroundWorkOnLibuvsThreadPool() async throws {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        defer { loop.deallocate() }
        #expect(uv_loop_init(loop) == 0)
        let host = makeHost()
        let scheduler = UVWorkScheduler(loop: loop)
        host.workScheduler = scheduler
        try load("CounterPlugin", into: host)
        let counter = try await instance(of: "Counter", in: host)
        let queued = try await counter.run(.configure, input: ["data": ["work": 1_000_000]])
        #expect(queued?["workPending"] == 1)
        #expect(scheduler.pending == 1)
        #expect(uv_run(loop, UV_RUN_DEFAULT) == 0)
        #expect(scheduler.pending == 0)
        let done = try await counter.run(.configure, input: ["data": [:]])
        #expect(done?["sum"] == 500_000_500_000)
        await counter.destroy()
        #expect(uv_loop_close(loop) == 0, "a request or handle was left on the loop")
    }
}
