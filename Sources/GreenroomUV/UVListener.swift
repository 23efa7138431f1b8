import CLibUV
import Glibc

/// Where and how to listen (docs/security.md).
public struct ListenOptions {
    /// The Unix socket path; nil for the default location.
    public var socketPath: String?
    /// Network listeners besides the Unix socket, in order: `tcp:HOST:PORT` (lines) and
    /// `ws:HOST:PORT` (WebSocket at /rpc, with HTTP for the static files).
    public var network: [NetworkListener] = []
    /// Origins a page may connect to a `ws:` listener from, besides the listener's own ("*": any).
    public var allowedOrigins: [String] = []
    public var bindAny = false
    /// Unix peers with these uids are accepted besides the host's own.
    public var allowedUIDs: [UInt32] = []
    public init() {}
}

/// One network listener: its protocol and "HOST:PORT".
public struct NetworkListener: Equatable {
    public enum Kind: String { case tcp, ws }
    public var kind: Kind
    public var address: String

    public init(kind: Kind, address: String) {
        self.kind = kind
        self.address = address
    }

    /// Parses `tcp:HOST:PORT` or `ws:HOST:PORT`.
    public init?(_ spec: String) {
        for kind in [Kind.tcp, .ws] where spec.hasPrefix(kind.rawValue + ":") {
            self.init(kind: kind, address: String(spec.dropFirst(kind.rawValue.count + 1)))
            return
        }
        return nil
    }
}

/// The default socket path: $XDG_RUNTIME_DIR/greenroom/host.sock, else /tmp/greenroom-$UID/host.sock.
public func defaultSocketPath() -> String {
    if let xdg = getenv("XDG_RUNTIME_DIR"), xdg.pointee != 0 {
        return String(cString: xdg) + "/greenroom/host.sock"
    }
    return "/tmp/greenroom-\(getuid())/host.sock"
}

/// Prepares a Unix socket location: a private directory, a lock file that guards a live socket, and
/// removal of a stale one. Returns the lock file's descriptor (held for the host's lifetime).
func prepareSocketPath(_ path: String, isDefault: Bool) throws -> Int32 {
    let max = greenroom_sun_path_max()
    guard path.utf8.count < max else {
        throw ServerSetupError("socket path is \(path.utf8.count) bytes, longer than sun_path allows (\(max - 1)): \(path)")
    }
    let dir = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if !dir.isEmpty {
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
    let lockPath = path + ".lock"
    // Never through a symlink, and only a regular file: the lock file is truncated and rewritten below, and
    // in a shared directory another user could plant `host.sock.lock` pointing at a file of ours.
    // O_EXCL first, to know whether the file is ours: a start-up refused after creating it removes it.
    var created = true
    var fd = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    if fd < 0 && errno == EEXIST {
        created = false
        fd = open(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
    }
    guard fd >= 0 else { throw ServerSetupError("cannot open lock file \(lockPath): \(String(cString: strerror(errno)))") }
    /// Refuses start-up, leaving no lock file behind that this host created (or holds the lock of).
    func refuse(_ message: String, ours: Bool) -> ServerSetupError {
        if ours { unlink(lockPath) }
        close(fd)
        return ServerSetupError(message)
    }
    var lockStat = stat()
    guard fstat(fd, &lockStat) == 0, (lockStat.st_mode & S_IFMT) == S_IFREG else {
        throw refuse("lock file \(lockPath) is not a regular file; not using it", ours: created)
    }
    // A hard link is another name for someone else's file: truncating and rewriting it would write there.
    guard lockStat.st_nlink == 1 else {
        throw refuse("lock file \(lockPath) has \(lockStat.st_nlink) hard links (another name for a file elsewhere); not using it", ours: created)
    }
    if flock(fd, LOCK_EX | LOCK_NB) != 0 {
        var buf = [CChar](repeating: 0, count: 32)
        let n = read(fd, &buf, 31)
        let pid = n > 0 ? String(cString: buf).trimmingWhitespace() : "?"
        throw refuse("another greenroom host (pid \(pid)) is serving \(path); not stealing its socket", ours: false)
    }
    ftruncate(fd, 0)
    let pidText = "\(getpid())\n"
    _ = pidText.withCString { write(fd, $0, strlen($0)) }
    var st = stat()
    if lstat(path, &st) == 0 {
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw refuse("\(path) exists and is not a socket; not removing it", ours: true)
        }
        // We hold the lock, but a lock file can be deleted by hand or by a tmp cleaner: make sure no
        // live host answers on the socket before replacing it.
        if socketAcceptsConnections(path) {
            throw refuse("another greenroom host is serving \(path) (its lock file was missing); not stealing its socket", ours: true)
        }
        unlink(path)  // stale
    }
    return fd
}

/// True when something accepts connections on the Unix socket at `path`.
func socketAcceptsConnections(_ path: String) -> Bool {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    withUnsafeMutableBytes(of: &addr.sun_path) { p in
        for (i, b) in bytes.enumerated() where i < p.count - 1 { p[i] = b }
    }
    return withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
        }
    }
}

extension String {
    /// The string without leading and trailing white space.
    public func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

/// Parses "HOST:PORT" ("127.0.0.1:7000", "[::1]:7000").
func parseHostPort(_ text: String) throws -> (host: String, port: Int32) {
    guard let colon = text.lastIndex(of: ":"), let port = Int32(text[text.index(after: colon)...]),
          (0...65535).contains(port) else {
        throw ServerSetupError("--listen tcp:HOST:PORT or ws:HOST:PORT expected, got \(text)")
    }
    var host = String(text[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" { host = "127.0.0.1" }
    return (host, port)
}

func isLoopback(_ host: String) -> Bool {
    host.hasPrefix("127.") || host == "::1"
}
