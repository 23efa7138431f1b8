import ArgumentParser
import GreenroomHost
import GreenroomRPC

/// `greenroom schema`: prints the OpenRPC document made from the message types. rpc-schema/openrpc.json
/// is this output (`make schema` writes it; a test fails when the two differ), and the clients are
/// generated from that file.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the OpenRPC document of the wire protocol (rpc-schema/openrpc.json is this output).")

    @Flag(help: "Print the method names, one per line, instead of the document.")
    var methods = false

    func run() throws {
        let dangling = OpenRPCGenerator.danglingReferences(in: GreenroomProtocol.document)
        guard dangling.isEmpty else {
            throw ValidationError("the document refers to component schemas that do not exist: \(dangling.joined(separator: ", "))")
        }
        if methods {
            print(GreenroomProtocol.methodNames.joined(separator: "\n"))
        } else {
            print(GreenroomProtocol.documentText, terminator: "")
        }
    }
}
