import Glibc
import GreenroomHost

/// One connection's transcript file (`serve --record DIR`): buffered, flushed after each reply (so a
/// request's group is on disk once it is answered) and when the connection goes.
public final class TranscriptFile: TranscriptSink {
    private let file: UnsafeMutablePointer<FILE>?

    public init?(path: String) {
        file = fopen(path, "wb")
        if file == nil {
            writeStandardError("greenroom: cannot record to \(path): \(String(cString: strerror(errno)))\n")
            return nil
        }
    }

    public func write(line: String) {
        guard let file else { return }
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        fwrite(bytes, 1, bytes.count, file)
    }

    public func write(prefix: StaticString, body: UnsafeRawBufferPointer, suffix: StaticString) {
        guard let file, let base = body.baseAddress else { return }
        fwrite(prefix.utf8Start, 1, prefix.utf8CodeUnitCount, file)
        fwrite(base, 1, body.count, file)
        fwrite(suffix.utf8Start, 1, suffix.utf8CodeUnitCount, file)
        fputc(0x0A, file)
        // A reply (an id right after "jsonrpc", or a batch's array) ends what a request caused: on disk
        // once it is answered.
        if body.count > 19 && (body[0] == 0x5B || (body[18] == 0x69 && body[19] == 0x64)) { fflush(file) }
    }

    deinit { if let file { fclose(file) } }
}
