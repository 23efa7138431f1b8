"""The documentation lives in the repository, and its links work.

A clone has no private design notes beside it: README, docs, schema, clients, examples, tests and comments
must point at files in the repository (docs/...), never at a document outside it. And every relative link
in README.md, CONTRIBUTING.md and docs/*.md must lead to a file in the repository (and, with a #fragment, to a
heading there).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Spelled in pieces so that this file does not match itself.
OUTSIDE_REFERENCES = [
    "../" + "shared",
    "DESIGN" + ".md",
    "DESIGN" + " §",
]

# Pages another change is writing: links to them may dangle only while they do not exist. Once a page
# lands, test_pending_pages_are_still_pending fails until it is taken off this list.
PENDING_PAGES: set[str] = set()

LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~)")


def tracked_files() -> list[Path]:
    """The repository's files: git's list when this is a clone, else a walk that skips build output."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], check=True, capture_output=True).stdout
        return [REPO / p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".build", ".venv", "__pycache__"}
        files = []
        for root, dirs, names in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
            files += [Path(root) / n for n in names]
        return files


def text_of(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:  # a symlink to a directory, a file deleted in the work tree
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def test_no_file_points_outside_the_repository():
    offenders = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for ref in OUTSIDE_REFERENCES:
                if ref in line:
                    offenders.append(f"{path.relative_to(REPO)}:{n}: {ref!r}: {line.strip()[:120]}")
    assert not offenders, (
        "these point at documents outside the repository; point at docs/... instead "
        "(name the public article or library the behaviour comes from):\n" + "\n".join(offenders))


def markdown_pages() -> list[Path]:
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) for every inline link outside code fences and code spans."""
    found, fenced = [], False
    for n, line in enumerate(page.read_text().splitlines(), 1):
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if fenced:
            continue
        prose = re.sub(r"`[^`]*`", "", line)
        found += [(n, m.group(1)) for m in LINK.finditer(prose)]
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    out, fenced = set(), False
    for line in page.read_text().splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page):
    tracked = {p.relative_to(REPO).as_posix() for p in tracked_files()}
    broken = []
    for n, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path_part, _, fragment = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        where = f"{page.relative_to(REPO)}:{n}: {target}"
        try:
            rel = dest.relative_to(REPO).as_posix()
        except ValueError:
            broken.append(f"{where}: leaves the repository")
            continue
        if rel in PENDING_PAGES and not dest.exists():
            continue
        if dest.is_dir():
            if not any(t.startswith(rel + "/") for t in tracked):
                broken.append(f"{where}: a directory with no tracked file")
        elif rel not in tracked and not dest.exists():
            broken.append(f"{where}: no such file in the repository")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{where}: no heading #{fragment} in {rel}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_index_lists_every_page():
    index = (REPO / "docs" / "README.md").read_text()
    pages = {p.name for p in (REPO / "docs").glob("*.md")} - {"README.md"}
    missing = sorted(p for p in pages if f"]({p})" not in index)
    assert not missing, f"docs/README.md does not link {missing}"


def test_pending_pages_are_still_pending():
    landed = sorted(p for p in PENDING_PAGES if (REPO / p).exists())
    assert not landed, f"{landed} exist now: take them off PENDING_PAGES in {Path(__file__).name} so their links are checked"
