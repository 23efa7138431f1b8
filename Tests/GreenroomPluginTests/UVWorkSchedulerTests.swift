import CLibUV
import Glibc
import GreenroomUV
import Testing

@Suite struct UVWorkSchedulerTests {
    @Test func workRunsOnThePoolAndDoneOnTheLoopThread() {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        defer { loop.deallocate() }
        #expect(uv_loop_init(loop) == 0)
        let scheduler = UVWorkScheduler(loop: loop)
        let count = 8
        // One slot per job, each written by one pool thread; read after uv_run (libuv orders work
        // before its after-work callback).
        let workThreads = UnsafeMutablePointer<pthread_t>.allocate(capacity: count)
        defer { workThreads.deallocate() }
        let loopThread = pthread_self()
        var doneOnLoop: [Bool] = []
        for i in 0..<count {
            scheduler.queue(work: { workThreads[i] = pthread_self() },
                            done: { doneOnLoop.append(pthread_equal(pthread_self(), loopThread) != 0) })
        }
        #expect(scheduler.pending == count)
        #expect(doneOnLoop.isEmpty)
        #expect(uv_run(loop, UV_RUN_DEFAULT) == 0)
        #expect(doneOnLoop == Array(repeating: true, count: count))
        #expect((0..<count).allSatisfy { pthread_equal(workThreads[$0], loopThread) == 0 })
        #expect(scheduler.pending == 0)
        #expect(uv_loop_close(loop) == 0, "a request or handle was left on the loop")
    }
}
