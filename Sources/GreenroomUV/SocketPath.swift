import CLibUV
import Glibc

/// The default socket path: $XDG_RUNTIME_DIR/greenroom/host.sock, else /tmp/greenroom-$UID/host.sock.
public func defaultSocketPath() -> String {
    if let xdg = getenv("XDG_RUNTIME_DIR"), xdg.pointee != 0 {
        return String(cString: xdg) + "/greenroom/host.sock"
    }
    return "/tmp/greenroom-\(getuid())/host.sock"
}

/// A path longer than `sun_path` holds is an error naming the limit, never truncated (a truncated
/// path would be a different socket).
func checkSocketPathLength(_ path: String) throws {
    let max = Int(greenroom_sun_path_max())
    guard path.utf8.count < max else {
        throw ServerSetupError("socket path is \(path.utf8.count) bytes, longer than sun_path allows (\(max - 1)): \(path)")
    }
}

/// Makes the socket's directory (0700) if it is missing; the default directory must also be ours
/// and private, or the host refuses to use a directory someone else controls.
func prepareSocketDirectory(for path: String, isDefault: Bool) throws {
    let dir = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    guard !dir.isEmpty else { return }
    var st = stat()
    if lstat(dir, &st) != 0 {
        guard mkdir(dir, 0o700) == 0 || errno == EEXIST else {
            throw ServerSetupError("cannot create socket directory \(dir): \(String(cString: strerror(errno)))")
        }
        _ = lstat(dir, &st)
    }
    guard (st.st_mode & S_IFMT) == S_IFDIR else { throw ServerSetupError("\(dir) is not a directory") }
    if isDefault {
        guard st.st_uid == getuid() else {
            throw ServerSetupError("socket directory \(dir) belongs to uid \(st.st_uid), not to us (\(getuid()))")
        }
        guard st.st_mode & 0o077 == 0 else {
            throw ServerSetupError("socket directory \(dir) is accessible to others (mode \(String(st.st_mode & 0o777, radix: 8))); it must be 0700")
        }
    }
}
