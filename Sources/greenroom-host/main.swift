import Glibc
import GreenroomServe

// The host's own process, started by `greenroom serve` (see `HostExecutable`).
exit(HostExecutable.main(CommandLine.arguments))
