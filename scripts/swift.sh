#!/bin/sh
# Runs the Swift toolchain: the `swift` on PATH, else the one at /opt/swift/usr/bin (where Swift's Linux
# tarball is usually unpacked). With neither, says where to get it and fails.
if command -v swift >/dev/null 2>&1; then
    exec swift "$@"
fi
for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    if [ -x "$dir/swift" ]; then
        exec "$dir/swift" "$@"
    fi
done
echo "greenroom: Swift 6 is needed and was found neither on PATH nor in /opt/swift/usr/bin;" \
     "get the Linux toolchain from https://www.swift.org/install/linux/ and unpack it to /opt/swift" >&2
exit 127
