import ArgumentParser
import GreenroomHost

@main
struct Greenroom: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "greenroom",
        abstract: "A host of prerendered view containers, page sessions and prefetch ranges, over JSON-RPC 2.0.",
        version: "greenroom \(GreenroomVersion.version) (protocol \(GreenroomVersion.protocolVersion))",
        subcommands: [Serve.self, Call.self, ReplayCommand.self, TranscriptCommand.self, SchemaCommand.self, Bench.self, EchoServer.self, PluginWorker.self])
}
