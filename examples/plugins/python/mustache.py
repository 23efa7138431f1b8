"""A Mustache-style template, parsed once and rendered many times: the Article example's engine, ported
from examples/plugins/Article/Template.swift so that the same data renders the same bytes.

``{{name}}`` (HTML-escaped), ``{{{name}}}`` or ``{{&name}}`` (raw), ``{{#name}}...{{/name}}`` (repeated for
each element of an array, once for any other truthy value), ``{{^name}}...{{/name}}`` (when falsy),
``{{! comment}}``. Names may be dotted (``author.name``); ``.`` is the current element.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Union

_MISSING = object()


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Variable:
    path: tuple[str, ...]
    escaped: bool


@dataclass(frozen=True)
class Section:
    path: tuple[str, ...]
    inverted: bool
    body: tuple[Node, ...]


Node = Union[Text, Variable, Section]


class TemplateError(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"template line {line}: {message}")


class Template:
    def __init__(self, source: str) -> None:
        parser = _Parser(source)
        nodes, closing = parser.parse(None)
        if closing is not None:
            raise TemplateError(f"{{{{/{closing}}}}} closes no section", parser.line)
        self.nodes = nodes
        self.byte_count, self.node_count = _measure(nodes)

    def render(self, data: Any) -> str:
        out: list[str] = []
        _render(self.nodes, [data], out)
        return "".join(out)


def _measure(nodes: tuple[Node, ...]) -> tuple[int, int]:
    size = count = 0
    for node in nodes:
        count += 1
        size += 32
        if isinstance(node, Text):
            size += len(node.text.encode())
        elif isinstance(node, Variable):
            size += sum(len(p.encode()) + 16 for p in node.path)
        else:
            size += sum(len(p.encode()) + 16 for p in node.path)
            inner_bytes, inner_count = _measure(node.body)
            size += inner_bytes
            count += inner_count
    return size, count


def _render(nodes: tuple[Node, ...], stack: list[Any], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.text)
        elif isinstance(node, Variable):
            value = _lookup(node.path, stack)
            if value is _MISSING:
                continue
            text = _format(value)
            out.append(_escape(text) if node.escaped else text)
        else:
            value = _lookup(node.path, stack)
            if node.inverted:
                if not _truthy(value):
                    _render(node.body, stack, out)
                continue
            if not _truthy(value):
                continue
            for item in value if isinstance(value, list) else [value]:
                stack.append(item)
                _render(node.body, stack, out)
                stack.pop()


def _lookup(path: tuple[str, ...], stack: list[Any]) -> Any:
    if path == (".",):
        return stack[-1]
    value: Any = _MISSING
    for context in reversed(stack):
        if isinstance(context, dict) and path[0] in context:
            value = context[path[0]]
            break
    for name in path[1:]:
        value = value.get(name, _MISSING) if isinstance(value, dict) else _MISSING
    return value


def _truthy(value: Any) -> bool:
    if value is _MISSING or value is None or value is False:
        return False
    if isinstance(value, (list, str)):
        return len(value) > 0
    return True


def _format(value: Any) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


class _Parser:
    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.line = 1

    def parse(self, section: str | None) -> tuple[tuple[Node, ...], str | None]:
        s = self.s
        nodes: list[Node] = []
        text_start = self.i
        while True:
            j = s.find("{{", self.i)
            if j < 0:
                self.line += s.count("\n", self.i)
                self.i = len(s)
                break
            self.line += s.count("\n", self.i, j)
            if j > text_start:
                nodes.append(Text(s[text_start:j]))
            tag_line = self.line
            triple = s.startswith("{{{", j)
            start = j + (3 if triple else 2)
            close = "}}}" if triple else "}}"
            end = s.find(close, start)
            if end < 0:
                raise TemplateError("unclosed tag", tag_line)
            raw = s[start:end]
            self.line += raw.count("\n")
            self.i = end + len(close)
            text_start = self.i
            if triple:
                nodes.append(Variable(_path(raw, tag_line), False))
                continue
            sigil = raw[:1]
            tag = raw[1:] if sigil and sigil in "#^/!&" else raw
            if sigil == "!":
                continue
            if sigil == "&":
                nodes.append(Variable(_path(tag, tag_line), False))
            elif sigil in ("#", "^") and sigil:
                path = _path(tag, tag_line)
                name = ".".join(path)
                body, closing = self.parse(name)
                if closing != name:
                    raise TemplateError(f"section {{{{{sigil}{name}}}}} is never closed", tag_line)
                nodes.append(Section(path, sigil == "^", body))
                text_start = self.i
            elif sigil == "/":
                name = ".".join(_path(tag, tag_line))
                if name != section:
                    raise TemplateError(f"{{{{/{name}}}}} closes " + (f"{{{{#{section}}}}}" if section else "no section"),
                                        tag_line)
                return tuple(nodes), name
            else:
                nodes.append(Variable(_path(tag, tag_line), True))
        if len(s) > text_start:
            nodes.append(Text(s[text_start:]))
        return tuple(nodes), None


def _path(tag: str, line: int) -> tuple[str, ...]:
    name = tag.strip()
    if not name:
        raise TemplateError("empty tag", line)
    if name == ".":
        return (".",)
    parts = tuple(name.split("."))
    if any(not p for p in parts):
        raise TemplateError(f"bad name {name}", line)
    return parts
