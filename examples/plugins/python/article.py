"""The Article example plugin in Python: the Swift one (examples/plugins/Article/) ported to greenroom.plugin.

The web page of the article on prerendering view controllers as a container class: ``viewDidLoad`` parses
the page template (the costly part a prerender pool hides), ``configure`` renders the business data into
HTML and returns ``{bytes, checksum, title, size}``, the layout hooks record the size the page is laid out
at, and a memory warning drops the rendered page. The same data at the same size renders the same bytes,
and so the same checksum, as the Swift plugin.

    greenroom serve --plugin-command "python3 examples/plugins/python/article.py"
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
# From a checkout, the client package beside the examples (installed, `pip install clients/python` does).
_SRC = Path(__file__).resolve().parents[3] / "clients" / "python" / "src"
if _SRC.is_dir():
    sys.path.insert(0, str(_SRC))

from mustache import Template  # noqa: E402

from greenroom.plugin import Container, HookCall, PluginError, serve  # noqa: E402

TEMPLATE = (Path(__file__).resolve().parent.parent / "templates" / "article.html").read_text(encoding="utf-8")
log = logging.getLogger("article")


class Article(Container):
    name = "ArticlePy"  # beside the Swift plugin's Article on one host
    # The page's text sits within the root view's layout margins, so it asks to hear when they change.
    optional_hooks = frozenset({"viewLayoutMarginsDidChange"})

    def __init__(self, container_id: str) -> None:
        super().__init__(container_id)
        self.template: Template | None = None
        self.html: str | None = None
        self.margin_changes = 0

    def viewDidLoad(self) -> dict[str, int]:
        return {"nodes": self.load_template().node_count}

    def viewLayoutMarginsDidChange(self) -> dict[str, int]:
        self.margin_changes += 1
        return {"marginChanges": self.margin_changes}

    def configure(self, call: HookCall) -> dict[str, Any]:
        # Data from init is rendered by the first configure that brings none (the kit keeps it in self.data).
        data = self.data
        if not isinstance(data, dict):
            raise PluginError(f"Article.configure expects data to be an object, got {_type_name(data)}")
        if data.get("fail") is True:
            raise PluginError(f"Article.configure failed on purpose: data.fail is true (container {self.id})")
        # Configuring a container whose view never loaded loads it first, as UIKit's `view` accessor does.
        template = self.load_template()
        context = dict(data)
        context["container"] = self.id
        if self.size is not None:
            context["viewport"] = self.size.to_json()
        page = template.render(context)
        self.html = page
        output: dict[str, Any] = {
            "bytes": len(page.encode()),
            "checksum": checksum(page),
            "title": context["title"] if isinstance(context.get("title"), str) else None,
            "size": self.size.to_json() if self.size is not None else None,
        }
        if context.get("includeHTML") is True:
            output["html"] = page
        return output

    def didReceiveMemoryWarning(self) -> dict[str, int]:
        # The parsed template stays (the view stays loaded); the rendered page is rebuilt on demand.
        freed = len(self.html.encode()) if self.html else 0
        self.html = None
        return {"freed": freed}

    def deinit(self) -> None:
        self.template = None
        self.html = None
        self.data = None

    def load_template(self) -> Template:
        if self.template is None:
            self.template = Template(TEMPLATE)
            log.debug("parsed the template for %s", self.id)
        return self.template

    @property
    def memory_bytes(self) -> int:
        return (256 + (self.template.byte_count if self.template else 0) + (len(self.html.encode()) if self.html else 0)
                + estimate(self.data))


def checksum(page: str) -> int:
    """FNV-1a over the page's UTF-8."""
    h = 2166136261
    for byte in page.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def estimate(value: Any) -> int:
    """Roughly what a JSON value holds in memory."""
    if isinstance(value, str):
        return 16 + len(value.encode())
    if isinstance(value, list):
        return 32 + sum(estimate(v) for v in value)
    if isinstance(value, dict):
        return 32 + sum(16 + len(k.encode()) + estimate(v) for k, v in value.items())
    return 16


def _type_name(value: Any) -> str:
    return {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "an array"}.get(type(value), "an object")


if __name__ == "__main__":
    serve("article-py", [Article], version="1.0.0")
