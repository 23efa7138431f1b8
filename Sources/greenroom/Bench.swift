import ArgumentParser

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure the host against baselines and print ratios.")
    func run() throws { print("bench: not yet") }
}

struct EchoServer: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "echo-server", abstract: "Baseline servers for bench.", shouldDisplay: false)
    func run() throws {}
}
