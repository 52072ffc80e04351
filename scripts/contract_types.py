"""Write the front end's types of the server routes (src/contract.ts) from the JSON contract.

    python scripts/contract_types.py           # rewrite src/contract.ts
    python scripts/contract_types.py --check   # exit 1 if src/contract.ts is not what the schema gives

magicpush_lab/server/contract.schema.json is the one description of every request and answer;
the server validates requests with it and this script turns the definitions the routes use into
TypeScript, formatted as prettier formats it (tests/test_server_schema.py checks the file is up
to date). It reads the part of JSON Schema the contract uses:

- an object definition becomes `export interface I<Name>`, a field optional unless `required`;
  an `allOf` of objects becomes one interface with every part's fields and requirements;
- an enum becomes a union of its values, `"type": [T, "null"]` and `anyOf` become unions, an
  array of T becomes `T[]`; a $ref to a plain string or number definition is inlined;
- `tsType` (the keyword json-schema-to-typescript reads) gives the TypeScript of a definition
  or field the front end does not read (the trace, the predicate IR);
- `description` becomes the doc comment.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "magicpush_lab" / "server" / "contract.schema.json"
OUTPUT = ROOT / "src" / "contract.ts"

HEADER = """/*
 * The JSON contract of the server routes (`<base_url>/magicpush-lab/...`), generated from
 * magicpush_lab/server/contract.schema.json by scripts/contract_types.py. Do not edit: change
 * the schema and run `python scripts/contract_types.py`.
 */
"""

#: definitions written besides those the routes' requests and answers reach
EXTRA = ("Error",)

PRIMITIVES = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "null": "null",
              "object": "{ [key: string]: unknown }", "array": "unknown[]"}


class Writer:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.defs: dict[str, Any] = schema["definitions"]

    # -- which definitions, under which names -------------------------------------------------

    def name(self, definition: str) -> str:
        return f"I{definition}" if self.is_interface(self.defs[definition]) else definition

    def is_interface(self, node: dict[str, Any]) -> bool:
        if "tsType" in node or "enum" in node:
            return False
        if "allOf" in node:
            return all(self.is_interface(self.resolve(part)) or "properties" in part or "required" in part
                       for part in node["allOf"])
        return node.get("type") == "object" and "properties" in node

    def is_scalar(self, node: dict[str, Any]) -> bool:
        return ("tsType" not in node and "enum" not in node and "properties" not in node
                and isinstance(node.get("type"), str) and node["type"] in ("string", "integer", "number", "boolean"))

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = self.defs[node["$ref"].rsplit("/", 1)[1]]
        return node

    def reachable(self) -> list[str]:
        """The definitions the routes' requests and answers use, in the schema's order."""
        roots = [d for route in self.schema["x-routes"].values() for d in (route.get("request"), route["response"])
                 if d] + list(EXTRA)
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if "tsType" not in self.defs[name]:
                todo.extend(self.refs(self.defs[name]))
        return [d for d in self.defs if d in seen and not self.is_scalar(self.defs[d])]

    def refs(self, node: Any) -> list[str]:
        found: list[str] = []
        if isinstance(node, dict):
            if "$ref" in node:
                found.append(node["$ref"].rsplit("/", 1)[1])
            if "tsType" in node:
                return found
            for key, value in node.items():
                if key not in ("if", "then", "x-errors"):
                    found += self.refs(value)
        elif isinstance(node, list):
            for value in node:
                found += self.refs(value)
        return found

    # -- TypeScript ----------------------------------------------------------------------------

    def type_of(self, node: dict[str, Any]) -> str:
        if "tsType" in node:
            return node["tsType"]
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            target = self.defs[name]
            return self.type_of(target) if self.is_scalar(target) else self.name(name)
        if "allOf" in node:  # a field narrowing a definition: TypeScript gets the definition
            first = next(part for part in node["allOf"] if "$ref" in part)
            return self.type_of(first)
        if "enum" in node:
            return " | ".join(literal(v) for v in node["enum"])
        if "const" in node:
            return literal(node["const"])
        if "anyOf" in node or "oneOf" in node:
            return union(self.type_of(part) for part in node.get("anyOf", node.get("oneOf")))
        kind = node.get("type")
        if isinstance(kind, list):
            return union(self.type_of({**node, "type": k}) for k in kind)
        if kind == "array":
            item = self.type_of(node["items"]) if "items" in node else "unknown"
            return f"({item})[]" if " " in item else f"{item}[]"
        if kind == "object" and isinstance(node.get("additionalProperties"), dict):
            return f"{{ [key: string]: {self.type_of(node['additionalProperties'])} }}"
        return PRIMITIVES.get(kind, "unknown")

    def fields(self, node: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
        """An object's properties (later parts of an allOf overriding earlier ones) and required names."""
        node = self.resolve(node)
        if "allOf" in node:
            properties: dict[str, Any] = {}
            required: set[str] = set()
            for part in node["allOf"]:
                props, req = self.fields(part)
                for key, value in props.items():  # a later part narrows the field: its type wins
                    properties[key] = {**properties.get(key, {}), **value}
                required |= req
            return properties, required
        return dict(node.get("properties", {})), set(node.get("required", []))

    def declaration(self, definition: str) -> str:
        node = self.defs[definition]
        doc = comment(node.get("description"), "")
        name = self.name(definition)
        if not self.is_interface(node):
            return f"{doc}export type {name} = {self.type_of(node)};\n"
        properties, required = self.fields(node)
        lines = [f"{doc}export interface {name} {{"]
        for key, prop in properties.items():
            lines.append(comment(prop.get("description"), "  ").rstrip("\n"))
            lines.append(f"  {key}{'' if key in required else '?'}: {self.type_of(prop)};")
        lines.append("}")
        return "\n".join(line for line in lines if line) + "\n"

    def module(self) -> str:
        return HEADER + "".join("\n" + self.declaration(d) for d in self.reachable())


def literal(value: Any) -> str:
    """A JSON value as a TypeScript literal, strings in single quotes (prettier's setting)."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


def union(parts: Any) -> str:
    return " | ".join(dict.fromkeys(parts))


def comment(text: str | None, indent: str) -> str:
    """A doc comment: one line when it fits in 100 columns, else wrapped in a block."""
    if not text:
        return ""
    one = f"{indent}/** {text} */"
    if len(one) <= 100:
        return one + "\n"
    body = textwrap.wrap(text, width=96 - len(indent))
    return f"{indent}/**\n" + "".join(f"{indent} * {line}\n" for line in body) + f"{indent} */\n"


def generate(schema_path: Path = SCHEMA) -> str:
    return Writer(json.loads(schema_path.read_text(encoding="utf-8"))).module()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that src/contract.ts is up to date")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run python scripts/contract_types.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
