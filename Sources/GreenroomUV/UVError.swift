import CLibUV
import Glibc
import GreenroomHost

/// A libuv or POSIX failure, with what was being done.
public struct UVError: Error, CustomStringConvertible {
    public let code: Int32
    public let what: String
    public var description: String {
        "\(what): \(String(cString: uv_strerror(code)))"
    }
}

/// Where a libuv failure cannot be thrown (a callback, a teardown, a start that the caller cannot undo):
/// the same funnel's other branch. A negative code is written to stderr with what was being done, and
/// the caller learns whether it succeeded. These are calls that fail only on a programming error (a handle
/// closed twice, a loop that is gone), so a failure is loud rather than lost.
@discardableResult
func uvReport(_ rc: Int32, _ what: @autoclosure () -> String) -> Bool {
    guard rc < 0 else { return true }
    writeStandardError("greenroom: libuv: \(UVError(code: rc, what: what()).description)\n")
    return false
}

/// The one funnel every libuv result goes through: a negative code becomes a thrown `UVError`.
@discardableResult
func uvCheck(_ rc: Int32, _ what: @autoclosure () -> String) throws -> Int32 {
    if rc < 0 { throw UVError(code: rc, what: what()) }
    return rc
}

/// A start-up problem worth a clear message and a non-zero exit.
public struct ServerSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
