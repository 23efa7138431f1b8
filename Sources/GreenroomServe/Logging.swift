import Glibc
import Logging

/// The executable's one logger: structured lines on stderr (`TIMESTAMP LEVEL greenroom : key=value
/// message`, swift-log's stream format), at `level` and above. Only the executable makes a logger;
/// the host and transports take this one from their configuration.
public func makeLogger(level: Logger.Level) -> Logger {
    var logger = Logger(label: "greenroom") { label in StreamLogHandler.standardError(label: label) }
    logger.logLevel = level
    logger[metadataKey: "pid"] = "\(getpid())"
    return logger
}
