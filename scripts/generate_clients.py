#!/usr/bin/env python3
"""Generates the typed clients from the wire contract, rpc-schema/openrpc.json.

It writes three files, each with a header saying so:

- ``clients/python/src/greenroom/api.py``: the wire's types (a ``TypedDict`` per object schema, ``Literal``
  aliases for enums), the events, the handles (sessions, stacks, containers) and the method groups of the
  blocking :class:`greenroom.Client` (``client.page.did_scroll(session, offset=...)``);
- ``clients/python/src/greenroom/aio_api.py``: the same groups and handles for ``AsyncClient``;
- ``clients/js/greenroom.d.ts``: TypeScript declarations for ``/greenroom.js``, so that an editor completes
  method names, params, results and event payloads.

It reads nothing but the JSON file (the host can print the document; turning that into the file is a
separate step) and needs nothing but Python 3.11's standard library. The output depends only on the
document: the same document gives the same bytes, which is what the drift test
(``clients/python/tests/test_generated_api.py``) checks.

    python3 scripts/generate_clients.py            # rewrite the three files
    python3 scripts/generate_clients.py --check    # exit 1, naming the stale files, if they differ

The mapping, in short: params keep the document's order; required ones are positional-or-keyword, optional
ones keyword-only and ``None`` by default (a param left at ``None`` is not sent). Names become snake_case,
and a Python keyword gets a trailing underscore (``class_``), mapped back to the wire name in the request.
``oneOf [null, X]`` is ``X | None``; a schema with no type says ``Any`` (``unknown`` in TypeScript). A group
whose ``create`` returns an id that its other methods take first (``page.*``, ``range.*``, ``stack.*``,
``container.*``) gets a handle class that binds that id. Each Python method checks its arguments' JSON types
against the params' schemas before it sends (``_check_params``, from :class:`ParamShapes`) and raises
``InvalidParams`` as the host would; the rest of what the host checks (ranges, lengths, enum values) stays the
host's.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "rpc-schema" / "openrpc.json"
PYTHON_API = REPO / "clients" / "python" / "src" / "greenroom" / "api.py"
PYTHON_AIO_API = REPO / "clients" / "python" / "src" / "greenroom" / "aio_api.py"
TYPESCRIPT = REPO / "clients" / "js" / "greenroom.d.ts"

REGENERATE = "make generate-clients (python3 scripts/generate_clients.py)"
WIDTH = 110  # docstrings and comments wrap here (the code's limit is 120)

# Attributes the clients already have: a wire group or top-level method may not take their name. `events` is
# the exception: the group is callable, so `client.events(...)` still iterates over events.
CLIENT_ATTRIBUTES = frozenset({
    "address", "batch", "call", "close", "closed", "connect", "events", "notify", "off", "on", "open", "ping",
    "poll_events", "subscribe", "timeout", "unsubscribe",
})
CALLABLE_GROUP = "events"
# Names the generated Python modules define or import themselves; a schema may not take them.
PYTHON_RESERVED = frozenset({
    "Any", "AsyncIterator", "AsyncMethods", "Callable", "ClassVar", "Event", "Handle", "Iterable", "Iterator",
    "Literal", "Mapping", "Methods", "NotRequired", "Sequence", "TypeAlias", "TypedDict", "TypeVar", "overload",
    "cached_property", "TYPE_CHECKING", "EventTopic", "AnyEvent", "EVENT_TOPICS", "METHODS", "InvalidParams",
})


class SchemaError(Exception):
    """The document has something the generator cannot map; the message says what and where."""


# ---------------------------------------------------------------------------------------------------------
# Names


def snake(name: str) -> str:
    """``didScroll`` -> ``did_scroll``, ``memoryBytes`` -> ``memory_bytes``; a keyword gets ``_`` (``class_``)."""
    text = re.sub(r"[^0-9A-Za-z_]", "_", name)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).lower()
    if not text or text[0].isdigit():
        text = "_" + text
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text == "self":
        text += "_"
    return text


def pascal(name: str) -> str:
    """``host.memoryWarning`` -> ``HostMemoryWarning``, ``showRendered`` -> ``ShowRendered``."""
    parts = re.split(r"[^0-9A-Za-z]+", name)
    return "".join(part[:1].upper() + part[1:] for part in parts if part)


def is_identifier(name: str) -> bool:
    """True for a name Python can spell as an identifier (a TypedDict key in the class form)."""
    return name.isidentifier() and not keyword.iskeyword(name)


# ---------------------------------------------------------------------------------------------------------
# Text


def wrap(text: str, width: int) -> list[str]:
    """Paragraphs of ``text`` wrapped to ``width``, a blank line between them."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        if lines:
            lines.append("")
        lines.extend(textwrap.wrap(" ".join(paragraph.split()), width, break_long_words=False,
                                   break_on_hyphens=False) or [""])
    return lines


def py_docstring(paragraphs: list[str | list[str]], indent: str) -> list[str]:
    """A docstring at ``indent``: each entry a paragraph (str, wrapped) or ready lines (list, kept)."""
    body: list[str] = []
    for entry in paragraphs:
        if body:
            body.append("")
        if isinstance(entry, str):
            body.extend(wrap(entry, WIDTH - len(indent)))
        else:
            body.extend(entry)
    body = [line.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') for line in body]
    if len(body) == 1 and len(indent) + len(body[0]) + 6 <= 120:
        return [f'{indent}"""{body[0]}"""']
    out = [f'{indent}"""{body[0]}']
    out += [f"{indent}{line}" if line else "" for line in body[1:]]
    out.append(f'{indent}"""')
    return out


def js_doc(paragraphs: list[str], indent: str) -> list[str]:
    """A JSDoc comment at ``indent`` (``*/`` inside the text is broken up)."""
    body: list[str] = []
    for entry in paragraphs:
        if not entry:
            continue
        if body:
            body.append("")
        body.extend(wrap(entry, WIDTH - len(indent) - 3))
    if not body:
        return []
    body = [line.replace("*/", "*\\/") for line in body]
    if len(body) == 1 and len(indent) + len(body[0]) + 7 <= 120:
        return [f"{indent}/** {body[0]} */"]
    return [f"{indent}/**"] + [f"{indent} * {line}".rstrip() for line in body] + [f"{indent} */"]


def literal(value: Any) -> str:
    """A JSON scalar as a Python literal (inside ``Literal[...]``), strings in double quotes."""
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a Python string literal too
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    raise SchemaError(f"cannot make a Literal of {value!r}")


def py_string(text: str) -> str:
    """``text`` as a Python string literal, in double quotes unless it holds one."""
    return f'"{text}"' if '"' not in text and "\\" not in text else repr(text)


# ---------------------------------------------------------------------------------------------------------
# The document


@dataclass
class Param:
    """One param of a method: its wire name, its Python name, whether it is required, its schema."""
    wire: str
    py: str
    required: bool
    schema: dict[str, Any]
    description: str


@dataclass
class Method:
    """One method of the document, with the names the generators give it."""
    wire: str
    group: str | None  # None: a method without a dot (showRendered)
    py: str  # the Python name inside its group (or on the client)
    pascal: str
    summary: str
    description: str
    params: list[Param]
    result_name: str
    result_schema: dict[str, Any]
    result_description: str


@dataclass
class HandleKind:
    """A group whose ``create`` makes an object its other methods take (by id) as their first param."""

    group: str
    id_schema: str  # the component naming the id ("PageSessionId")
    name: str  # the sync handle class ("PageSession"); the async one is "Async" + name
    create: Method
    create_field: str  # the member of create's result holding the id
    methods: list[Method] = field(default_factory=list)

    @property
    def base(self) -> str:
        """The class both flavours derive from, and what params that take this id accept."""
        return self.name + "Handle"


@dataclass
class Topic:
    """One event topic (`x-notifications`): its name and its params' schema."""
    name: str
    summary: str
    description: str
    schema: dict[str, Any]


class Document:
    """The parts of the OpenRPC document the generators use, checked."""

    def __init__(self, doc: dict[str, Any]) -> None:
        doc = prepare(doc)
        self.doc = doc
        self.schemas: dict[str, dict[str, Any]] = doc.get("components", {}).get("schemas", {})
        self.info = doc.get("info", {})
        self.methods = [self._method(m) for m in doc.get("methods", [])]
        self.topics = [Topic(n["name"], n.get("summary", ""), n.get("description", ""), n.get("params", {}))
                       for n in doc.get("x-notifications", [])]
        self.groups: dict[str, list[Method]] = {}
        for method in self.methods:
            if method.group is not None:
                self.groups.setdefault(method.group, []).append(method)
        self.top_level = [m for m in self.methods if m.group is None]
        self.handles = self._handles()
        self.handle_by_id = {kind.id_schema: kind for kind in self.handles}
        self._check_names()

    def _method(self, m: dict[str, Any]) -> Method:
        wire = m["name"]
        group, dot, verb = wire.rpartition(".")
        if not dot:
            group, verb = "", wire
        if "." in group:
            raise SchemaError(f"{wire}: the generator expects at most one dot in a method name")
        params = []
        for p in m.get("params", []):
            p = self._descriptor(p)
            params.append(Param(p["name"], snake(p["name"]), bool(p.get("required", False)), p.get("schema", {}),
                                p.get("description", "")))
        seen: dict[str, str] = {}
        for p in params:
            if p.py in seen:
                raise SchemaError(f"{wire}: params {seen[p.py]!r} and {p.wire!r} both become {p.py!r} in Python")
            seen[p.py] = p.wire
        result = self._descriptor(m.get("result") or {"name": "result", "schema": {}})
        return Method(wire, group or None, snake(verb), pascal(wire), m.get("summary", ""), m.get("description", ""),
                      params, result.get("name", "result"), result.get("schema", {}), result.get("description", ""))

    def _descriptor(self, descriptor: dict[str, Any]) -> dict[str, Any]:
        """A param or result: inline, or a ``$ref`` to ``components.contentDescriptors``."""
        prefix = "#/components/contentDescriptors/"
        if "$ref" not in descriptor:
            return descriptor
        ref = descriptor["$ref"]
        found = self.doc.get("components", {}).get("contentDescriptors", {}).get(ref[len(prefix):])
        if not ref.startswith(prefix) or found is None:
            raise SchemaError(f"a param or result refers to {ref!r}, which the document does not hold")
        return dict(found)

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` with its ``$ref`` (and one-element ``allOf``) followed."""
        seen = 0
        while True:
            if "$ref" in schema:
                schema = self.schemas[ref_name(schema["$ref"])]
            elif list(schema.get("allOf", [])) and len(schema["allOf"]) == 1 and not _shape(schema):
                schema = schema["allOf"][0]
            else:
                return schema
            seen += 1
            if seen > 50:
                raise SchemaError("a $ref cycle")

    def _handles(self) -> list[HandleKind]:
        kinds = []
        for group, methods in self.groups.items():
            create = next((m for m in methods if m.py == "create"), None)
            if create is None:
                continue
            result = self.resolve(create.result_schema)
            # The id schemas the group's other methods take as their first, required param.
            first: dict[str, list[Method]] = {}
            for m in methods:
                if m is not create and m.params and m.params[0].required and "$ref" in m.params[0].schema:
                    first.setdefault(ref_name(m.params[0].schema["$ref"]), []).append(m)
            for member in result.get("required", []):
                schema = result.get("properties", {}).get(member, {})
                name = ref_name(schema["$ref"]) if "$ref" in schema else None
                if name in first:
                    handle = name[:-2] if name.endswith("Id") and len(name) > 2 else name + "Object"
                    kinds.append(HandleKind(group, name, handle, create, member, first[name]))
                    break
        return kinds

    def _check_names(self) -> None:
        names = set(self.schemas)
        for name in names:
            if not is_identifier(name):
                raise SchemaError(f"components.schemas.{name}: not usable as a type name")
            if name in PYTHON_RESERVED:
                raise SchemaError(f"components.schemas.{name}: the generated modules use that name themselves")
        for group in self.groups:
            attribute = snake(group)
            if attribute in CLIENT_ATTRIBUTES and attribute != CALLABLE_GROUP:
                raise SchemaError(f"the method group {group!r} would hide the clients' own {attribute!r}")
        for method in self.top_level:
            if method.py in CLIENT_ATTRIBUTES or snake(method.wire) in {snake(g) for g in self.groups}:
                raise SchemaError(f"the method {method.wire!r} would hide the clients' own {method.py!r}")
        for kind in self.handles:
            for n in (kind.name, kind.base, "Async" + kind.name):
                if n in names or n in PYTHON_RESERVED:
                    raise SchemaError(f"the handle class {n} of {kind.group}.* would take a schema's name")
            for m in kind.methods:
                if m.py in {"id", "result"}:
                    raise SchemaError(f"{m.wire}: a handle method may not be named {m.py!r} "
                                      "(handles have that attribute)")
        for methods in self.groups.values():
            if any(m.py == "handle" for m in methods):
                raise SchemaError("a method named 'handle' would hide the groups' handle(id)")


def prepare(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the generators read it (a copy; the file is not changed).

    Component names that are not identifiers (``Page.Info``, ``List<Int>``) get one (``PageInfo``,
    ``ListInt``), their ``$ref``s with them; and an object made of several (``allOf`` of objects, as a
    generator writes a type that extends another) becomes one object with all their members, which a
    TypedDict and an interface can say. A one-element ``allOf`` stays a reference to its type.
    """
    doc = json.loads(json.dumps(doc))
    schemas: dict[str, Any] = doc.get("components", {}).get("schemas", {})
    names: dict[str, str] = {}
    taken = {name for name in schemas if is_identifier(name)}
    for name in schemas:
        if not is_identifier(name):
            base = pascal(name) or "Schema"
            base = base if base[0].isalpha() else "Schema" + base
            candidate, n = base, 2
            while candidate in taken:
                candidate, n = f"{base}{n}", n + 1
            taken.add(candidate)
            names[name] = candidate
    prefix = "#/components/schemas/"

    def renamed(node: Any) -> Any:
        if isinstance(node, dict):
            out = {key: renamed(value) for key, value in node.items()}
            ref = out.get("$ref")
            if isinstance(ref, str) and ref.startswith(prefix) and ref[len(prefix):] in names:
                out["$ref"] = prefix + names[ref[len(prefix):]]
            return out
        if isinstance(node, list):
            return [renamed(item) for item in node]
        return node

    doc = renamed(doc)
    if names and "components" in doc:
        doc["components"]["schemas"] = {names.get(k, k): v for k, v in doc["components"]["schemas"].items()}
    schemas = doc.get("components", {}).get("schemas", {})

    def target(part: dict[str, Any]) -> dict[str, Any]:
        for _ in range(50):
            ref = part.get("$ref")
            if not isinstance(ref, str) or not ref.startswith(prefix) or ref[len(prefix):] not in schemas:
                return part
            part = schemas[ref[len(prefix):]]
        raise SchemaError("a $ref cycle")

    def merged(node: Any) -> Any:
        if isinstance(node, list):
            return [merged(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: merged(value) for key, value in node.items()}
        parts = node.get("allOf")
        if not isinstance(parts, list) or (len(parts) < 2 and not node.get("properties")):
            return node
        records = [target(p) for p in parts if _is_record(target(p))]
        rest = [p for p in parts if not _is_record(target(p))]
        if not records or any(_shape(target(p)) for p in rest):  # something else than members: leave it
            return node
        properties: dict[str, Any] = {}
        required: list[str] = []
        for record in [*records, node]:
            properties.update(record.get("properties", {}))
            required += [key for key in record.get("required", []) if key not in required]
        out = {key: value for key, value in node.items() if key != "allOf"}
        out.update({"type": "object", "properties": properties})
        if required:
            out["required"] = required
        if rest:
            out["allOf"] = rest  # if/then/else and the like: constraints, kept for the record
        if "description" not in out:
            described = next((r["description"] for r in records if r.get("description")), None)
            if described:
                out["description"] = described
        return out

    return merged(doc)


def ref_name(ref: str) -> str:
    """``#/components/schemas/X`` -> ``X`` (only local component refs exist in the document)."""
    if not ref.startswith("#/components/schemas/"):
        raise SchemaError(f"only local component $refs are supported, not {ref!r}")
    return ref.rsplit("/", 1)[1]


def _shape(schema: dict[str, Any]) -> bool:
    """True when ``schema`` says more than annotations and constraints (so a one-element allOf is not all)."""
    return any(key in schema for key in ("type", "properties", "oneOf", "anyOf", "enum", "const", "items"))


def default_of(doc: Document, schema: dict[str, Any]) -> Any:
    """The schema's ``default``, looked for through its $refs; ``...`` when there is none."""
    while True:
        if "default" in schema:
            return schema["default"]
        if "$ref" in schema:
            schema = doc.schemas[ref_name(schema["$ref"])]
        elif len(schema.get("allOf", [])) == 1:
            schema = schema["allOf"][0]
        else:
            return ...


def description_of(doc: Document, schema: dict[str, Any]) -> str:
    """The schema's own description, else its $ref target's."""
    while True:
        if schema.get("description"):
            return str(schema["description"])
        if "$ref" in schema:
            schema = doc.schemas[ref_name(schema["$ref"])]
        elif len(schema.get("allOf", [])) == 1:
            schema = schema["allOf"][0]
        else:
            return ""


def own_description(schema: dict[str, Any]) -> str:
    """The description a member gives itself (or in its one-element ``allOf``), not its $ref target's."""
    if schema.get("description"):
        return str(schema["description"])
    parts = schema.get("allOf", [])
    if len(parts) == 1 and "$ref" not in parts[0]:
        return own_description(parts[0])
    return ""


def variant_names(parent: str, variants: list[dict[str, Any]]) -> list[str]:
    """Names for the inline objects of a ``oneOf``: by their ``const`` discriminator when they have one."""
    names = []
    for index, variant in enumerate(variants, 1):
        tag = None
        for prop in variant.get("properties", {}).values():
            if isinstance(prop.get("const"), str):
                tag = pascal(prop["const"])
                break
        names.append(parent + (tag or f"Variant{index}"))
    return names if len(set(names)) == len(names) else [f"{parent}Variant{i}" for i in range(1, len(names) + 1)]


# ---------------------------------------------------------------------------------------------------------
# Python types


@dataclass
class PyDef:
    """One named Python type: a TypedDict (``fields``) or an alias (``expression``)."""

    name: str
    description: str
    expression: str | None = None
    fields: list[tuple[str, str, bool, str]] | None = None  # (key, type, required, description)
    deps: set[str] = field(default_factory=set)


class PythonTypes:
    """Maps JSON schemas to Python type expressions, naming inline objects as it meets them."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.defs: dict[str, PyDef] = {}
        self.taken: set[str] = set(doc.schemas) | PYTHON_RESERVED | {k.name for k in doc.handles} | {
            k.base for k in doc.handles} | {"Async" + k.name for k in doc.handles}
        for name, schema in doc.schemas.items():
            self.define(name, schema)

    def unique(self, name: str) -> str:
        """``name``, or ``name2``, ``name3``... when it is taken: inline objects never shadow each other."""
        candidate, n = name, 2
        while candidate in self.taken:
            candidate, n = f"{name}{n}", n + 1
        self.taken.add(candidate)
        return candidate

    def define(self, name: str, schema: dict[str, Any]) -> None:
        """Adds the named definition for ``schema`` (a component, or an inline object)."""
        deps: set[str] = set()
        description = str(schema.get("description", ""))
        if _is_record(schema):
            self.defs[name] = PyDef(name, description, fields=[], deps=deps)  # placed first: order of meeting
            fields = []
            required = set(schema.get("required", []))
            for key, prop in schema["properties"].items():
                kind = self.type_of(prop, name + pascal(key), deps)
                fields.append((key, kind, key in required, own_description(prop)))
            self.defs[name].fields = fields
        else:
            self.defs[name] = PyDef(name, description, deps=deps)
            self.defs[name].expression = self.type_of(schema, name, deps, top=True)

    def type_of(self, schema: dict[str, Any], hint: str, deps: set[str], top: bool = False) -> str:
        """The Python type for ``schema``; an inline object becomes a TypedDict named ``hint``."""
        if "$ref" in schema:
            name = ref_name(schema["$ref"])
            if name not in self.doc.schemas:
                raise SchemaError(f"$ref to a missing schema {name}")
            deps.add(name)
            return name
        if not top and _is_record(schema):
            name = self.unique(hint)
            self.define(name, schema)
            deps.add(name)
            return name
        if "allOf" in schema and not _shape(schema):
            parts = schema["allOf"]
            if len(parts) == 1:
                return self.type_of(parts[0], hint, deps)
            return "Any"
        for union in ("oneOf", "anyOf"):
            if union in schema and not schema.get("properties"):
                variants = schema[union]
                names = variant_names(hint, variants)
                return union_of([self.type_of(v, n, deps) for v, n in zip(variants, names)])
        if "const" in schema:
            return "None" if schema["const"] is None else f"Literal[{literal(schema['const'])}]"
        if "enum" in schema:
            values = [v for v in schema["enum"] if v is not None]
            kinds = [f"Literal[{', '.join(literal(v) for v in values)}]"] if values else []
            return union_of(kinds + (["None"] if None in schema["enum"] else []))
        kind = schema.get("type")
        if isinstance(kind, list):
            return union_of([self.type_of({**schema, "type": k}, hint, deps) for k in kind])
        if kind == "object" or "properties" in schema:
            if _is_record(schema):  # top: a component that is an object with members is a TypedDict, not here
                raise SchemaError(f"{hint}: a record met as an alias")
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                key = self.type_of(schema["propertyNames"], hint + "Key", deps) if "propertyNames" in schema else "str"
                return f"dict[{key}, {self.type_of(extra, hint + 'Value', deps)}]"
            return "dict[str, Any]"
        if kind == "array":
            items = schema.get("items")
            if isinstance(items, dict) and items:
                return f"list[{self.type_of(items, hint + 'Item', deps)}]"
            return "list[Any]"
        return {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}.get(
            kind if isinstance(kind, str) else "", "Any")

    def param_type(self, param: Param, method: Method, deps: set[str]) -> tuple[str, str]:
        """The annotation of a method's param and how the body turns the argument into the wire value.

        The value expression uses ``{}`` for the argument. Handle ids accept the handle too; arrays accept
        any sequence (sent as a list) and objects any mapping. A value of another type goes into the params as
        it is, for ``_check_params`` to refuse by name.
        """
        schema = param.schema
        if "$ref" in schema and ref_name(schema["$ref"]) in self.doc.handle_by_id:
            kind = self.doc.handle_by_id[ref_name(schema["$ref"])]
            deps.add(kind.id_schema)
            # Only a handle of this kind becomes its id: any other value goes as it is, for _check_params to
            # name (an int has no .id to fail on first).
            return f"{kind.id_schema} | {kind.base}", f"{{0}}.id if isinstance({{0}}, {kind.base}) else {{0}}"
        if schema.get("type") == "array" and not _is_record(schema):
            items = schema.get("items") or {}
            if "$ref" in items and ref_name(items["$ref"]) in self.doc.handle_by_id:
                kind = self.doc.handle_by_id[ref_name(items["$ref"])]
                deps.add(kind.id_schema)
                return f"Sequence[{kind.id_schema} | {kind.base}]", f"_listed({{0}}, {kind.base})"
            item = self.type_of(items, method.pascal + pascal(param.wire) + "Item", deps) if items else "Any"
            return f"Sequence[{item}]", "_listed({0})"
        kind_text = self.type_of(schema, method.pascal + pascal(param.wire), deps)
        if kind_text.startswith("dict["):
            return "Mapping[" + kind_text[len("dict["):], "_mapped({0})"
        return kind_text, "{0}"

    def result_type(self, method: Method, deps: set[str]) -> str:
        """The Python type of ``method``'s result (an inline object is named ``<Method>Result``)."""
        return self.type_of(method.result_schema, method.pascal + "Result", deps)

    def ordered(self) -> list[PyDef]:
        """Definitions with what an alias needs at run time defined before it (depth first, in meeting order)."""
        done: set[str] = set()
        active: set[str] = set()
        out: list[PyDef] = []

        def visit(name: str) -> None:
            if name in done or name in active:
                return
            active.add(name)
            for dep in sorted(self.defs[name].deps):
                visit(dep)
            active.discard(name)
            done.add(name)
            out.append(self.defs[name])

        for name in list(self.defs):
            visit(name)
        return out


class ParamShapes:
    """Each method's params reduced to the JSON types their schemas allow: what ``_check_params`` in api.py
    checks before a request is sent, so that a wrong type is the host's ``InvalidParams`` (with the member's
    path), not an ``AttributeError`` of the code building the request.

    A shape is None (any value), a component's name (its shape is in ``components``), or a dict from each JSON
    type the value may have to what a value of that type holds: None (nothing more is checked), an array's
    items' shape, an object's ``(members' shapes, other members' shape)``. A union takes every type its
    variants take, and looks inside a type only when one variant takes it. Only types: ranges, lengths,
    enum values and the rules between params are the host's to check.
    """

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.named: set[str] = set()  # the components a shape refers to by name
        self.components: dict[str, Any] = {}
        self._making: set[str] = set()
        self.params = {m.wire: {p.wire: self.shape(p.schema) for p in m.params} for m in doc.methods if m.params}
        while self.named - self.components.keys():
            for name in sorted(self.named - self.components.keys()):
                self.component(name)

    def component(self, name: str) -> Any:
        """The shape of ``components.schemas[name]``; None (any value) inside a cycle of unions."""
        if name not in self.components:
            if name in self._making:
                return None
            self._making.add(name)
            self.components[name] = self.shape(self.doc.schemas[name])
            self._making.discard(name)
        return self.components[name]

    def shape(self, schema: dict[str, Any]) -> Any:
        """The shape of ``schema`` (see the class)."""
        if "$ref" in schema:
            name = ref_name(schema["$ref"])
            if name not in self.doc.schemas:
                raise SchemaError(f"$ref to a missing schema {name}")
            self.named.add(name)
            return name
        if "allOf" in schema and not _shape(schema):
            parts = schema["allOf"]
            return self.shape(parts[0]) if len(parts) == 1 else None
        for union in ("oneOf", "anyOf"):
            if union in schema and not schema.get("properties"):
                # A named variant stands for its component's shape (which names no one outside the union).
                return self.union([self.component(ref_name(v["$ref"])) if "$ref" in v else self.shape(v)
                                   for v in schema[union]])
        if "const" in schema:
            return {json_type(schema["const"]): None}
        if "enum" in schema:
            return {json_type(value): None for value in schema["enum"]}
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else (
            ["object"] if "properties" in schema else ["array"] if "items" in schema else [])
        return {k: self.inner(k, schema) for k in kinds} if kinds else None

    def inner(self, kind: str, schema: dict[str, Any]) -> Any:
        """What a value of JSON type ``kind`` holds under ``schema``: its items, its members, or nothing."""
        if kind == "array":
            items = schema.get("items")
            return self.shape(items) if isinstance(items, dict) and items else None
        if kind == "object":
            members = {key: self.shape(member) for key, member in schema.get("properties", {}).items()}
            extra = schema.get("additionalProperties")
            other = self.shape(extra) if isinstance(extra, dict) and extra else None
            return (members, other) if members or other is not None else None
        return None

    def union(self, variants: list[Any]) -> Any:
        """The shape of a value any of ``variants`` takes."""
        variants = [self.component(v) if isinstance(v, str) else v for v in variants]  # a component that is a $ref
        if any(v is None for v in variants):
            return None
        merged: dict[str, Any] = {}
        for variant in variants:
            for kind, inner in variant.items():
                # Two variants of one type (objects told apart by a member's value): the host tells them apart.
                merged[kind] = inner if kind not in merged or merged[kind] == inner else None
        return merged


def json_type(value: Any) -> str:
    """The JSON type of a ``const`` or ``enum`` value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def py_value(value: Any) -> str:
    """A shape (None, strings, dicts, pairs) as a Python literal, strings in double quotes."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {py_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(py_value(v) for v in value) + ")"
    return repr(value)


def py_value_lines(prefix: str, value: Any, suffix: str, indent: str) -> list[str]:
    """``prefix + value + suffix``, a dict or pair spread one entry a line while longer than 120 characters."""
    line = prefix + py_value(value) + suffix
    if len(line) <= 120 or not isinstance(value, (dict, tuple)) or not value:
        return [line]
    if isinstance(value, dict):
        out = [prefix + "{"]
        for key, item in value.items():
            out += py_value_lines(f"{indent}    {json.dumps(key)}: ", item, ",", indent + "    ")
        return out + [f"{indent}}}{suffix}"]
    out = [prefix + "("]
    for item in value:
        out += py_value_lines(f"{indent}    ", item, ",", indent + "    ")
    return out + [f"{indent}){suffix}"]


#: The check api.py runs before sending (see ParamShapes); aio_api.py imports it.
PY_CHECKS = '''

def _listed(value: Any, handle: type[Handle] | None = None) -> Any:
    """A sequence argument as the list the wire takes, each handle of ``handle``'s kind as its id; any other
    value as it is, for :func:`_check_params` to name."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        return value
    return [x.id if handle is not None and isinstance(x, handle) else x for x in value]


def _mapped(value: Any) -> Any:
    """A mapping argument as the dict the wire takes; any other value as it is, for :func:`_check_params`."""
    return dict(value) if isinstance(value, Mapping) else value


def _check_params(method: str, params: Mapping[str, Any]) -> None:
    """Raise :class:`~greenroom.errors.InvalidParams` for an argument of a JSON type its param does not take,
    as the host would (code -32602, the same ``data.path`` and reason), before the request is sent. Only the
    types: ranges, lengths, enum values and the rules between params are the host's to check."""
    shapes = _PARAM_SHAPES.get(method, {})
    for name, value in params.items():
        found = _wrong_type(shapes.get(name), value, name)
        if found is not None:
            # The host reads a member that is null as one left out.
            path, reason = (name, "is required") if value is None else found
            raise InvalidParams(-32602, f"Invalid params: {path}: {reason}",
                                {"kind": "invalidParams", "path": path, "reason": reason})


def _wrong_type(shape: Any, value: Any, path: str) -> tuple[str, str] | None:
    """(path, reason) of the first part of ``value`` whose JSON type ``shape`` does not take; None when all do."""
    if isinstance(shape, str):
        shape = _SHAPES[shape]
    if shape is None:
        return None
    kind = _json_type(value)
    if kind == "integer" and kind not in shape and "number" in shape:
        kind = "number"
    elif kind == "number" and kind not in shape and "integer" in shape:
        if not value.is_integer():
            return path, "expected an integer, got a fraction"
        kind = "integer"  # 2.0 is an integer on the wire
    if kind not in shape:
        got = "number" if kind == "integer" else kind or type(value).__name__
        return path, f"expected {' or '.join(shape)}, got {got}"
    inner = shape[kind]
    if inner is not None and kind == "array":
        for index, item in enumerate(value):
            found = _wrong_type(inner, item, f"{path}[{index}]")
            if found is not None:
                return found
    elif inner is not None and kind == "object":
        members, other = inner
        for key, item in value.items():
            found = _wrong_type(members.get(key, other), item, f"{path}.{key}")
            if found is not None:
                return found
    return None


def _json_type(value: Any) -> str | None:
    """The JSON type ``value`` goes out as (an int is an ``integer``, a float a ``number``); None for a value
    JSON has no type for."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object" if isinstance(value, Mapping) else None'''


def _is_record(schema: dict[str, Any]) -> bool:
    """An object schema with named members: a TypedDict / an interface."""
    return bool(schema.get("properties")) and schema.get("type", "object") == "object"


def union_of(kinds: list[str]) -> str:
    """``A | B`` of Python types, each once, ``None`` last; ``Any`` absorbs the rest."""
    unique: list[str] = []
    for kind in kinds:
        for part in split_union(kind):
            if part not in unique:
                unique.append(part)
    if "Any" in unique:
        return "Any"
    if "None" in unique:  # X | None reads best with None last
        unique = [k for k in unique if k != "None"] + ["None"]
    return " | ".join(unique) if unique else "Any"


def py_type_lines(prefix: str, kind: str, suffix: str, indent: str) -> list[str]:
    """``prefix + kind + suffix``, spread over lines when longer than 120 characters: a union one member a
    line in parentheses, ``Literal[...]`` (and the like) one argument a line."""
    line = prefix + kind + suffix
    if len(line) <= 120:
        return [line]
    parts = split_union(kind)
    if len(parts) > 1:
        return [prefix + "("] + [f"{indent}    {'| ' if i else ''}{part}" for i, part in enumerate(parts)] + [
            f"{indent}){suffix}"]
    found = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.]*)\[(.*)\]", kind)
    if found:
        args = split_top(found.group(2), ",")
        if len(args) > 1:
            return [f"{prefix}{found.group(1)}["] + [f"{indent}    {arg}," for arg in args] + [f"{indent}]{suffix}"]
        return py_type_lines(f"{prefix}{found.group(1)}[", args[0], f"]{suffix}", indent)
    return [line]


def split_top(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets and strings, each part stripped."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == separator and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def split_union(kind: str) -> list[str]:
    """The members of a top-level ``A | B`` (brackets and strings respected)."""
    return split_top(kind, "|")


# ---------------------------------------------------------------------------------------------------------
# Python: api.py and aio_api.py


def header(comment: str, source: str) -> list[str]:
    """The two lines every generated file starts with: generated from what, and how to regenerate."""
    return [
        f"{comment} GENERATED by scripts/generate_clients.py from {source}: do not edit by hand.",
        f"{comment} Regenerate with: {REGENERATE}.",
    ]


def method_doc(doc: Document, method: Method, params: list[Param], returns: str) -> list[str | list[str]]:
    """The paragraphs of a method's docstring: what it does, its args, what it returns, the wire name."""
    parts: list[str | list[str]] = []
    parts.append(method.summary or f"``{method.wire}``.")
    if method.description:
        parts.append(method.description)
    if params:
        lines = ["Args:"]
        for p in params:
            text = p.description or description_of(doc, p.schema)
            default = default_of(doc, p.schema)
            if not p.required:
                said = default is ... or "default" in text.lower()  # the description names it already
                text += (" " if text else "") + ("(Not sent when None" + (
                    "" if said else f"; the host's default is {json.dumps(default)}") + ".)")
            wrapped = wrap(f"{p.py}: {text}", WIDTH - 12) if text else [f"{p.py}:"]
            lines += ["    " + wrapped[0]] + ["        " + line for line in wrapped[1:]]
        parts.append(lines)
    result_text = method.result_description or description_of(doc, method.result_schema)
    returns_lines = wrap(f"{returns}: {result_text}" if result_text else returns, WIDTH - 12)
    parts.append(["Returns:"] + ["    " + returns_lines[0]] + ["        " + line for line in returns_lines[1:]])
    parts.append(f"Wire: ``{method.wire}``.")
    return parts


def signature(name: str, params: list[tuple[str, str, bool]], returns: str, indent: str, is_async: bool,
              first: str = "self") -> list[str]:
    """``def name(self, a: A, *, b: B | None = None) -> R:``, one param a line when long."""
    parts = [first]
    keyword_only = False
    # Required params keep the document's order and may be passed by position; the optional ones, after
    # them, are keyword-only (the document may list an optional one before a required one: page.create).
    params = [p for p in params if p[2]] + [p for p in params if not p[2]]
    for py, kind, required in params:
        if not required and not keyword_only:
            parts.append("*")
            keyword_only = True
        if required:
            parts.append(f"{py}: {kind}")
        else:
            parts.append(f"{py}: {kind} = None" if kind == "Any" else f"{py}: {kind} | None = None")
    prefix = "async def" if is_async else "def"
    line = f"{indent}{prefix} {name}({', '.join(parts)}) -> {returns}:"
    if len(line) <= 120:
        return [line]
    return [f"{indent}{prefix} {name}(", *[f"{indent}    {p}," for p in parts], f"{indent}) -> {returns}:"]


def dict_lines(prefix: str, members: list[str], indent: str) -> list[str]:
    """``prefix`` + a dict display of ``members``, one member a line when one line would be too long."""
    line = prefix + "{" + ", ".join(members) + "}"
    if len(line) <= 120 or not members:
        return [line]
    return [prefix + "{"] + [f"{indent}    {member}," for member in members] + [f"{indent}}}"]


def call_body(method: Method, bound: Param | None, args: list[tuple[Param, str]], result: str, indent: str,
              is_async: bool, call: str, make: str | None) -> list[str]:
    """The body: build params (only what was given), check their types, call, and return the result (or a
    handle on it)."""
    await_ = "await " if is_async else ""
    lines: list[str] = []
    required = [(p, v) for p, v in args if p.required]
    optional = [(p, v) for p, v in args if not p.required]
    members = ([f'"{bound.wire}": self.id'] if bound else []) + [
        f'"{p.wire}": {v.format(p.py)}' for p, v in required]
    if not members and not optional:
        params = "None"
    elif not args:
        params = "{" + ", ".join(members) + "}"  # only the handle's own id, which is a string
    else:
        lines += dict_lines(f"{indent}params: dict[str, Any] = ", members, indent)
        for p, v in optional:
            lines.append(f"{indent}if {p.py} is not None:")
            lines.append(f'{indent}    params["{p.wire}"] = {v.format(p.py)}')
        lines.append(f'{indent}_check_params("{method.wire}", params)')
        params = "params" if members else "params or None"  # nothing given: a request without params
    call_line = f'{indent}result: {result} = {await_}{call}("{method.wire}", {params})'
    if len(call_line) > 120 and params.startswith("{"):
        lines += dict_lines(f"{indent}params: dict[str, Any] = ", members, indent)
        call_line = f'{indent}result: {result} = {await_}{call}("{method.wire}", params)'
    lines.append(call_line)
    lines.append(f"{indent}return {make.format('result') if make else 'result'}")
    return lines


class PythonGenerator:
    """Writes api.py and aio_api.py: the types, the events, the handles and the method groups."""
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.types = PythonTypes(doc)
        # Every method's annotations, computed once (naming inline types) before anything is written.
        self.param_types: dict[str, list[tuple[Param, str, str]]] = {}
        self.result_types: dict[str, str] = {}
        for method in doc.methods:
            deps: set[str] = set()
            self.param_types[method.wire] = [(p, *self.types.param_type(p, method, deps)) for p in method.params]
            self.result_types[method.wire] = self.types.result_type(method, deps)
        self.topic_types = {t.name: self.types.type_of(t.schema, pascal(t.name) + "Event", set())
                            for t in doc.topics}
        self.shapes = ParamShapes(doc)

    def checks_section(self) -> list[str]:
        """``_SHAPES``, ``_PARAM_SHAPES`` and the functions that check arguments against them (ParamShapes)."""
        out = ["", ""]
        out += py_value_lines("_SHAPES: dict[str, Any] = ", {n: self.shapes.components[n]
                                                             for n in sorted(self.shapes.named)}, "", "")
        out += py_docstring(["The JSON types of the components the params name (scripts/generate_clients.py "
                             "ParamShapes says how a shape reads)."], "")
        out.append("")
        out += py_value_lines("_PARAM_SHAPES: dict[str, dict[str, Any]] = ", self.shapes.params, "", "")
        out += py_docstring(["Each method's params and their shapes, checked by :func:`_check_params`."], "")
        return out + PY_CHECKS.split("\n")

    # -- the types --------------------------------------------------------------------------------------

    def render_types(self) -> list[str]:
        """Every named type, in an order where what an alias names is defined before it."""
        out: list[str] = []
        emitted: set[str] = set()
        for d in self.types.ordered():
            out += ["", ""]
            if d.fields is not None:
                out += self.typed_dict(d, emitted)
            else:
                assert d.expression is not None
                out += py_type_lines(f"{d.name}: TypeAlias = ", self.runtime(d.expression, emitted), "", "")
                if d.description:
                    out += py_docstring([d.description], "")
            emitted.add(d.name)
        return out

    def runtime(self, kind: str, emitted: set[str]) -> str:
        """``kind`` as written where Python evaluates it (the module has no ``from __future__ import
        annotations``, so that a TypedDict's ``NotRequired`` is seen at run time): quoted when it names a
        type not defined yet (only a cycle among the schemas does that)."""
        names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", kind)) & self.types.defs.keys()
        return py_string(kind) if names - emitted else kind

    def typed_dict(self, d: PyDef, emitted: set[str]) -> list[str]:
        """One TypedDict: the class form, or the functional form when a key is not an identifier."""
        assert d.fields is not None
        keys_doc = []
        for key, _kind, required, description in d.fields:
            text = f"``{key}``{'' if required else ' (optional)'}: {description}".rstrip(": ")
            wrapped = wrap(text, WIDTH - 10)
            keys_doc += ["- " + wrapped[0]] + ["  " + line for line in wrapped[1:]]
        doc_parts: list[str | list[str]] = [d.description or f"The ``{d.name}`` object."]
        if keys_doc:
            doc_parts.append(keys_doc)

        def annotation(kind: str, required: bool) -> str:
            # NotRequired stays outside any quotes: the TypedDict reads it at run time (__optional_keys__).
            kind = self.runtime(kind, emitted)
            return kind if required else f"NotRequired[{kind}]"

        if all(is_identifier(key) for key, *_ in d.fields):
            out = [f"class {d.name}(TypedDict):"]
            out += py_docstring(doc_parts, "    ")
            out.append("")
            for key, kind, required, _ in d.fields:
                out += py_type_lines(f"    {key}: ", annotation(kind, required), "", "    ")
            return out
        # A key Python cannot spell as an attribute (`class`, `from`): the functional form.
        out = [f'{d.name} = TypedDict("{d.name}", {{']
        for key, kind, required, _ in d.fields:
            out += py_type_lines(f'    "{key}": ', annotation(kind, required), ",", "    ")
        out.append("})")
        out += py_docstring(doc_parts, "")
        return out

    # -- handles and groups -------------------------------------------------------------------------------

    def handle_bases(self) -> list[str]:
        """``Handle`` and one base per kind of handle (what id params accept besides the id)."""
        out = ["", "", "class Handle:"]
        out += py_docstring([
            "An object on the host, known by its id: a page or range session, a stack, a container.",
            "``id`` is the wire id (``\"p-1\"``); ``result`` the reply of the call that made it (None for a handle "
            "made from an id with the group's ``handle(id)``). Two handles of the same kind and id are equal, "
            "and a handle passes wherever a param takes that kind of id.",
        ], "    ")
        out += [
            "",
            '    __slots__ = ("id", "result", "_client")',
            "    kind: ClassVar[str] = \"object\"",
            "",
            "    def __init__(self, client: Any, id: str, result: Any = None) -> None:",
            "        self._client = client",
            "        self.id = id",
            "        self.result = result",
            "",
            "    def __eq__(self, other: object) -> bool:",
            "        return isinstance(other, Handle) and other.kind == self.kind and other.id == self.id",
            "",
            "    def __hash__(self) -> int:",
            "        return hash((self.kind, self.id))",
            "",
            "    def __str__(self) -> str:",
            "        return self.id",
            "",
            "    def __repr__(self) -> str:",
            '        return f"<{type(self).__name__} {self.id}>"',
        ]
        for kind in self.doc.handles:
            out += ["", "", f"class {kind.base}(Handle):"]
            out += py_docstring([f"A handle on a ``{kind.group}.*`` object (a ``{kind.id_schema}``): the base of "
                                 f":class:`{kind.name}` and :class:`~greenroom.aio_api.Async{kind.name}`."], "    ")
            out += ["", "    __slots__ = ()", f'    kind: ClassVar[str] = "{kind.group}"']
        return out

    def handle_class(self, kind: HandleKind, is_async: bool) -> list[str]:
        """The sync or asyncio handle of one kind, with the group's methods that take its id."""
        name = ("Async" if is_async else "") + kind.name
        client = "AsyncClient" if is_async else "Client"
        create_result = self.result_types[kind.create.wire]
        out = ["", "", f"class {name}({kind.base}):"]
        out += py_docstring([
            f"A ``{kind.id_schema}`` on the host, from ``{kind.create.wire}`` (or ``client.{snake(kind.group)}"
            f".handle(id)``), with the ``{kind.group}.*`` methods that take it{' (awaitable)' if is_async else ''}.",
            f"``id`` is its id; ``result`` the ``{kind.create.wire}`` reply (``{create_result}``), None for a "
            f"handle made from an id. The calls go through the :class:`~greenroom.{'aio.' if is_async else ''}"
            f"{client}` that made it.",
        ], "    ")
        out += ["", "    __slots__ = ()", f"    result: {create_result} | None"]
        for method in kind.methods:
            out.append("")
            out += self.method(method, is_async, bound=True)
        return out

    def method(self, method: Method, is_async: bool, bound: bool = False, on_client: bool = False) -> list[str]:
        """One method: its signature, docstring and body (``bound``: on a handle, its id param supplied)."""
        typed = self.param_types[method.wire]
        if bound:
            typed = typed[1:]
        result = self.result_types[method.wire]
        make = None
        returns = result
        kind = next((k for k in self.doc.handles if k.create is method), None)
        if kind is not None:
            returns = ("Async" if is_async else "") + kind.name
            make = f'{returns}(self._client, {{0}}["{kind.create_field}"], {{0}})'
        sig = signature(method.py, [(p.py, annotation, p.required) for p, annotation, _ in typed], returns, "    ",
                        is_async)
        ordered = [p for p, *_ in typed if p.required] + [p for p, *_ in typed if not p.required]
        doc = py_docstring(method_doc(self.doc, method, ordered,
                                      f"``{returns}``" + (f" (its ``result``: ``{result}``)" if make else "")),
                           "        ")
        call = "self.call" if on_client else "self._client.call"
        body = call_body(method, method.params[0] if bound else None, [(p, v) for p, _, v in typed], result,
                         "        ", is_async, call, make)
        return sig + doc + body

    def group_class(self, group: str, methods: list[Method], is_async: bool) -> list[str]:
        """The class of one method group (``HostMethods``), with ``handle(id)`` when the group has handles."""
        prefix = "Async" if is_async else ""
        name = f"{prefix}{pascal(group)}Methods"
        out = ["", "", f"class {name}:"]
        listing = ", ".join(f"``{m.py}``" for m in methods)
        out += py_docstring([f"The ``{group}.*`` methods{' (awaitable)' if is_async else ''}: {listing}.",
                             f"Reached as ``client.{snake(group)}``; each call is one request "
                             f"(``client.call(\"{methods[0].wire}\", ...)`` and so on)."], "    ")
        out += ["", '    __slots__ = ("_client",)', "", f'    def __init__(self, client: "{prefix}Methods") -> None:',
                "        self._client = client"]
        if group == CALLABLE_GROUP:
            out += self.events_call(is_async)
        kind = next((k for k in self.doc.handles if k.group == group), None)
        if kind is not None:
            handle = prefix + kind.name
            out += ["", f"    def handle(self, id: str) -> {handle}:"]
            out += py_docstring([f"A :class:`{handle}` for an existing ``{kind.id_schema}`` (no request is sent; "
                                 "its ``result`` is None)."], "        ")
            out.append(f"        return {handle}(self._client, id)")
        for method in methods:
            out.append("")
            out += self.method(method, is_async)
        return out

    def events_call(self, is_async: bool) -> list[str]:
        """``__call__`` of the events group: ``client.events(...)`` still iterates over events."""
        iterator = "AsyncIterator[Event]" if is_async else "Iterator[Event]"
        out = ["", f"    def __call__(self, topics: str | Iterable[str] | None = None, timeout: float | None = None"
                   f") -> {iterator}:"]
        out += py_docstring([
            "Iterate over queued and arriving events of ``topics`` (all when None): the client's "
            "``events()``, which this group keeps callable.",
            "Each step waits up to ``timeout`` seconds for the next matching event (None: no limit; 0: only what "
            "has already arrived)." + (" Use it with ``async for``." if is_async else ""),
        ], "        ")
        out.append("        return self._client._events(topics, timeout)")
        return out

    def root(self, is_async: bool) -> list[str]:
        """``Methods`` / ``AsyncMethods``: the groups as attributes, the methods without a group, ``on``."""
        prefix = "Async" if is_async else ""
        client = "greenroom.aio.AsyncClient" if is_async else "greenroom.Client"
        out = ["", "", f"class {prefix}Methods:"]
        out += py_docstring([
            f"The typed API of :class:`{client}`, which derives from this class: one attribute per method group "
            "of the wire (``client.host``, ``client.page``, ...), the methods without a group "
            f"({', '.join(f'``{m.py}``' for m in self.doc.top_level) or 'none'}), and ``on`` with the event "
            "types.",
            "Each method sends one request, by name, with the params given (a param left at None is not sent), "
            "and returns the reply as the document's type." + (" Every method is a coroutine." if is_async else ""),
        ], "    ")
        out += ["", "    if TYPE_CHECKING:"]
        if is_async:
            out += ["", "        async def call(self, method: str, params: Any = None) -> Any: ..."]
            out += ["", "        def _events(self, topics: str | Iterable[str] | None, timeout: float | None"
                        ") -> AsyncIterator[Event]: ..."]
        else:
            out += ["", "        def call(self, method: str, params: Any = None) -> Any: ..."]
            out += ["", "        def _events(self, topics: str | Iterable[str] | None, timeout: float | None"
                        ") -> Iterator[Event]: ..."]
        out += ["", "        def _on(self, topic: str, handler: Any) -> Any: ..."]
        for group, methods in self.doc.groups.items():
            name = f"{prefix}{pascal(group)}Methods"
            out += ["", "    @cached_property", f"    def {snake(group)}(self) -> {name}:"]
            out += py_docstring([f"The ``{group}.*`` methods."], "        ")
            out.append(f"        return {name}(self)")
        for method in self.doc.top_level:
            out.append("")
            out += self.method(method, is_async, on_client=True)
        out += self.on_overloads(is_async)
        return out

    def on_overloads(self, is_async: bool) -> list[str]:
        """``on``: an overload pair per topic (with a handler, and as a decorator), then the untyped pair."""
        out: list[str] = []
        overloads = [(f'Literal["{t.name}"]', f"_{pascal(t.name)}Handler") for t in self.doc.topics]
        overloads.append(("str", "_Handler"))
        for topic, var in overloads:
            out += ["", "    @overload", f"    def on(self, topic: {topic}, handler: {var}) -> {var}: ..."]
            line = f"    def on(self, topic: {topic}, handler: None = None) -> Callable[[{var}], {var}]: ..."
            if len(line) > 120:
                line = (f"    def on(\n        self, topic: {topic}, handler: None = None\n"
                        f"    ) -> Callable[[{var}], {var}]: ...")
            out += ["", "    @overload", line]
        out += ["", "    def on(self, topic: str, handler: Callable[[Any], object] | None = None) -> Any:"]
        where = ("while the client waits for replies, in ``poll_events`` or ``events``" if not is_async else
                 "in the client's dispatcher task (a coroutine function is awaited)")
        out += py_docstring([
            "Call ``handler(params)`` for each event of ``topic``; usable as a decorator.",
            f"Handlers run one at a time, in arrival order, {where}; an exception in one is logged, not raised. "
            "Events of a topic that has handlers do not go to the ``events()`` queue.",
            "The params are typed per topic: " + ", ".join(
                f"``{t.name}``: :class:`{self.topic_types[t.name]}`" for t in self.doc.topics) + ". As a "
            "decorator the handler is checked against its topic's type; ``on(topic, handler)`` takes any "
            "callable of one argument, as it always has.",
        ], "        ")
        out.append("        return self._on(topic, handler)")
        return out

    def typevars(self) -> list[str]:
        """The TypeVars ``on`` uses as a decorator, one per topic, bound to that topic's handler type."""
        out = ["", "", "# What `on` returns as a decorator: the handler itself, its type kept.",
               '_Handler = TypeVar("_Handler", bound=Callable[[Any], object])']
        for topic in self.doc.topics:
            var = f"_{pascal(topic.name)}Handler"
            out.append(f'{var} = TypeVar("{var}", bound=Callable[[{self.topic_types[topic.name]}], object])')
        return out

    def events_section(self) -> list[str]:
        """``EventTopic``, ``AnyEvent``, ``EVENT_TOPICS`` and ``METHODS``."""
        out = ["", ""]
        topics = [t.name for t in self.doc.topics]
        names = f"Literal[{', '.join(literal(t) for t in topics)}]" if topics else "str"
        out.append(f"EventTopic: TypeAlias = {names}")
        out += py_docstring(["The topics of the host's events (``x-notifications``): each is also the "
                             "``method`` of its notifications."], "")
        out.append("")
        out.append(f"AnyEvent: TypeAlias = {union_of([self.topic_types[t] for t in topics])}")
        out += py_docstring(["The params of any event."], "")
        out.append("")
        out.append("EVENT_TOPICS: Mapping[str, str] = {")
        for topic in self.doc.topics:
            out.append(f'    "{topic.name}": "{self.topic_types[topic.name]}",')
        out.append("}")
        out += py_docstring(["Each topic and the name of its params' type in this module. " + " ".join(
            f"``{t.name}``: {t.summary}" for t in self.doc.topics)], "")
        out.append("")
        out.append("METHODS: tuple[str, ...] = (")
        for method in self.doc.methods:
            out.append(f'    "{method.wire}",')
        out.append(")")
        out += py_docstring(["Every method of the document, in its order."], "")
        return out

    def sync_module(self) -> str:
        """The text of api.py."""
        body: list[str] = []
        body += ["", "", "# " + "-" * 107, "# The wire's types: components.schemas, then the methods' params and "
                 "results (inline objects are named", "# after where they are: `HostInfoProtocol`, "
                 "`ClockAdvanceResult`)."]
        body += self.render_types()
        body += ["", "", "# " + "-" * 107, "# Events"]
        body += self.events_section()
        body += self.typevars()
        body += ["", "", "# " + "-" * 107, "# Handles"]
        body += self.handle_bases()
        for kind in self.doc.handles:
            body += self.handle_class(kind, is_async=False)
        body += ["", "", "# " + "-" * 107, "# Params: their JSON types, checked before a request is sent"]
        body += self.checks_section()
        body += ["", "", "# " + "-" * 107, "# Method groups"]
        for group, methods in self.doc.groups.items():
            body += self.group_class(group, methods, is_async=False)
        body += self.root(is_async=False)
        docstring = py_docstring([
            "The typed API of the blocking client, generated from the wire contract (rpc-schema/openrpc.json).",
            "The methods are grouped as the wire groups them, in snake_case, with keyword arguments and "
            "docstrings; :class:`greenroom.Client` derives from :class:`Methods`, so every client has them::",
            ["    with greenroom.Client() as client:",
             "        client.host.ping()                          # {'pong': True}",
             "        client.clock.advance(ms=16)",
             '        session = client.page.create(375, 667, class_="Container", count=3)   # a PageSession',
             "        session.did_scroll(offset=120.0)            # or client.page.did_scroll(session, offset=120.0)",
             "        session.result[\"index\"], session.id        # the page.create reply, the session's id"],
            "A param named like a Python keyword takes a trailing underscore (``class_``) and is sent under its "
            "wire name. The replies are the document's types (``TypedDict``, ``Literal``); the events' params "
            "are typed per topic (``EVENT_TOPICS``), and so is ``client.on``. ``client.call(method, params)`` is "
            "unchanged. The asyncio flavour is :mod:`greenroom.aio_api`.",
        ], "")
        return self.module(docstring, body)

    def async_module(self, api_names: list[str]) -> str:
        """The text of aio_api.py, importing from api.py those of ``api_names`` it uses."""
        body: list[str] = []
        body += ["", "", "# " + "-" * 107, "# Handles"]
        for kind in self.doc.handles:
            body += self.handle_class(kind, is_async=True)
        body += ["", "", "# " + "-" * 107, "# Method groups"]
        for group, methods in self.doc.groups.items():
            body += self.group_class(group, methods, is_async=True)
        body += self.root(is_async=True)
        text = "\n".join(body)
        used = [name for name in api_names if re.search(rf"\b{re.escape(name)}\b", text)]
        imports = ["from .api import ("] + [f"    {name}," for name in used] + [")"]
        docstring = py_docstring([
            "The typed API of the asyncio client, generated from the wire contract (rpc-schema/openrpc.json).",
            "The same groups, handles and names as :mod:`greenroom.api`, each method a coroutine; "
            ":class:`greenroom.aio.AsyncClient` derives from :class:`AsyncMethods`::",
            ["    async with AsyncClient() as client:",
             "        await client.clock.advance(ms=16)",
             '        session = await client.page.create(375, 667, class_="Container", count=3)',
             "        await session.did_scroll(offset=120.0)"],
            "The types (replies, params, events) are :mod:`greenroom.api`'s.",
        ], "")
        return self.module(docstring, body, imports)

    def module(self, docstring: list[str], body: list[str], local: list[str] | None = None) -> str:
        """A module: header, docstring, the imports ``body`` uses (``local``: the package's own, first), ``body``."""
        text = "\n".join(body)
        abc = [n for n in ("AsyncIterator", "Callable", "Iterable", "Iterator", "Mapping", "Sequence")
               if re.search(rf"\b{n}\b", text)]
        typing_names = [n for n in ("TYPE_CHECKING", "Any", "ClassVar", "Literal", "NotRequired", "TypeAlias",
                                    "TypeVar", "TypedDict", "overload") if re.search(rf"\b{n}\b", text)]
        # No `from __future__ import annotations`: a TypedDict must see its NotRequired members at run time.
        lines = header("#", "rpc-schema/openrpc.json") + docstring + [""]
        if abc:
            lines.append(f"from collections.abc import {', '.join(abc)}")
        if "@cached_property" in text:
            lines.append("from functools import cached_property")
        if typing_names:
            lines.append(f"from typing import {', '.join(typing_names)}")
        local = list(local or [])
        if re.search(r"\bInvalidParams\(", text):
            local.append("from .errors import InvalidParams")
        if re.search(r"\bEvent\b", text):
            local.append("from .events import Event")
        if local:
            lines += [""] + local
        lines += body
        return "\n".join(lines).rstrip() + "\n"

    def public_names(self) -> list[str]:
        """The names api.py exports (``__all__``)."""
        names = [d.name for d in self.types.defs.values()]
        names += ["EventTopic", "AnyEvent", "EVENT_TOPICS", "METHODS", "Handle", "Methods"]
        names += [k.base for k in self.doc.handles] + [k.name for k in self.doc.handles]
        names += [f"{pascal(g)}Methods" for g in self.doc.groups]
        return names


def render_python(doc: Document) -> tuple[str, str]:
    """The texts of api.py and aio_api.py."""
    generator = PythonGenerator(doc)
    sync = generator.sync_module()
    names = generator.public_names()
    all_names = sorted(set(names), key=lambda n: (n.lower(), n))
    sync = _insert_all(sync, all_names)
    private = ["_Handler", "_check_params", "_listed", "_mapped"] + [f"_{pascal(t.name)}Handler" for t in doc.topics]
    aio = generator.async_module(sorted(set(names + private) - {"Methods"}, key=lambda n: (n.lower(), n)))
    aio_names = ["AsyncMethods"] + [f"Async{k.name}" for k in doc.handles] + [
        f"Async{pascal(g)}Methods" for g in doc.groups]
    aio = _insert_all(aio, sorted(aio_names, key=lambda n: (n.lower(), n)))
    return sync, aio


def _insert_all(text: str, names: list[str]) -> str:
    """Puts ``__all__`` after the imports (before the first section rule)."""
    marker = "\n\n# " + "-" * 107
    block = ["", "__all__ = ["] + [f'    "{n}",' for n in names] + ["]"]
    index = text.index(marker)
    return text[:index] + "\n" + "\n".join(block) + text[index:]


# ---------------------------------------------------------------------------------------------------------
# TypeScript


class TypeScriptTypes:
    """Maps JSON schemas to TypeScript types, naming inline objects (the same names as in Python)."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.defs: dict[str, list[str]] = {}  # name -> its declaration's lines
        self.taken: set[str] = set(doc.schemas) | TS_RESERVED

    def unique(self, name: str) -> str:
        """``name``, or ``name2``, ``name3``... when it is taken: inline objects never shadow each other."""
        candidate, n = name, 2
        while candidate in self.taken:
            candidate, n = f"{name}{n}", n + 1
        self.taken.add(candidate)
        return candidate

    def define(self, name: str, schema: dict[str, Any], description: str | None = None) -> None:
        """Adds the declaration of ``name``: an interface for an object with members, else a type alias."""
        text = description if description is not None else str(schema.get("description", ""))
        self.defs[name] = []  # placed first: declarations come out in the order they were met
        if _is_record(schema):
            lines = js_doc([text], "") + [f"export interface {name} {{"]
            lines += self.members(schema, name, "  ")
            lines.append("}")
        else:
            kind = self.type_of(schema, name, top=True)
            line = f"export type {name} = {kind};"
            if len(line) > 120 and len(split_union(kind)) > 1:  # one member a line
                lines = js_doc([text], "") + [f"export type {name} ="] + [
                    f"  | {part}" for part in split_union(kind)]
                lines[-1] += ";"
            else:
                lines = js_doc([text], "") + [line]
        self.defs[name] = lines

    def members(self, schema: dict[str, Any], hint: str, indent: str) -> list[str]:
        """An interface's members, each with its description as JSDoc."""
        lines: list[str] = []
        required = set(schema.get("required", []))
        for key, prop in schema.get("properties", {}).items():
            lines += js_doc([description_of(self.doc, prop)], indent)
            name = key if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key) else json.dumps(key)
            kind = self.type_of(prop, hint + pascal(key))
            line = f"{indent}{name}{'' if key in required else '?'}: {kind};"
            if len(line) > 120 and len(split_union(kind)) > 1:  # one member of the union a line
                lines.append(line[: line.index(": ") + 1])
                lines += [f"{indent}  | {part}" for part in split_union(kind)]
                lines[-1] += ";"
            else:
                lines.append(line)
        if schema.get("additionalProperties") is True:
            lines.append(f"{indent}[member: string]: unknown;")
        return lines

    def type_of(self, schema: dict[str, Any], hint: str, top: bool = False) -> str:
        """The TypeScript type for ``schema``; an inline object becomes an interface named ``hint``."""
        if "$ref" in schema:
            return ref_name(schema["$ref"])
        if not top and _is_record(schema):
            name = self.unique(hint)
            self.define(name, schema)
            return name
        if "allOf" in schema and not _shape(schema):
            parts = schema["allOf"]
            return self.type_of(parts[0], hint) if len(parts) == 1 else "unknown"
        for union in ("oneOf", "anyOf"):
            if union in schema and not schema.get("properties"):
                variants = schema[union]
                names = variant_names(hint, variants)
                return ts_union([self.type_of(v, n) for v, n in zip(variants, names)])
        if "const" in schema:
            return json.dumps(schema["const"])
        if "enum" in schema:
            return ts_union([json.dumps(v) for v in schema["enum"]])
        kind = schema.get("type")
        if isinstance(kind, list):
            return ts_union([self.type_of({**schema, "type": k}, hint) for k in kind])
        if kind == "object" or "properties" in schema:
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                value = self.type_of(extra, hint + "Value")
                if "propertyNames" in schema:
                    return f"Partial<Record<{self.type_of(schema['propertyNames'], hint + 'Key')}, {value}>>"
                return f"{{ [key: string]: {value} }}"
            return "{ [key: string]: unknown }"
        if kind == "array":
            items = schema.get("items")
            item = self.type_of(items, hint + "Item") if isinstance(items, dict) and items else "unknown"
            return f"Array<{item}>" if "|" in item or " " in item else f"{item}[]"
        return {"string": "string", "integer": "number", "number": "number", "boolean": "boolean",
                "null": "null"}.get(kind if isinstance(kind, str) else "", "unknown")


def ts_union(kinds: list[str]) -> str:
    """``A | B`` of TypeScript types, each once, ``null`` last; ``unknown`` absorbs the rest."""
    unique: list[str] = []
    for kind in kinds:
        for part in split_union(kind):
            if part not in unique:
                unique.append(part)
    if "unknown" in unique:
        return "unknown"
    if "null" in unique:
        unique = [k for k in unique if k != "null"] + ["null"]
    return " | ".join(unique) if unique else "unknown"


TS_RESERVED = frozenset({
    "Methods", "MethodName", "Params", "Result", "Events", "EventTopic", "CallOptions", "CallArgs",
    "ConnectOptions", "Client", "connect", "GreenroomError", "ConnectError", "ConnectionClosed", "RequestTimeout",
    "ProtocolError", "RPCError", "Violation", "Notification", "LifecycleEventLike", "PageSessionInfo",
    "Caller", "Record", "Partial", "Array", "Promise", "Error",
})


def render_typescript(doc: Document) -> str:
    """The text of greenroom.d.ts: the schemas, `Methods`, `Events`, then the module's own declarations."""
    types = TypeScriptTypes(doc)
    for name, schema in doc.schemas.items():
        types.define(name, schema)
    methods: list[str] = []
    for method in doc.methods:
        params_name = types.unique(method.pascal + "Params")
        if not method.params:  # `{}` would take any object; this takes only an empty one
            types.defs[params_name] = js_doc([f"`{method.wire}` takes no params."], "") + [
                f"export type {params_name} = Record<string, never>;"]
        else:
            types.defs[params_name] = param_lines = js_doc(
                [f"The params of `{method.wire}` (by name; by position in this order)."], "")
            param_lines.append(f"export interface {params_name} {{")
            for p in method.params:
                text = p.description or description_of(doc, p.schema)
                default = default_of(doc, p.schema)
                if default is not ... and "default" not in text.lower():
                    text += f" Default: `{json.dumps(default)}`."
                param_lines += js_doc([text], "  ")
                q = "" if p.required else "?"
                param_lines.append(f"  {p.wire}{q}: {types.type_of(p.schema, method.pascal + pascal(p.wire))};")
            param_lines.append("}")
        result = types.type_of(method.result_schema, method.pascal + "Result")
        methods += js_doc([method.summary, method.description], "  ")
        methods.append(f'  "{method.wire}": {{ params: {params_name}; result: {result} }};')
    events: list[str] = []
    for topic in doc.topics:
        events += js_doc([topic.summary, topic.description], "  ")
        events.append(f"  {topic.name}: {types.type_of(topic.schema, pascal(topic.name) + 'Event')};")
    rule = "// " + "-" * 107
    lines = header("//", "rpc-schema/openrpc.json") + [
        "//",
        "// TypeScript declarations for greenroom.js, the host's JavaScript client (served at /greenroom.js; these",
        "// at /greenroom.d.ts). `call` is typed by method name: an editor completes the names, the params and the",
        "// result, and `on` gives each topic's event payload its type. In a plain JavaScript page, point the",
        "// editor at this file: a jsconfig.json mapping \"/greenroom.js\" to it, or the file beside a copy of the",
        "// module (clients/js/README.md).",
        "",
        rule,
        "// The wire's types: components.schemas, then inline objects named after where they are.",
        "",
    ]
    for declaration in types.defs.values():
        lines += declaration + [""]
    lines += [rule, "// Methods and events", ""]
    lines += js_doc(["Every method of the wire: its params (by name) and its result."], "")
    lines += ["export interface Methods {"] + methods + ["}", ""]
    lines += ["/** A method's name. */", "export type MethodName = keyof Methods;",
              "/** The params of method `M`, by name. */",
              'export type Params<M extends MethodName> = Methods[M]["params"];',
              "/** The result of method `M`. */", 'export type Result<M extends MethodName> = Methods[M]["result"];',
              "/** `call`'s arguments after the name: params may be left out when none is required. */",
              "export type CallArgs<M extends MethodName> = {} extends Params<M>",
              "  ? [params?: Params<M>, options?: CallOptions]",
              "  : [params: Params<M>, options?: CallOptions];", ""]
    lines += js_doc(["Every event topic and its payload (the notification's `params`)."], "")
    lines += ["export interface Events {"] + events + ["}", "",
                                                          "/** An event topic. */",
                                                          "export type EventTopic = keyof Events;", ""]
    error_data = "ErrorData" if "ErrorData" in doc.schemas else "{ [member: string]: unknown }"
    scope = "Scope" if "Scope" in doc.schemas else "string"
    lines += [rule, "// The module: greenroom.js's exports", ""]
    lines += TS_MODULE.replace("{ERROR_DATA}", error_data).replace("{SCOPE}", scope).strip("\n").split("\n")
    return "\n".join(lines).rstrip() + "\n"


# What greenroom.js exports, declared by hand (it is not in the document); tests/js/dts.test.mjs checks that
# every export of greenroom.js is declared here.
TS_MODULE = r"""
/** Options of `connect`. */
export interface ConnectOptions {
  /** For a host started with --token-file: sent as the `Sec-WebSocket-Protocol` entry `greenroom.token.TOKEN`. */
  token?: string;
  /** The default timeout of every call, in milliseconds (none by default). */
  timeout?: number | null;
  /** A WebSocket constructor, where there is no global one. */
  WebSocket?: new (url: string | URL, protocols?: string | string[]) => WebSocket;
}

/** Options of one call. */
export interface CallOptions {
  /** Milliseconds to wait for the reply; `null` for no limit. Default: the client's `timeout`. */
  timeout?: number | null;
}

/** Opens a connection to `ws://HOST:PORT/rpc`; rejects with `ConnectError` when it cannot. */
export function connect(url: string | URL, options?: ConnectOptions): Promise<Client>;

/** One open connection to the host. Made by `connect`. */
export class Client {
  constructor(socket: WebSocket, options?: ConnectOptions);
  /** Resolves with the ConnectionClosed error (or the error the host sent as it hung up) once closed. */
  readonly closed: Promise<GreenroomError>;
  /** True once the connection is closed. */
  readonly isClosed: boolean;
  /** Calls `method` with its params by name; resolves with the result, rejects with the typed RPCError,
   * RequestTimeout or ConnectionClosed. */
  call<M extends MethodName>(method: M, ...args: CallArgs<M>): Promise<Result<M>>;
  /** Calls `method` with its params by position (the order of the document's params). */
  call<M extends MethodName>(method: M, params: unknown[], options?: CallOptions): Promise<Result<M>>;
  /** Sends a notification: no reply, no error comes back. */
  notify<M extends MethodName>(method: M, params?: Params<M> | unknown[]): void;
  /** `events.subscribe`: receive events of `topics`. `{scope: "all"}` observes every connection's objects. */
  subscribe(topics: EventTopic | EventTopic[], options?: { scope?: {SCOPE} }): Promise<Result<"events.subscribe">>;
  /** `events.unsubscribe`. */
  unsubscribe(topics: EventTopic | EventTopic[]): Promise<Result<"events.unsubscribe">>;
  /** Calls `handler(params)` for each event of `topic`, in arrival order; returns a function that removes it. */
  on<T extends EventTopic>(topic: T, handler: (event: Events[T]) => void): () => void;
  /** Removes `handler` from `topic` (every handler of it when `handler` is omitted). */
  off<T extends EventTopic>(topic: T, handler?: (event: Events[T]) => void): void;
  /** Closes the connection (close code 1000); pending calls are rejected with ConnectionClosed. */
  close(): Promise<GreenroomError>;
}

/** Base class of every error this client raises or rejects with. */
export class GreenroomError extends Error {
  constructor(message?: string);
}
/** The WebSocket could not be opened. */
export class ConnectError extends GreenroomError {}
/** The connection is closed; `code` and `reason` are the WebSocket close code and reason when there was one. */
export class ConnectionClosed extends GreenroomError {
  constructor(message?: string, options?: { code?: number | null; reason?: string });
  readonly code: number | null;
  readonly reason: string;
}
/** No reply came within the call's timeout. */
export class RequestTimeout extends GreenroomError {}
/** The host sent something that is not JSON-RPC 2.0. */
export class ProtocolError extends GreenroomError {}

/** The host answered with a JSON-RPC error object; subclasses stand for one code each. */
export class RPCError extends GreenroomError {
  constructor(code: number, message: string, data?: {ERROR_DATA} | null);
  readonly code: number;
  readonly data: {ERROR_DATA} | null;
  /** `data.kind`: what went wrong, in one word (`unknownObject`, `invalidParams`...). */
  readonly kind: string | null;
  /** Registers `cls` as the error class for `code`. */
  static register<C extends typeof RPCError>(code: number, cls: C): C;
}
/** An RPCError subclass for one code; `code` and `doc` are on the class. */
export interface RPCErrorClass {
  new (code: number, message: string, data?: {ERROR_DATA} | null): RPCError;
  readonly code: number;
  readonly doc: string;
}
/** -32700 */
export const ParseError: RPCErrorClass;
/** -32600 */
export const InvalidRequest: RPCErrorClass;
/** -32601 */
export const MethodNotFound: RPCErrorClass;
/** -32602: `data.path` names the bad field. */
export const InvalidParams: RPCErrorClass;
/** -32603 */
export const InternalError: RPCErrorClass;
/** -32001 */
export const UnknownClass: RPCErrorClass;
/** -32002 */
export const UnknownObject: RPCErrorClass;
/** -32003 */
export const InvalidState: RPCErrorClass;
/** -32004 */
export const PluginFailed: RPCErrorClass;
/** -32005 */
export const LimitExceeded: RPCErrorClass;
/** -32006 */
export const Unauthorized: RPCErrorClass;
/** -32007 */
export const VirtualClockOnly: RPCErrorClass;
/** The typed error for a JSON-RPC error object `{code, message, data?}`. */
export function errorFromObject(error: unknown): RPCError;

// The lifecycle model (the Python client's greenroom.lifecycle).

/** A lifecycle event as handlers receive it, or as a whole notification. */
export type LifecycleEventLike = LifecycleEvent | { method: string; params: unknown };
/** Anything with `call(method, params)`, or a function of that shape: what the gestures drive. */
export type Caller = Pick<Client, "call"> | ((method: string, params?: unknown) => Promise<any>);
/** An appearance state of a container. */
export type AppearanceState = "disappeared" | "appearing" | "appeared" | "disappearing";
/** A hook the appearance table does not allow, or an `unbalancedAppearanceTransition` from the host. */
export interface Violation {
  readonly container: string;
  readonly event: string;
  readonly state: string | null;
  readonly seq: number | null;
  readonly message: string;
  readonly params: LifecycleEvent;
}

/** The four appearance hooks, in UIKit's names. */
export const APPEARANCE: readonly ["viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear"];
/** A container's appearance states; every container starts `disappeared`. */
export const STATES: readonly AppearanceState[];
/** The calls a parent makes on a child, as the host names them in `unbalancedAppearanceTransition`. */
export const CALLS: readonly ["beginAppearance(true)", "beginAppearance(false)", "endAppearance"];
/** docs/lifecycle.md's table, one cell a row: from `state`, `call` leads to `next` and runs `hook`. */
export const APPEARANCE_TABLE: readonly {
  readonly state: AppearanceState;
  readonly call: string;
  readonly next: AppearanceState;
  readonly hook: string;
}[];
/** Hook -> the article's short name (`viewWillAppear` -> `willAppear`). */
export const SHORT_NAMES: Readonly<
  Record<"viewWillAppear" | "viewDidAppear" | "viewWillDisappear" | "viewDidDisappear", string>
>;
/** `viewWillAppear` -> `willAppear` (the four appearance hooks); any other name is returned as is. */
export function shortName(hook: string): string;
/** `willAppear` -> `viewWillAppear`; any other name is returned as is. */
export function longName(name: string): string;
/** The params of the `lifecycle` events among `events`, in order. */
export function lifecycleEvents(events: Iterable<LifecycleEventLike>): LifecycleEvent[];
/** The lifecycle events among `events` whose hook is an appearance hook. */
export function onlyAppearance(events: Iterable<LifecycleEventLike>): LifecycleEvent[];
/** The lifecycle events among `events` of the given containers. */
export function onlyContainers(events: Iterable<LifecycleEventLike>, ...containers: string[]): LifecycleEvent[];
/** The lifecycle events among `events` that ran on screen (no green-room containers). */
export function withoutOffscreen(events: Iterable<LifecycleEventLike>): LifecycleEvent[];
/** The lifecycle events among `events` of `session`'s children. */
export function ofPageSession(events: Iterable<LifecycleEventLike>, session: string): LifecycleEvent[];

/** A lifecycle expectation failed; `assertCalls` sets `expected`, `got` and `index` (the first difference). */
export class LifecycleAssertionError extends Error {
  constructor(message: string, options?: { expected?: string[]; got?: string[]; index?: number | null });
  readonly expected: string[];
  readonly got: string[];
  readonly index: number | null;
}

/** docs/lifecycle.md's appearance table, fed with lifecycle events as they arrive. */
export class AppearanceChecker {
  /** Each live container's state. */
  readonly states: Map<string, AppearanceState>;
  /** What was wrong, in order. */
  readonly violations: Violation[];
  /** The appearance hooks that ran from a state the table does not allow. */
  readonly illegal: Violation[];
  /** The params of the host's `unbalancedAppearanceTransition` events. */
  readonly unbalanced: LifecycleEvent[];
  /** True while nothing was wrong. */
  readonly ok: boolean;
  /** `container`'s state; undefined for a container not seen (or deinit'd). */
  stateOf(container: string): AppearanceState | undefined;
  /** The containers left `appearing` or `disappearing`. */
  inTransition(): Record<string, AppearanceState>;
  /** Takes one event; returns the violation it is, or null. */
  feed(event: LifecycleEventLike): Violation | null;
  /** Takes every event of `events`, in order; returns the violations they are. */
  feedAll(events: Iterable<LifecycleEventLike>): Violation[];
  /** Every violation as a sentence; with `atRest`, also every container left halfway. */
  problems(options?: { atRest?: boolean }): string[];
  /** Throws LifecycleAssertionError listing every problem. */
  check(options?: { atRest?: boolean }): void;
}

/** Options naming which lifecycle calls to look at. */
export interface CallSelection {
  appearanceOnly?: boolean;
  offscreen?: boolean;
  containers?: Iterable<string> | null;
}
/** The lifecycle events as lines `"c-3 viewWillAppear"` (`"c-3 willAppear"` with `short`). */
export function calls(events: Iterable<LifecycleEventLike>, options?: CallSelection & { short?: boolean }): string[];
/** The appearance hooks of page-session children as the article writes them: `"willAppear 0"`. */
export function pageCalls(
  events: Iterable<LifecycleEventLike>, session?: string | null, options?: { short?: boolean },
): string[];
/** Asserts that the lifecycle calls among `events` are exactly `expected`, in order; returns the lines compared. */
export function assertCalls(
  events: Iterable<LifecycleEventLike>,
  expected: string[] | Record<string, string[]>,
  options?: CallSelection & { session?: string | null },
): string[];

/** The finger goes down at `offsets[0]` and moves through the others (`page.didScroll` each). */
export function dragPages(client: Caller, session: PageSessionId, offsets: number[]): Promise<any>;
/** The finger lifts and the view comes to rest at `rest`. */
export function releasePages(
  client: Caller, session: PageSessionId, rest: number, options?: { velocity?: number; decelerate?: boolean },
): Promise<any>;
/** A whole swipe by offsets. */
export function swipePages(
  client: Caller, session: PageSessionId, offsets: number[], rest: number,
  options?: { velocity?: number; decelerate?: boolean; target?: number | null },
): Promise<any>;
/** A swipe from page `fromPage` toward page `toPage` of a session whose pages are `width` wide. */
export function swipePage(
  client: Caller, session: PageSessionId, fromPage: number, toPage: number,
  options: { width: number; cancelled?: boolean; steps?: number; decelerate?: boolean; velocity?: number | null },
): Promise<any>;
/** Asserts docs/pages.md's rule at rest (`page.info`); resolves with the info. */
export function assertPageAtRest(
  client: Caller, session: PageSessionId, index?: number | null,
): Promise<Result<"page.info">>;
/** A drag of a range session along `path`, with an optional fling; resolves with `{target, reply}`. */
export function rangeDrag(
  client: Caller, session: RangeSessionId, path: number[],
  options?: { fling?: number | null; target?: number | null; flingFrames?: number; frameMs?: number | null },
): Promise<{ target: number | null; reply: any }>;
/** An interactive pop: begin, update with each progress, then finish or cancel. */
export function interactivePop(
  client: Caller, stack: StackId, progresses: number[], options: { finish: boolean; duration?: number | null },
): Promise<any>;
"""


# ---------------------------------------------------------------------------------------------------------
# Command line


def render(schema_path: Path = SCHEMA) -> dict[Path, str]:
    """Every generated file and its text, for the document at ``schema_path``."""
    doc = Document(json.loads(schema_path.read_text(encoding="utf-8")))
    sync, aio = render_python(doc)
    return {PYTHON_API: sync, PYTHON_AIO_API: aio, TYPESCRIPT: render_typescript(doc)}


def main(argv: list[str] | None = None) -> int:
    """Write the stale files (or, with --check, name them and exit 1)."""
    parser = argparse.ArgumentParser(description="Generate the typed Python API and greenroom.d.ts from "
                                                 "rpc-schema/openrpc.json.")
    parser.add_argument("--schema", type=Path, default=SCHEMA, help="the OpenRPC document (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming the files that differ from what the document gives")
    args = parser.parse_args(argv)
    try:
        outputs = render(args.schema)
    except (SchemaError, KeyError, ValueError) as error:
        print(f"generate_clients: {args.schema}: {error}", file=sys.stderr)
        return 2
    stale = [path for path, text in outputs.items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"generate_clients: {path.relative_to(REPO)} is stale: run {REGENERATE}", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(outputs[path], encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")
    if not stale:
        print("up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
