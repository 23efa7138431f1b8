import ArgumentParser
import Glibc
import GreenroomHost
import GreenroomJSON
import GreenroomServe
import GreenroomUV

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one request and print its result.",
        discussion: "Exit status: 0 on a result (printed on stdout), 2 on a JSON-RPC error (printed on stderr), 1 when the host cannot be reached.")

    @Argument(help: "Method name, e.g. host.ping.") var method: String
    @Argument(help: "Params as JSON (an object or array); - reads stdin.") var params: String?
    @Option(help: "Unix socket path (default: $GREENROOM_SOCKET, then the host's default).") var socket: String?
    @Option(help: "Connect over TCP instead: HOST:PORT.") var tcp: String?
    @Option(help: "Token file for host.auth (TCP).") var tokenFile: String?

    func run() throws {
        var paramsValue: JSONValue?
        if var text = params {
            if text == "-" { text = readAllStdin() }
            do { paramsValue = try JSONCodec.decode(text) } catch {
                writeStandardError("greenroom call: params are not JSON: \(error)\n")
                throw ExitCode(64)
            }
        }
        let client: LineClient
        do {
            if let tcp {
                let parts = tcp.split(separator: ":")
                guard parts.count == 2, let port = UInt16(parts[1]) else { throw ValidationError("--tcp takes HOST:PORT") }
                client = try LineClient(tcpHost: String(parts[0]), port: port)
            } else {
                let path = socket ?? socketPathFromEnvironment() ?? defaultSocketPath()
                client = try LineClient(unixPath: path)
            }
            if let tokenFile {
                let token = try readToken(tokenFile)
                _ = try client.roundTrip(id: 0, method: "host.auth", params: ["token": .string(token)])
            }
            let reply = try client.roundTrip(id: 1, method: method, params: paramsValue)
            if let error = reply["error"] {
                writeStandardError(JSONCodec.encodeString(error) + "\n")
                throw ExitCode(2)
            }
            print(JSONCodec.encodeString(reply["result"] ?? .null))
        } catch let e as LineClient.Failure {
            writeStandardError("greenroom call: \(e.description)\n")
            throw ExitCode(1)
        }
    }

}

func readAllStdin() -> String {
    var bytes: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(0, &buf, buf.count)
        if n <= 0 { break }
        bytes.append(contentsOf: buf[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
