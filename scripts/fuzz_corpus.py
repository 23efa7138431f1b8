"""Writes the fuzz target's seed corpus: one input per fixture in rpc-schema/fixtures, the fixture's setup
calls and its call as JSON-RPC lines (`$setup[i].member` references become the ids the host gives in
order: s-1, c-1, p-1, r-1 ...). Each input starts with the byte that picks the fuzz target's read size.

    python3 scripts/fuzz_corpus.py rpc-schema/fixtures OUT_DIR
"""

import json
import pathlib
import re
import sys

PREFIX = {"stack.create": ("stack", "s"), "container.create": ("container", "c"), "page.create": ("session", "p"),
          "range.create": ("session", "r"), "showRendered": ("container", "c")}


def lines_for(method: str, fixture: dict) -> list[str]:
    counters: dict[str, int] = {}
    made: list[dict] = []
    out = []
    calls = list(fixture.get("setup", [])) + [{"method": method, "params": fixture.get("params", {})}]
    for i, call in enumerate(calls, 1):
        text = json.dumps(call.get("params", {}))

        def resolve(m: re.Match) -> str:
            ref = made[int(m.group(1))] if int(m.group(1)) < len(made) else {}
            return json.dumps(ref.get(m.group(2), "x-1"))

        text = re.sub(r'"\$setup\[(\d+)\]\.(\w+)"', resolve, text)
        out.append(f'{{"jsonrpc":"2.0","id":{i},"method":{json.dumps(call["method"])},"params":{text}}}')
        ids = {}
        if call["method"] in PREFIX:
            key, p = PREFIX[call["method"]]
            counters[p] = counters.get(p, 0) + 1
            ids[key] = f"{p}-{counters[p]}"
        made.append(ids)
    return out


def main() -> None:
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    dst.mkdir(parents=True, exist_ok=True)
    for n, f in enumerate(sorted(src.glob("*.json"))):
        method = f.name[: -len(".json")]
        if method == "host.shutdown":
            continue
        body = "\n".join(lines_for(method, json.loads(f.read_text()))) + "\n"
        (dst / f"{method}.seed").write_bytes(bytes([n % 64]) + body.encode())


if __name__ == "__main__":
    main()
