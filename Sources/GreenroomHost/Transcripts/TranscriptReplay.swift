import GreenroomJSON

/// Sends a transcript's requests to a host, in order, on one connection, and gathers what comes back
/// (docs/transcripts.md). `inProcess` runs a fresh host with a virtual clock on no socket: every reply
/// and event of a request is in the connection's output when its line has been handled, so nothing is
/// waited for.
public enum TranscriptReplay {
    /// What a fresh host (made from `config`, its clock made virtual and its UIKit the recording's;
    /// `prepare` adds plugins) receives for `transcript`'s requests.
    public static func inProcess(_ transcript: Transcript, config: HostConfig, prepare: (Host) throws -> Void = { _ in }) rethrows -> [JSONValue] {
        var config = config
        config.clockMode = .virtual
        config.uikit = transcript.uikit
        let host = Host(config: config)
        try prepare(host)
        let connection = host.openConnection(kind: .unix, transport: MemoryTransport())
        var received: [JSONValue] = []
        func take() {
            let bytes = connection.out.take()
            for line in bytes.split(separator: 0x0A) where !line.isEmpty {
                received.append((try? JSONCodec.decode(Array(line))) ?? .string(String(decoding: line, as: UTF8.self)))
            }
        }
        for entry in transcript.entries {
            switch entry {
            case .send(let m): connection.receive(Array((JSONCodec.encodeString(m) + "\n").utf8))
            case .sendText(let s): connection.receive(Array((s + "\n").utf8))
            case .recv, .comment: continue
            }
            take()
        }
        host.connectionClosed(connection)
        return received
    }
}
