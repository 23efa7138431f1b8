import Glibc

/// `host.sock.lock` beside a Unix socket, `flock`ed for as long as the host serves the socket: a
/// second host on the same path refuses to start, a socket left by a crashed host is replaced, and a
/// socket that still accepts connections is never replaced, even when its lock file is gone.
struct SocketLock {
    let fd: Int32
    let path: String

    /// Takes the lock for the socket at `socketPath` and removes a stale socket there. A refusal
    /// leaves no lock file behind that this host created (or holds the lock of).
    static func acquire(socketPath: String) throws -> SocketLock {
        let lockPath = socketPath + ".lock"
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
            throw refuse("another greenroom host (pid \(pid)) is serving \(socketPath); not stealing its socket", ours: false)
        }
        ftruncate(fd, 0)
        let pidText = "\(getpid())\n"
        _ = pidText.withCString { write(fd, $0, strlen($0)) }
        var st = stat()
        if lstat(socketPath, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw refuse("\(socketPath) exists and is not a socket; not removing it", ours: true)
            }
            // We hold the lock, but a lock file can be deleted by hand or by a tmp cleaner: make sure no
            // live host answers on the socket before replacing it.
            if socketAcceptsConnections(socketPath) {
                throw refuse("another greenroom host is serving \(socketPath) (its lock file was missing); not stealing its socket", ours: true)
            }
            unlink(socketPath)  // stale
        }
        return SocketLock(fd: fd, path: lockPath)
    }

    /// Removes the lock file and lets go of the lock (at shutdown, or when start-up fails after it).
    func release() {
        unlink(path)
        close(fd)
    }
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
