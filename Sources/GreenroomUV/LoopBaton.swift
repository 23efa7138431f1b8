import CLibUV
import Glibc
import GreenroomHost

/// Hands the loop from thread to thread so that a plugin hook that takes its time never stops the
/// host from serving everyone else.
///
/// Exactly one thread holds the baton at a time; only it runs the loop and host code, so the host stays
/// single-threaded in effect. The thread that runs the call lane's item (`CallLane`), when a hook waits
/// on a plugin worker, gives the baton to an idle thread (made on first need, kept for the host's life)
/// and waits for the worker without it. That thread drives the loop meanwhile — quick calls run, other
/// work queues in the lane — until the waiting thread has its reply and asks for the baton back (through
/// a uv_async handle, so a blocked poll wakes); the driver hands it over between two loop turns and goes
/// idle. The lane runs only between loop turns (`UVServer.turn`), never inside uv_run, so uv_run is
/// never entered twice.
final class LoopBaton: LoopHandoff {
    unowned let server: UVServer
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `mutex`:
    /// The thread that holds the baton (0: none, a driver is wanted).
    private var holder: pthread_t
    private var driverWanted = false
    /// Threads whose wait ended, in order: each takes the baton back at the driver's next turn.
    private var resumers: [pthread_t] = []
    private var finished = false
    private var idle = 0

    // Owned by the baton's holder:
    /// Calls waiting on a worker off the loop now (the wake handle keeps the loop alive meanwhile).
    private(set) var waiting = 0
    /// The thread that runs the lane's item now, if any: the only one that may wait off the loop.
    var laneThread: pthread_t = 0
    /// Wakes the driver's poll when a waiting thread wants the baton back.
    private var wake: UnsafeMutablePointer<uv_async_t>?
    /// Waits handed off the loop so far.
    private(set) var handOvers = 0

    init(server: UVServer) throws {
        self.server = server
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        pthread_cond_init(cond, nil)
        holder = pthread_self()
        let w = allocateZeroed(uv_async_t.self)
        try uvCheck(uv_async_init(server.loop, w) { _ in }, "uv_async_init")
        uv_unref(asHandle(w))
        wake = w
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Closes the wake handle (at shutdown, once no call waits): from then on, waits happen in place.
    func close() {
        guard waiting == 0, let w = wake else { return }
        closeAndFree(asHandle(w))
        wake = nil
    }

    // MARK: LoopHandoff

    func waitingOffLoop<T>(_ wait: () -> T) -> T {
        let me = pthread_self()
        guard laneThread != 0, pthread_equal(laneThread, me) != 0, let wake else { return wait() }
        waiting += 1
        if waiting == 1 { uv_ref(asHandle(wake)) }
        pthread_mutex_lock(mutex)
        holder = 0
        driverWanted = true
        if idle > 0 {
            pthread_cond_broadcast(cond)
        } else if !spawnDriver() {
            // No thread to drive: wait in place, as without a lane.
            holder = me
            driverWanted = false
            pthread_mutex_unlock(mutex)
            waiting -= 1
            if waiting == 0 { uv_unref(asHandle(wake)) }
            return wait()
        }
        pthread_mutex_unlock(mutex)
        handOvers += 1

        let result = wait()

        pthread_mutex_lock(mutex)
        resumers.append(me)
        pthread_mutex_unlock(mutex)
        uvReport(uv_async_send(wake), "uv_async_send (the baton)")
        pthread_mutex_lock(mutex)
        while pthread_equal(holder, me) == 0 { pthread_cond_wait(cond, mutex) }
        pthread_mutex_unlock(mutex)
        waiting -= 1
        if waiting == 0 { uv_unref(asHandle(wake)) }
        return result
    }

    // MARK: Driving

    /// Runs loop turns on this thread while it holds the baton; idles while another thread does; returns
    /// once the loop has finished. The server's thread calls it holding the baton; helpers start idle.
    func serve(holding: Bool) {
        let me = pthread_self()
        var holding = holding
        pthread_mutex_lock(mutex)
        while true {
            if !holding {
                idle += 1
                while !(driverWanted && holder == 0) && !finished { pthread_cond_wait(cond, mutex) }
                idle -= 1
                if finished { break }
                driverWanted = false
                holder = me
                holding = true
            }
            if !resumers.isEmpty {
                holder = resumers.removeFirst()
                holding = false
                pthread_cond_broadcast(cond)
                continue
            }
            pthread_mutex_unlock(mutex)
            let more = server.turn()
            pthread_mutex_lock(mutex)
            if !more {
                finished = true
                pthread_cond_broadcast(cond)
                break
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// A helper that waits idle until a driver is wanted (called with `mutex` held).
    private func spawnDriver() -> Bool {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            let baton = Unmanaged<LoopBaton>.fromOpaque(arg!).takeRetainedValue()
            baton.serve(holding: false)
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<LoopBaton>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
