"""Decode Spark's `TreeNode.toJSON()` format into a small generic tree.

Spark writes a tree as a flat list of nodes in pre-order; each node names its
class and its number of children, and fields that hold children refer to them
by position among those children. Expressions inside a plan node's fields are
themselves such flat lists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Node:
    cls: str  # simple class name, e.g. "Filter", "AttributeReference"
    fields: dict[str, Any]
    kids: tuple["Node", ...]
    key: str  # canonical JSON of the whole subtree: equal keys mean equal (sub)plans

    def field(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def decode(flat: list[dict[str, Any]]) -> Node:
    """Decode one tree from its flat pre-order list.

    >>> n = decode([{"class": "a.b.Not", "num-children": 1, "child": 0},
    ...             {"class": "a.b.Literal", "num-children": 0, "value": "true", "dataType": "boolean"}])
    >>> n.cls, n.kids[0].cls, n.kids[0].field("value")
    ('Not', 'Literal', 'true')
    """
    node, end = _decode_at(flat, 0)
    if end != len(flat):
        raise ValueError(f"plan JSON has {len(flat) - end} trailing nodes")
    return node


def decode_text(text: str) -> Node:
    data = json.loads(text)
    if not isinstance(data, list) or not data:
        raise ValueError("plan JSON must be a non-empty list")
    return decode(data)


def canonical(flat: list[dict[str, Any]]) -> str:
    return json.dumps(flat, sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=8192)
def shape(key: str) -> str:
    """A subtree's canonical JSON with its exprIds numbered by first appearance: two plans with
    equal shapes compute the same table, even when Spark gave one of them fresh exprIds (the
    second read of a table in a self-join or a self-union).

    >>> a = '[{"exprId": {"id": 7}}, {"exprId": {"id": 9}}, {"exprId": {"id": 7}}]'
    >>> shape(a) == shape(a.replace("7", "3").replace("9", "4")) != shape(a.replace("9", "7"))
    True
    """
    numbers: dict[Any, int] = {}

    def renumber(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: renumber(v) for k, v in value.items()}
            eid = value.get("exprId")
            if isinstance(eid, dict) and "id" in eid:
                out["exprId"] = {**eid, "id": numbers.setdefault((eid.get("jvmId"), eid["id"]), len(numbers))}
            return out
        if isinstance(value, list):
            return [renumber(v) for v in value]
        return value

    return canonical(renumber(json.loads(key)))


def _decode_at(flat: list[dict[str, Any]], i: int) -> tuple[Node, int]:
    raw = flat[i]
    n = int(raw.get("num-children", 0))
    kids = []
    j = i + 1
    for _ in range(n):
        kid, j = _decode_at(flat, j)
        kids.append(kid)
    cls = str(raw.get("class", "?")).rsplit(".", 1)[-1].rstrip("$")
    fields = {k: v for k, v in raw.items() if k not in ("class", "num-children")}
    return Node(cls, fields, tuple(kids), canonical(flat[i:j])), j


def expression(value: Any) -> Node | None:
    """A plan node's expression field (a flat list) as a tree; None for a JSON null."""
    if value is None:
        return None
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return decode(value)
    raise ValueError(f"not an expression field: {value!r:.80}")


def expressions(value: Any) -> tuple[Node, ...]:
    """A field holding a list of expressions (e.g. `projectList`)."""
    if not value:
        return ()
    return tuple(decode(v) for v in value)
