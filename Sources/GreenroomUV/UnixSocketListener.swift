import CLibUV
import Glibc
import GreenroomHost
import GreenroomRPC

/// The Unix socket (docs/security.md): a private directory, a lock file, a socket made 0600, and
/// peers of the host's own uid (SO_PEERCRED) or one allowed by `--allow-uid`. Lines, as on `tcp:`.
final class UnixSocketListener: Listener {
    let path: String
    private let isDefault: Bool
    private let allowedUIDs: [UInt32]
    private let maxMessageBytes: Int
    private var handle: UnsafeMutablePointer<uv_pipe_t>?
    private var lock: SocketLock?
    /// Set once the socket file exists (it is removed on close).
    private var bound = false

    init(path: String, isDefault: Bool, allowedUIDs: [UInt32], maxMessageBytes: Int) {
        self.path = path
        self.isDefault = isDefault
        self.allowedUIDs = allowedUIDs
        self.maxMessageBytes = maxMessageBytes
    }

    var kind: HostConnection.Kind { .unix }
    var address: String { "unix:\(path)" }

    func listen(on loop: UnsafeMutablePointer<uv_loop_t>) throws {
        try checkSocketPathLength(path)
        try prepareSocketDirectory(for: path, isDefault: isDefault)
        lock = try SocketLock.acquire(socketPath: path)
        let pipe = allocateZeroed(uv_pipe_t.self)
        try uvCheck(uv_pipe_init(loop, pipe, 0), "uv_pipe_init")
        handle = pipe
        let old = umask(0o177)
        let rc = uv_pipe_bind(pipe, path)
        umask(old)
        try uvCheck(rc, "binding \(path)")
        chmod(path, 0o600)
        bound = true
        try startListening(asStream(pipe), path)
    }

    func makeStream(_ loop: UnsafeMutablePointer<uv_loop_t>) -> UnsafeMutablePointer<uv_stream_t> {
        let p = allocateZeroed(uv_pipe_t.self)
        uvReport(uv_pipe_init(loop, p, 0), "uv_pipe_init (a Unix connection)")
        return asStream(p)
    }

    /// `uid=N pid=M`, for the logs.
    func describePeer(_ stream: UnsafeMutablePointer<uv_stream_t>) -> String? {
        guard let (uid, pid) = Self.peerCredentials(stream) else { return nil }
        return "uid=\(uid) pid=\(pid)"
    }

    /// Same-uid peers only, unless allowed (SO_PEERCRED).
    func refusal(for stream: UnsafeMutablePointer<uv_stream_t>) -> ListenerRefusal? {
        let uid = Self.peerCredentials(stream)?.uid
        if let uid, uid == getuid() || allowedUIDs.contains(uid) { return nil }
        return ListenerRefusal(line: RPCRefusal.peer(uid: uid), logReason: "peer uid is not the host's")
    }

    private static func peerCredentials(_ stream: UnsafeMutablePointer<uv_stream_t>) -> (uid: UInt32, pid: Int32)? {
        var fd: uv_os_fd_t = -1
        guard uv_fileno(asHandle(stream), &fd) == 0 else { return nil }
        var uid: UInt32 = 0
        var pid: Int32 = 0
        guard greenroom_peer_uid(fd, &uid, &pid) == 0 else { return nil }
        return (uid, pid)
    }

    func makeCodec() -> MessageCodec { LineCodec(maxMessageBytes: maxMessageBytes) }

    /// Closes the listening handle and removes the socket and its lock file.
    func close() {
        if let handle { closeAndFree(asHandle(handle)) }
        handle = nil
        if bound { unlink(path); bound = false }
        lock?.release()
        lock = nil
    }
}
