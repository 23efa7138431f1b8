import CGreenroomPlugin
import GreenroomJSON

/// The host, as a Swift plugin sees it: logging and background work. Valid for the life of the process;
/// use it on the loop thread only (never from inside background work).
public struct PluginHost {
    public enum LogLevel {
        case debug, info, warning, error
        var c: greenroom_log_level {
            switch self {
            case .debug: GREENROOM_LOG_DEBUG
            case .info: GREENROOM_LOG_INFO
            case .warning: GREENROOM_LOG_WARNING
            case .error: GREENROOM_LOG_ERROR
            }
        }
    }

    let api: UnsafePointer<greenroom_host_api>
    let host: OpaquePointer

    /// Writes a line to the host's log, attributed to this plugin.
    public func log(_ level: LogLevel, _ message: String) {
        api.pointee.log(host, level.c, message)
    }

    /// A closure pair crossing to the thread pool and back.
    private final class Job {
        let work: () -> Void
        let done: (Bool) -> Void
        init(work: @escaping () -> Void, done: @escaping (Bool) -> Void) {
            self.work = work
            self.done = done
        }
    }

    /// Runs `work` on the host's thread pool, then `done(ran)` on the loop thread (`ran` is false when
    /// the host cancelled the work before it started). `work` must not touch state the loop thread
    /// uses; hand results over to `done`. Without a thread pool (unit tests) both may run before this
    /// returns.
    public func queueWork(_ work: @escaping () -> Void, done: @escaping (_ ran: Bool) -> Void) throws {
        let job = Unmanaged.passRetained(Job(work: work, done: done)).toOpaque()
        let rc = api.pointee.queue_work(host, { ctx in
            Unmanaged<Job>.fromOpaque(ctx!).takeUnretainedValue().work()
        }, { ctx, status in
            Unmanaged<Job>.fromOpaque(ctx!).takeRetainedValue().done(status == 0)
        }, job)
        if rc != 0 {
            Unmanaged<Job>.fromOpaque(job).release()
            throw PluginError("the host refused background work (status \(rc))")
        }
    }
}
