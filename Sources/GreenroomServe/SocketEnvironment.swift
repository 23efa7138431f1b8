import Glibc

/// `$GREENROOM_SOCKET`, read the way every Greenroom client reads it: unset or empty means "not given".
/// `serve` and `call` both take it after `--socket` and before the per-user default.
public func socketPathFromEnvironment() -> String? {
    guard let value = getenv("GREENROOM_SOCKET"), value.pointee != 0 else { return nil }
    return String(cString: value)
}
