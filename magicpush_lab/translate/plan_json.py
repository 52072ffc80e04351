"""Decode Spark's plans into a small generic tree: from a trace's PlanStore (`PlanNodes`), or
from Spark's `TreeNode.toJSON()` format itself (`decode`).

Spark writes a tree as a flat list of nodes in pre-order; each node names its
class and its number of children, and fields that hold children refer to them
by position among those children. Expressions inside a plan node's fields are
themselves such flat lists. In a PlanStore each node is a record and a field's
tree a reference to one (capture/plan_store.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from magicpush_lab.capture.plan_store import KIDS, REF, PlanStore, is_ref, refs


@dataclass(frozen=True, eq=False)
class Node:
    cls: str  # simple class name, e.g. "Filter", "AttributeReference"
    fields: dict[str, Any]
    kids: tuple["Node", ...]
    # equal keys mean equal (sub)trees: a PlanStore record id, or a digest of the decoded subtree
    key: Any

    def field(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def simple_class(name: str) -> str:
    """A JVM class name without its package (and a Scala object's `$`).

    >>> simple_class("org.apache.spark.sql.catalyst.plans.logical.Filter"), simple_class("a.B$")
    ('Filter', 'B')
    """
    return name.rsplit(".", 1)[-1].rstrip("$")


class PlanNodes:
    """The records of a PlanStore as Nodes, each decoded once; a node's key is its record id.

    Records refer to smaller ids only, so decoding every record up to the one asked for, in
    order, finds each reference decoded: no recursion, however deep the plan."""

    def __init__(self, store: PlanStore, shape_nodes: int | None = None,
                 out_of_time: Callable[[], bool] | None = None) -> None:
        self.store = store
        # the user's budget, spent: `shape` writes nothing more out (every shape after is unknown)
        self._out_of_time = out_of_time or (lambda: False)
        self._nodes: list[Node] = []
        self._loose: list[str] = []
        self._shapes: dict[int, str] = {}
        self._sizes: list[int] = []
        # how many more nodes `shape` may write out for this store (SHAPE_NODES by default)
        self.shape_nodes_left = SHAPE_NODES if shape_nodes is None else shape_nodes

    def node(self, rid: int) -> Node:
        for i in range(len(self._nodes), rid + 1):
            record = self.store.record(i)
            fields = {k: self._value(v) for k, v in record.items() if k not in (KIDS, "class")}
            self._nodes.append(Node(simple_class(record["class"]), fields,
                                    tuple(self._nodes[j] for j in record[KIDS]), i))
        return self._nodes[rid]

    def _value(self, value: Any) -> Any:
        if isinstance(value, dict):
            if is_ref(value):
                found = value[REF]
                return [self._nodes[i] for i in found] if isinstance(found, list) else self._nodes[found]
            return {k: self._value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v) for v in value]
        return value

    def shape(self, rid: int) -> str:
        """A digest of the subtree's `shape` (its JSON with exprIds numbered by first appearance).

        Writing a subtree out costs its size with every shared record repeated, so all the shapes
        asked of one store may write out at most `shape_nodes_left` nodes (a plan's chain of
        steps, each compared with an event's, would otherwise cost the square of its length, and
        a record shared at every level doubles its size per level). Past that, or once the time
        budget is spent, a subtree's shape is unknown: a digest of its own that equals no other,
        so it is tied to no event (its filters can then not be placed in the user's code).

        >>> store = PlanStore()
        >>> leaf = store.intern({"class": "x.Leaf", "#kids": [], "exprId": {"id": 1}})
        >>> top = store.intern({"class": "x.And", "#kids": [leaf, leaf]})
        >>> nodes = PlanNodes(store, shape_nodes=3)
        >>> nodes.size(top), nodes.shape(leaf) == PlanNodes(store).shape(leaf), nodes.shape(top) == nodes.shape(top)
        (3, True, True)
        >>> nodes.shape(top) == PlanNodes(store).shape(top), nodes.shape_nodes_left
        (False, 2)
        """
        found = self._shapes.get(rid)
        if found is None:
            size = self.size(rid)
            if size > self.shape_nodes_left or self._out_of_time():
                found = f"unknown shape of record {rid}"  # not a digest: equal to no other shape
            else:
                self.shape_nodes_left -= size
                text = _shape_of(self.store.flat(rid))
                found = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
            self._shapes[rid] = found
        return found

    def size(self, rid: int) -> int:
        """How many nodes the subtree has written out (Spark's flat form, shared records repeated),
        at most SIZE_CAP; one pass over the records, memoized."""
        for i in range(len(self._sizes), rid + 1):
            record = self.store.record(i)
            below = sum(self._sizes[j] for j in record[KIDS]) + sum(self._sizes[j] for j in refs(record))
            self._sizes.append(min(1 + below, SIZE_CAP))
        return self._sizes[rid]

    def loose(self, rid: int) -> str:
        """A digest of the subtree with every exprId left out: equal shapes have equal loose
        digests, so only subtrees whose digests match need their shapes compared. One pass
        over the records, memoized."""
        for i in range(len(self._loose), rid + 1):
            record = self.store.record(i)
            text = json.dumps(_without_ids(record, self._loose), sort_keys=True, separators=(",", ":"))
            self._loose.append(hashlib.blake2b(text.encode(), digest_size=16).hexdigest())
        return self._loose[rid]


def _without_ids(value: Any, loose: list[str]) -> Any:
    if isinstance(value, dict):
        if is_ref(value):
            found = value[REF]
            return [loose[i] for i in found] if isinstance(found, list) else loose[found]
        return {k: (None if k == "exprId" else [loose[j] for j in v] if k == KIDS else _without_ids(v, loose))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_without_ids(v, loose) for v in value]
    return value


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


#: the most nodes the shapes of one trace's plans may write out in all (PlanNodes.shape)
SHAPE_NODES = 200_000
#: sizes past this are all the same "too big"
SIZE_CAP = 10**12


@lru_cache(maxsize=8192)
def shape(key: str) -> str:
    """A subtree's canonical JSON with its exprIds numbered by first appearance: two plans with
    equal shapes compute the same table, even when Spark gave one of them fresh exprIds (the
    second read of a table in a self-join or a self-union).

    >>> a = '[{"exprId": {"id": 7}}, {"exprId": {"id": 9}}, {"exprId": {"id": 7}}]'
    >>> shape(a) == shape(a.replace("7", "3").replace("9", "4")) != shape(a.replace("9", "7"))
    True
    """
    return _shape_of(json.loads(key))


def _shape_of(flat: Any) -> str:
    """`shape` of a tree in Spark's flat form, without the cache (which would keep big texts alive)."""
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

    return canonical(renumber(flat))


def _decode_at(flat: list[dict[str, Any]], i: int) -> tuple[Node, int]:
    raw = flat[i]
    n = int(raw.get("num-children", 0))
    kids = []
    j = i + 1
    for _ in range(n):
        kid, j = _decode_at(flat, j)
        kids.append(kid)
    cls = simple_class(str(raw.get("class", "?")))
    fields = {k: v for k, v in raw.items() if k not in ("class", "num-children")}
    return Node(cls, fields, tuple(kids), _digest(raw, kids)), j


def _digest(raw: dict[str, Any], kids: list[Node]) -> str:
    """The key of a decoded subtree: a digest of its node's own JSON and its children's keys,
    so equal subtrees have equal keys, and decoding costs the tree's size (writing each subtree
    out whole costs its size times its depth: a 9 MB expression took minutes and gigabytes).

    >>> leaf = {"class": "a.b.Literal", "num-children": 0, "value": "1"}
    >>> a = decode([{"class": "a.b.Not", "num-children": 1, "child": 0}, leaf])
    >>> b = decode([{"class": "a.b.Not", "num-children": 1, "child": 0}, {**leaf, "value": "2"}])
    >>> a.key == decode([{"class": "a.b.Not", "num-children": 1, "child": 0}, leaf]).key, a.key == b.key
    (True, False)
    """
    text = json.dumps([raw, [k.key for k in kids]], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def expression(value: Any) -> Node | None:
    """A plan node's expression field (a flat list, or a Node already) as a tree; None for a JSON null."""
    if value is None or isinstance(value, Node):
        return value
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return decode(value)
    raise ValueError(f"not an expression field: {value!r:.80}")


def expressions(value: Any) -> tuple[Node, ...]:
    """A field holding a list of expressions (e.g. `projectList`)."""
    if not value:
        return ()
    return tuple(v if isinstance(v, Node) else decode(v) for v in value)
