"""The typed API is typed for its users: the generated modules and the examples written with them pass
`mypy --strict`, and mypy catches the mistakes the types are there for (a misspelt method, param, reply member
or enum value, a handle of the wrong kind, an event handler for another topic's payload).

mypy is a test dependency (requirements-dev.txt); an interpreter without it skips these tests and says so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed here (pip install -r requirements-dev.txt)")

SRC = Path(__file__).resolve().parents[1] / "src"
REPO = Path(__file__).resolve().parents[3]
MODULES = [SRC / "greenroom" / "api.py", SRC / "greenroom" / "aio_api.py"]
EXAMPLES = [*(REPO / "examples" / "python" / name
              for name in ("typed_tour.py", "prerender_experiment.py", "predictive_prerender.py", "split_tasks.py",
                         "reuse_pager.py")),
            *sorted((REPO / "examples" / "golden").glob("*.py"))]  # the golden transcripts' scripts

USER_CODE = textwrap.dedent('''
    from __future__ import annotations

    from greenroom import Client
    from greenroom.aio import AsyncClient
    from greenroom.api import HostEvent, LifecycleEvent, PageSession, PageStreamState, Stack


    def sync(client: Client) -> float:
        seen: list[str] = []

        @client.on("lifecycle")
        def hook(event: LifecycleEvent) -> None:
            seen.append(event["container"] + " " + event["event"])

        @client.on("host")
        def host(event: HostEvent) -> None:
            seen.append(event["kind"])

        client.on("lifecycle", print)  # any handler still goes, as before the types
        session: PageSession = client.page.create(375, 667, class_="Container", count=3)
        state: PageStreamState = session.did_scroll(offset=120.0)
        client.page.did_scroll(session, offset=130.0)
        client.page.did_scroll("p-1", offset=140.0)
        stack: Stack = client.stack.create(375, 667)
        card = client.container.create("Container")
        stack.push(card, animated=True)
        client.stack.set_containers(stack, [card, "c-9"])
        client.host.memory_warning(level="critical")
        for event in client.events("host", timeout=0):
            seen.append(event.topic)
        return state["index"] + client.clock.advance(ms=16)["now"]


    async def asynchronous(client: AsyncClient) -> int:
        session = await client.page.create(375, 667, class_="Container", count=3)
        await session.show(2, animated=False)
        ranges = await client.range.create(viewport={"width": 375, "height": 667}, count=100)
        await client.range.did_scroll(ranges, offset=10.0)
        async for event in client.events("range", timeout=0):
            print(event.topic)
        return (await session.info())["index"]
''')

# Each mistake, put into the code above, and what mypy must say about it.
MISTAKES = [
    ('client.clock.advance(ms=16)["now"]', 'client.clock.advance(ms="16")["now"]',
     'Argument "ms" to "advance" of "ClockMethods" has incompatible type "str"'),
    ("session.did_scroll(offset=120.0)", "session.did_scrol(offset=120.0)", '"PageSession" has no attribute "did_scrol"'),
    ('["now"]', '["nwo"]', 'TypedDict "ClockAdvanceResult" has no key "nwo"'),
    ('level="critical"', 'level="severe"', 'Argument "level" to "memory_warning" of "HostMethods" has incompatible'),
    ("stack.push(card, animated=True)", "stack.push(stack, animated=True)",
     'Argument 1 to "push" of "Stack" has incompatible type "Stack"'),
    ('class_="Container", count=3)\n    state', 'class_="Container", count="3")\n    state',
     'Argument "count" to "create" of "PageMethods" has incompatible type "str"'),
    ('def host(event: HostEvent)', 'def host(event: LifecycleEvent)', 'Value of type variable "_HostHandler"'),
    ('(await session.info())["index"]', 'session.info()["index"]', 'Value of type "Coroutine'),
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def mypy(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    # --follow-imports=silent: the rest of the package is checked by its own standards, not --strict's.
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir",
                           str(cache), *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "MYPYPATH": str(SRC)})


def test_the_generated_modules_pass_mypy_strict(cache):
    assert (SRC / "greenroom" / "py.typed").is_file()  # what makes users' mypy read these types at all
    done = mypy(*map(str, MODULES), cache=cache)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_the_examples_written_with_it_pass_mypy_strict(example, cache):
    done = mypy(str(example), cache=cache)
    assert done.returncode == 0, done.stdout + done.stderr


def test_user_code_passes_and_each_mistake_is_caught(tmp_path, cache):
    user = tmp_path / "user_code.py"
    user.write_text(USER_CODE)
    done = mypy(str(user), cache=cache)
    assert done.returncode == 0, done.stdout + done.stderr
    for right, wrong, message in MISTAKES:
        assert right in USER_CODE, right
        user.write_text(USER_CODE.replace(right, wrong, 1))
        done = mypy(str(user), cache=cache)
        assert done.returncode == 1 and message in done.stdout, f"{wrong!r}:\n{done.stdout}"
