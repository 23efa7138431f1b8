import ArgumentParser
import Glibc
import GreenroomHost
import GreenroomWorker
import GreenroomJSON
import GreenroomServe
import GreenroomUV

/// `greenroom replay FILE`: a transcript as a golden test (docs/transcripts.md). Exit status 0 when every
/// reply and event comes back as recorded, 1 with the first difference when one does not, 2 when the file
/// is not a transcript this host can replay (one sentence, never a traceback).
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recorded transcript against a fresh host and compare every reply and event.",
        discussion: """
            Exit status: 0 the same, 1 a difference (printed), 2 not a transcript (cut off, not JSON, no header, \
            from a newer Greenroom) or no host to replay against. See docs/transcripts.md.
            """)

    @Argument(help: "The transcript (NDJSON).") var file: String
    @Flag(help: "Rewrite the file with what is received now (the header and the requests are kept).") var update = false
    @Option(help: "Replay against a running host on this Unix socket (it is reset first: --clock virtual or --allow-reset).")
    var socket: String?
    @Option(help: "Replay against a running host over TCP: tcp:HOST:PORT or HOST:PORT (reset first).") var connect: String?
    @Option(help: "Token file for host.auth (with --connect).") var tokenFile: String?
    @Option(help: "Load this plugin into the replay's own host (repeatable).") var plugin: [String] = []

    func run() throws {
        let transcript = try load(file)
        let received: [JSONValue]
        if socket != nil || connect != nil {
            received = try replayOverSocket(transcript)
        } else {
            received = try replayInProcess(transcript)
        }
        if update {
            var t = transcript
            t.entries = rewritten(t.entries, with: received)
            guard writeFile(file, t.text) else { throw refuse("cannot write \(file)") }
            print("greenroom replay: \(file) updated (\(received.count) messages received)")
            return
        }
        if let difference = TranscriptComparison(recorded: transcript, received: received).difference() {
            print(difference, terminator: "")
            throw ExitCode(1)
        }
        print("greenroom replay: \(file): the same (\(transcript.entries.filter { if case .send = $0 { true } else { false } }.count) requests, \(received.count) messages)")
    }

    private func replayInProcess(_ t: Transcript) throws -> [JSONValue] {
        var options = ServeOptions()
        options.clock = "virtual"
        options.plugins = plugin
        let config: HostConfig
        do { config = try options.hostConfig() } catch { throw refuse(error.message) }
        var loadFailure: String?
        let received = TranscriptReplay.inProcess(t, config: config) { host in
            // No loop here: a worker's replies are waited for where each call runs.
            host.lane.waits = BlockingWaits()
            let supervisor = PluginSupervisor.install(on: host)
            for path in plugin {
                let failure = host.lane.runToEnd { () async -> String? in
                    do { _ = try await supervisor.load(path: path) } catch { return "plugin \(path): \(error)" }
                    return nil
                }
                if let failure { loadFailure = failure }
            }
        }
        if let loadFailure { throw refuse(loadFailure) }
        return received
    }

    private func replayOverSocket(_ t: Transcript) throws -> [JSONValue] {
        let client: LineClient
        do {
            if let connect {
                let address = connect.hasPrefix("tcp:") ? String(connect.dropFirst(4)) : connect
                guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
                    throw refuse("--connect takes tcp:HOST:PORT")
                }
                client = try LineClient(tcpHost: String(address[..<colon]).trimmingBrackets, port: port)
            } else {
                client = try LineClient(unixPath: socket!)
            }
            if let tokenFile {
                let reply = try client.roundTrip(id: 0, method: "host.auth", params: ["token": .string(try readToken(tokenFile))])
                if let e = reply["error"] { throw refuse("host.auth refused: \(JSONCodec.encodeString(e))") }
            }
            // The host's hooks must be the recording's: a host modelling another UIKit sends other events.
            let uikit = try client.roundTrip(id: 0, method: "host.info", params: nil)["result"]?["uikit"]?.intValue
            if let uikit, uikit != t.uikit.rawValue {
                throw refuse("the transcript was recorded on a host modelling UIKit \(t.uikit.rawValue) and this host models \(uikit): start it with --uikit \(t.uikit.rawValue)")
            }
            let reset = try client.roundTrip(id: 0, method: "host.reset", params: nil)
            if let e = reset["error"] {
                throw refuse("the host refused host.reset (\(e["message"]?.stringValue ?? "?")): start it with --clock virtual or --allow-reset")
            }
        } catch let e as LineClient.Failure {
            throw refuse("no host to replay against: \(e.description)")
        }
        // Each request is followed by a ping of the replay's own; what arrives before its reply is what
        // the request caused (notifications get no reply of their own).
        var received: [JSONValue] = []
        var sync = 0
        do {
            for entry in t.entries {
                let line: String
                switch entry {
                case .send(let m): line = JSONCodec.encodeString(m)
                case .sendText(let s): line = s
                case .recv, .comment: continue
                }
                sync += 1
                let marker = JSONValue.string("greenroom-replay-\(sync)")
                try client.send(line + "\n" + JSONCodec.encodeString(["jsonrpc": "2.0", "id": marker, "method": "host.ping"]) + "\n")
                while true {
                    guard let bytes = try client.readLine() else { throw refuse("the host closed the connection") }
                    let m = (try? JSONCodec.decode(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
                    if m["id"] == marker { break }
                    received.append(m)
                }
            }
        } catch let e as LineClient.Failure {
            throw refuse("the host stopped answering: \(e.description)")
        }
        return received
    }

    /// The entries with the received messages replaced: each request's group by what came back for it.
    private func rewritten(_ entries: [Transcript.Entry], with received: [JSONValue]) -> [Transcript.Entry] {
        var out = entries.filter { if case .recv = $0 { false } else { true } }
        out.append(contentsOf: received.map { .recv($0) })
        return out
    }

    private func load(_ path: String) throws -> Transcript {
        let text: String
        do { text = try readFile(path) } catch { throw refuse("cannot read \(path): \(error.reason)") }
        do { return try Transcript.parse(text, name: path) } catch { throw refuse(error.description) }
    }

    private func refuse(_ message: String) -> ExitCode {
        writeStandardError("greenroom replay: \(message)\n")
        return ExitCode(2)
    }
}

/// `greenroom transcript diff RECORDED REPLAYED`: compares what two transcripts received, as `replay`
/// does (for a test that recorded itself, such as the pytest fixture `greenroom_golden`).
struct TranscriptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcript",
        abstract: "Work with transcripts (docs/transcripts.md).",
        subcommands: [Diff.self])

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare what two transcripts received: exit 0 the same, 1 a difference (printed), 2 not transcripts.")
        @Argument(help: "The recorded (golden) transcript.") var recorded: String
        @Argument(help: "The transcript to check against it.") var replayed: String

        func run() throws {
            func load(_ path: String) throws -> Transcript {
                let text: String
                do { text = try readFile(path) } catch {
                    writeStandardError("greenroom transcript diff: cannot read \(path): \(error.reason)\n")
                    throw ExitCode(2)
                }
                do { return try Transcript.parse(text, name: path) } catch {
                    writeStandardError("greenroom transcript diff: \(error.description)\n")
                    throw ExitCode(2)
                }
            }
            let a = try load(recorded), b = try load(replayed)
            if let difference = TranscriptComparison(recorded: a, received: b.received).difference() {
                print(difference, terminator: "")
                throw ExitCode(1)
            }
        }
    }
}

/// A whole file as text, or why it cannot be read.
func readFile(_ path: String) throws(FileReadFailure) -> String {
    guard let f = fopen(path, "rb") else { throw FileReadFailure(errno: errno) }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n <= 0 { break }
        bytes.append(contentsOf: buf[0..<n])
    }
    // A directory opens, and fails on its first read (EISDIR).
    if ferror(f) != 0 { throw FileReadFailure(errno: errno) }
    return String(decoding: bytes, as: UTF8.self)
}

/// Why a file could not be read: the system's words for its errno ("No such file or directory").
struct FileReadFailure: Error {
    let reason: String
    init(errno code: Int32) { reason = String(cString: strerror(code)) }
}

/// Writes `text` to `path` (replacing it); false when it cannot.
func writeFile(_ path: String, _ text: String) -> Bool {
    guard let f = fopen(path, "wb") else { return false }
    defer { fclose(f) }
    let bytes = Array(text.utf8)
    return fwrite(bytes, 1, bytes.count, f) == bytes.count
}

extension String {
    fileprivate var trimmingBrackets: String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}
