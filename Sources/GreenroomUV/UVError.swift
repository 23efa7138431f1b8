import CLibUV
import Glibc

/// A libuv or POSIX failure, with what was being done.
public struct UVError: Error, CustomStringConvertible {
    public let code: Int32
    public let what: String
    public var description: String {
        "\(what): \(String(cString: uv_strerror(code)))"
    }
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
