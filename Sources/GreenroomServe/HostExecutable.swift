import Glibc
import GreenroomHost
import GreenroomJSON

/// `greenroom-host`, the executable a served host runs in. `greenroom serve` checks its options with the
/// argument parser, then replaces its process with `greenroom-host` (the same pid, stdout, stderr and
/// signals) and hands it the options as JSON. The host's process then maps neither the argument parser
/// nor the Foundation library the parser loads, which would otherwise be about 2 MiB of its idle
/// resident set. Without a `greenroom-host` beside `greenroom`, `serve` runs the host in its own
/// process: the same host, a larger resident set.
public enum HostExecutable {
    public static let name = "greenroom-host"
    /// The one argument `greenroom-host` takes, followed by the options' JSON.
    public static let optionsFlag = "--options"

    /// The running executable's path, resolved.
    public static func current() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `greenroom-host` in the directory of `executable`, if it is there and may be run.
    public static func beside(_ executable: String) -> String? {
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let path = String(executable[...slash]) + name
        return access(path, X_OK) == 0 ? path : nil
    }

    /// Replaces this process with `host`, serving `options`. Returns only if the system refused
    /// (with its reason), so that the caller can serve in its own process instead.
    public static func replaceProcess(with host: String, _ options: ServeOptions) -> String {
        let arguments = [name, optionsFlag, JSONCodec.encodeString(options.json)]
        var argv = arguments.map { strdup($0) }
        argv.append(nil)
        fflush(nil)
        execv(host, argv)
        let reason = String(cString: strerror(errno))
        for p in argv { free(p) }
        return reason
    }

    /// `greenroom-host`'s whole program: `--options JSON`, then the host; the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, arguments[1] == optionsFlag else {
            writeStandardError("greenroom-host: started by `greenroom serve`, not by hand (it takes \(optionsFlag) JSON); run `greenroom serve --help`\n")
            return 2
        }
        let options: ServeOptions
        do {
            options = try ServeOptions(json: try JSONCodec.decode(arguments[2]))
        } catch let e as ServeRefusal {
            writeStandardError("greenroom-host: \(e.message)\n")
            return 2
        } catch {
            writeStandardError("greenroom-host: options: \(error)\n")
            return 2
        }
        return options.serve()
    }
}
