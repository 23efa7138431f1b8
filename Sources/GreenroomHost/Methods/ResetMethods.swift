import GreenroomJSON
import GreenroomRPC

extension Host {
    /// `host.reset`, for test scripts that share one host: every object torn down with its lifecycle,
    /// pools and scripted classes gone, ids from 1 again — the host as it started, connections kept.
    func registerResetMethods(into r: inout MethodRegistry<HostConnection>) {
        r.register(HostReset.self) { [unowned self] c, _ async throws(RPCError) in
            let host = self
            guard host.virtualClock != nil || host.config.allowReset else {
                throw RPCError(.virtualClockOnly,
                    "host.reset tears down every connection's objects; it needs --clock virtual, or a host started with --allow-reset",
                    ["method": "host.reset", "clock": "real", "flag": "--allow-reset"])
            }
            var result = await host.reset(caller: c)
            result["reset"] = true
            return .object(result)
        }
    }
}
