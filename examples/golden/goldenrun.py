"""What the scripts in examples/golden share: run a scenario on a fresh virtual-clock host and record it.

Each script is one scenario from the articles Greenroom follows (see README.md here). ``record`` starts
``greenroom serve --clock virtual`` on a temporary socket (``$GREENROOM_BIN``, else this repository's
``.build/debug/greenroom``, else ``greenroom`` on ``PATH``), connects a client, and records what the
scenario does into ``<script's name>.ndjson`` beside the script (``--out`` elsewhere). A fresh host and a
virtual clock are what make the transcript a golden test: ``greenroom replay FILE`` starts from nothing and
gets the same ids, times and orders again.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

try:
    import greenroom  # noqa: F401  (installed: pip install -e clients/python)
except ImportError:  # a plain checkout: the client beside these examples
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))

from greenroom import Client, GreenroomError
from greenroom.testing import HostProcess
from greenroom.transcript import Recording

#: A scenario: the calls, on a client that is recording (``recording.comment`` marks its steps).
Scenario = Callable[[Client, Recording], None]


def record(script: str, about: str, scenario: Scenario, argv: list[str] | None = None) -> Path:
    """Run ``scenario`` on a fresh host and write its transcript; returns the file's path."""
    name = Path(script).stem
    parser = argparse.ArgumentParser(description=about)
    parser.add_argument("--out", type=Path, default=HERE / f"{name}.ndjson",
                        help=f"where to write the transcript (default: {name}.ndjson beside the script)")
    options = parser.parse_args(argv)
    try:
        with HostProcess.start() as host, host.client() as client:
            with client.record(options.out, comment=f"examples/golden/{name}.py: {about}") as recording:
                scenario(client, recording)
    except (GreenroomError, OSError) as error:  # no binary, a host that would not start, a file not written
        sys.exit(f"{name}: {error}")
    print(f"wrote {options.out} ({recording.messages} messages); check it with: greenroom replay {options.out}")
    return Path(options.out)
