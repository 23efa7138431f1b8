#!/bin/sh
# Coverage-guided fuzzing of the framing, the JSON-RPC processor and method dispatch
# (Sources/GreenroomFuzz): builds the libFuzzer target with AddressSanitizer into its own scratch path,
# .build-fuzz (the normal build never sees the fuzzer flags), writes the seed corpus from
# rpc-schema/fixtures and runs it. Arguments go to libFuzzer (`-max_total_time=20`, `-runs=N`).
# New inputs are kept in .build-fuzz/corpus; crashes go to .build-fuzz/crashes/ (replay one with
# `.build-fuzz/debug/GreenroomFuzz FILE`).
set -eu
cd "$(dirname "$0")/.."
PY=.venv/bin/python
[ -x "$PY" ] || PY=python3
sh scripts/swift.sh build -c debug --product GreenroomFuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DGREENROOM_LIBFUZZER
mkdir -p .build-fuzz/corpus .build-fuzz/seeds .build-fuzz/crashes
"$PY" scripts/fuzz_corpus.py rpc-schema/fixtures .build-fuzz/seeds
exec .build-fuzz/debug/GreenroomFuzz -artifact_prefix=.build-fuzz/crashes/ -timeout=20 -rss_limit_mb=4096 \
    -max_len=16384 -print_final_stats=1 "$@" .build-fuzz/corpus .build-fuzz/seeds
