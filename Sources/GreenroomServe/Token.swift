import Glibc
import GreenroomHost

/// The shortest token accepted: a shorter one is guessable through the wrong-token allowance.
public let minimumTokenBytes = 16

/// Reads a token file, refusing one that is a symlink (another user could point it anywhere), that
/// belongs to another user or that others can read, and a token shorter than `minimumTokenBytes`.
public func readToken(_ path: String) throws(ServeRefusal) -> String {
    var st = stat()
    guard lstat(path, &st) == 0 else { throw ServeRefusal("cannot read token file \(path): \(String(cString: strerror(errno)))") }
    guard (st.st_mode & S_IFMT) != S_IFLNK else {
        throw ServeRefusal("token file \(path) is a symbolic link; give the path of the file itself")
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw ServeRefusal("cannot open token file \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
        throw ServeRefusal("token file \(path) is not a regular file")
    }
    guard st.st_uid == getuid() else {
        throw ServeRefusal("token file \(path) belongs to uid \(st.st_uid), not to this host's user (\(getuid())); it must be our own file")
    }
    guard st.st_mode & 0o077 == 0 else {
        throw ServeRefusal("token file \(path) is readable by others (mode \(String(st.st_mode & 0o777, radix: 8))); chmod 600 it")
    }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= 1 << 20 {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        bytes.append(contentsOf: buf[0..<n])
    }
    let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    guard !token.isEmpty else { throw ServeRefusal("token file \(path) is empty") }
    guard token.utf8.count >= minimumTokenBytes else {
        throw ServeRefusal("token in \(path) is \(token.utf8.count) bytes, shorter than the \(minimumTokenBytes) required; use a longer random token")
    }
    return token
}
