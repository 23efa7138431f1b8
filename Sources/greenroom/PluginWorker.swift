import ArgumentParser
import Glibc
import GreenroomHost
import GreenroomWorker

/// `greenroom plugin-worker`: one plugin's worker process, started by `serve` (not by hand).
struct PluginWorker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-worker", abstract: "Run one plugin for a host (started by serve).", shouldDisplay: false)

    @Option(help: "The socket to the host.") var fd: Int32
    @Option(help: "The host's pid: the worker dies with it.") var parent: Int32 = 0
    @Option(help: "Most bytes of output one hook may give.") var maxOutputBytes = 1 << 20
    @Option(help: "Deepest JSON nesting.") var maxDepth = 64
    @Option(help: "A shared page where the worker says which hook of a batch it is in.") var progressFd: Int32?
    @Flag(help: "Run the command that follows (after --) as the worker, its socket on descriptor 3.") var exec = false
    @Argument(parsing: .captureForPassthrough, help: "The plugin library, or with --exec the command and its arguments.")
    var arguments: [String] = []

    func run() throws {
        var words = arguments
        if words.first == "--" { words.removeFirst() }
        guard !words.isEmpty else { throw ValidationError(exec ? "--exec needs a command" : "a plugin library is required") }
        if exec {
            throw ExitCode(PluginWorkerMain.exec(fd: fd, parent: parent, command: words))
        }
        let status = PluginWorkerMain.run(fd: fd, path: words[0], parent: parent, maxOutputBytes: maxOutputBytes, maxDepth: maxDepth,
                                          progressFD: progressFd)
        if status != 0 { throw ExitCode(status) }
    }
}
