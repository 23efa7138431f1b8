import Glibc

/// Resident set size of this process, from /proc/self/statm.
public func residentSetBytes() -> Int {
    guard let f = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(f) }
    var size = 0, resident = 0
    guard withUnsafeMutablePointer(to: &size, { s in
        withUnsafeMutablePointer(to: &resident) { r in readStatm(f, s, r) }
    }) else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

private func readStatm(_ f: UnsafeMutablePointer<FILE>, _ s: UnsafeMutablePointer<Int>, _ r: UnsafeMutablePointer<Int>) -> Bool {
    var buf = [CChar](repeating: 0, count: 128)
    guard fgets(&buf, 128, f) != nil else { return false }
    let fields = String(cString: buf).split(separator: " ")
    guard fields.count >= 2, let a = Int(fields[0]), let b = Int(fields[1]) else { return false }
    s.pointee = a
    r.pointee = b
    return true
}
