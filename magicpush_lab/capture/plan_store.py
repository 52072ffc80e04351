"""Spark plans in a trace, every distinct subtree stored once.

Spark writes a tree (`TreeNode.toJSON()`) as a flat pre-order list of nodes, each naming its
class and its number of children; fields that hold expressions (or subquery plans) are such
flat lists themselves. Each event of a pipeline built call by call has a plan holding its
input's plan, so storing every event's JSON repeats every earlier step: a chain of K calls
costs O(K^2) nodes, and Spark's projections list every column again at each step.

Here every node, plan or expression, is one record: its class, its own fields, the ids of its
children (`#kids`) and of the trees in its fields (`{"@": id}`, a list of trees `{"@": [ids]}`:
a projection's hundreds of columns cost a few bytes each). Records are interned by their
content, which includes the ids below them, so equal subtrees get one id (two events whose
plans are equal have the same plan id, and a node's id is its subtree's identity). Ids are
given bottom-up: a record only refers to smaller ids, so a store is acyclic by construction
and decoding it is one forward pass.

>>> store = PlanStore()
>>> attr = {"class": "x.AttributeReference", "num-children": 0, "name": "v"}
>>> a = store.add_flat([{"class": "x.Filter", "num-children": 1, "condition": [attr], "child": 0},
...                     {"class": "x.LocalRelation", "num-children": 0, "output": [[attr]]}])
>>> store.flat(a)[0]["condition"] == [attr], len(store)
(True, 3)
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

#: a record's key for its children's ids; a tree in a field is {REF: id}, a list of trees
#: {REF: [id, ...]}
KIDS, REF = "#kids", "@"


def is_ref(value: Any) -> bool:
    """A field value that stands for a tree ({REF: id}) or a list of trees ({REF: [ids]})."""
    return isinstance(value, dict) and len(value) == 1 and REF in value


def ref_ids(value: Any) -> list[int]:
    """The tree ids a reference stands for, in order.

    >>> ref_ids({REF: 3}), ref_ids({REF: [1, 2]})
    ([3], [1, 2])
    """
    found = value[REF]
    return list(found) if isinstance(found, list) else [found]


def is_flat_tree(value: Any) -> bool:
    """A field value that is a Spark tree in its flat form (a non-empty list of class nodes)."""
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict) \
        and "class" in value[0] and "num-children" in value[0]


class PlanStore:
    """Interned plan and expression records; `add_flat` returns a tree's id."""

    def __init__(self, records: Iterable[dict[str, Any]] = ()) -> None:
        """A store of `records` (validated ones: each refers to earlier records only); a record
        equal to an earlier one is merged into it, and references follow."""
        self._records: list[dict[str, Any]] = []
        self._ids: dict[str, int] = {}
        moved: list[int] = []
        for record in records:
            moved.append(self.intern(_renumbered(record, moved)))

    def __len__(self) -> int:
        return len(self._records)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlanStore) and self._records == other._records

    def __repr__(self) -> str:
        return f"PlanStore({len(self)} records)"

    def record(self, node: int) -> dict[str, Any]:
        return self._records[node]

    def records(self) -> list[dict[str, Any]]:
        return list(self._records)

    def intern(self, record: dict[str, Any]) -> int:
        """The id of a record (one whose references are ids of this store), new or found."""
        key = json.dumps(record, sort_keys=True, separators=(",", ":"))
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._records)
            self._records.append(record)
        return found

    # -- in: Spark's flat form ------------------------------------------------
    def add_json(self, text: str) -> int:
        flat = json.loads(text)
        if not is_flat_tree(flat):
            raise ValueError("plan JSON must be a non-empty list of tree nodes")
        return self.add_flat(flat)

    def add_flat(self, flat: list[dict[str, Any]]) -> int:
        """Intern a tree given as Spark's flat pre-order list; its root's id. Iterative: a plan
        may be thousands of nodes deep."""
        kids: list[list[int]] = [[] for _ in flat]
        open_: list[tuple[int, int]] = []  # (node index, children still to come)
        for i, raw in enumerate(flat):
            if open_:
                parent, left = open_[-1]
                kids[parent].append(i)
                open_[-1] = (parent, left - 1)
            n = int(raw.get("num-children", 0))
            if n:
                open_.append((i, n))
            while open_ and open_[-1][1] == 0:
                open_.pop()
        if open_:
            raise ValueError("plan JSON ends before its last node's children")
        ids: list[int] = [0] * len(flat)
        for i in range(len(flat) - 1, -1, -1):  # children come after their parent: build them first
            raw = flat[i]
            record = {k: self.field(v) for k, v in raw.items() if k != "num-children"}
            record[KIDS] = [ids[k] for k in kids[i]]
            ids[i] = self.intern(record)
        if kids and _tree_size(kids) != len(flat):
            raise ValueError("plan JSON has nodes after its tree")
        return ids[0]

    def field(self, value: Any) -> Any:
        """A field value with every Spark tree in it interned and replaced by its reference."""
        if is_flat_tree(value):
            return {REF: self.add_flat(value)}
        if isinstance(value, list):
            items = [self.field(v) for v in value]
            if items and all(is_ref(i) and isinstance(i[REF], int) for i in items):
                return {REF: [i[REF] for i in items]}
            return items
        if isinstance(value, dict):
            return {k: self.field(v) for k, v in value.items()}
        return value

    # -- out: Spark's flat form again -------------------------------------------
    def flat(self, node: int) -> list[dict[str, Any]]:
        """The tree `node` in Spark's flat pre-order form."""
        out: list[dict[str, Any]] = []
        stack = [node]
        while stack:
            record = self._records[stack.pop()]
            kids = record[KIDS]
            out.append({"class": record["class"], "num-children": len(kids),
                        **{k: self._flat_field(v) for k, v in record.items() if k not in (KIDS, "class")}})
            stack.extend(reversed(kids))
        return out

    def _flat_field(self, value: Any) -> Any:
        if is_ref(value):
            found = value[REF]
            return [self.flat(i) for i in found] if isinstance(found, list) else self.flat(found)
        if isinstance(value, list):
            return [self._flat_field(v) for v in value]
        if isinstance(value, dict):
            return {k: self._flat_field(v) for k, v in value.items()}
        return value

    def json(self, node: int) -> str:
        return json.dumps(self.flat(node))

    # -- queries ------------------------------------------------------------------
    def subtree(self, node: int, seen: set[int] | None = None) -> Iterator[int]:
        """`node` and every record below it, plans and the trees in their fields, each once; with
        `seen`, the records in it are skipped (and those yielded are added to it)."""
        seen = set() if seen is None else seen
        stack = [node]
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            yield i
            record = self._records[i]
            stack.extend(record[KIDS])
            stack.extend(refs(record))

    def restricted(self, roots: Iterable[int]) -> tuple["PlanStore", dict[int, int]]:
        """A store of the records `roots` reach, and each kept record's new id by its old one."""
        reached: set[int] = set()
        for root in roots:
            for _ in self.subtree(root, reached):  # one walk over all roots: shared records once
                pass
        moved: dict[int, int] = {}
        out = PlanStore()
        for i in sorted(reached):  # references go to smaller ids: they are moved first
            moved[i] = out.intern(_renumbered(self._records[i], moved))
        return out, moved

    def udf_calls(self, node: int) -> tuple[tuple[int, dict[str, Any]], ...]:
        """The PythonUDF (and grouped-aggregate PythonUDAF) expression records in `node`'s subtree,
        each once, as (id, record), in the order Spark's JSON lists them (a node's fields before
        its children). Memoized per record, so asking for every event of a long chain stays
        linear in the calls.

        >>> store = PlanStore()
        >>> call = {"class": "x.PythonUDF", "num-children": 0, "name": "f", "resultId": {"id": 7}}
        >>> top = store.add_flat([{"class": "x.Project", "num-children": 0, "projectList": [[call]]}])
        >>> [(record["name"], record["resultId"]["id"]) for _, record in store.udf_calls(top)]
        [('f', 7)]
        """
        memo = self.__dict__.setdefault("_udf_memo", {})
        for i in range(len(memo), node + 1):  # references go to smaller ids: computed before
            record = self._records[i]
            found: dict[int, None] = {}
            if record["class"].endswith((".PythonUDF", ".PythonUDAF")) and "name" in record:
                found[i] = None
            for j in [*refs(record), *record[KIDS]]:
                found.update(dict.fromkeys(memo[j]))
            memo[i] = tuple(found)
        return tuple((rid, self._records[rid]) for rid in memo[node])

    def classes(self, node: int) -> set[str]:
        """The simple class names in `node`'s subtree."""
        return {self._records[i]["class"].rsplit(".", 1)[-1].rstrip("$") for i in self.subtree(node)}


def refs(value: Any) -> list[int]:
    """The ids of the trees a record's fields hold, in field order."""
    found: list[int] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if is_ref(v):
                ids = v[REF]
                found.extend(ids if isinstance(ids, list) else [ids])
            else:
                stack.extend(reversed([x for k, x in v.items() if k != KIDS and isinstance(x, (dict, list))]))
        elif isinstance(v, list):
            stack.extend(reversed([x for x in v if isinstance(x, (dict, list))]))
    return found


def _renumbered(value: Any, ids: list[int]) -> Any:
    """A record with each id it refers to replaced by `ids[id]`."""
    if isinstance(value, dict):
        if is_ref(value):
            found = value[REF]
            return {REF: [ids[i] for i in found] if isinstance(found, list) else ids[found]}
        return {k: ([ids[j] for j in v] if k == KIDS else _renumbered(v, ids)) for k, v in value.items()}
    if isinstance(value, list):
        return [_renumbered(v, ids) for v in value]
    return value


def _tree_size(kids: list[list[int]]) -> int:
    """How many nodes the tree rooted at index 0 has."""
    size, stack = 0, [0]
    while stack:
        size += 1
        stack.extend(kids[stack.pop()])
    return size


#: how deeply records may nest (a plan's steps and its expressions' nesting): the engine walks
#: plans this deep, and refuses deeper ones rather than run out of stack
MAX_DEPTH = 5000


def validate(records: Any, max_records: int, max_depth: int | None = None) -> list[dict[str, Any]]:
    """Records from JSON, checked in one pass: each an object with a class and children, every id
    it refers to smaller than its own (so the store is a DAG decoded in one pass), nesting at
    most `max_depth` deep. Raises ValueError.

    >>> validate([{"class": "a", KIDS: []}, {"class": "b", KIDS: [0]}], 10)[1]["class"]
    'b'
    >>> validate([{"class": "a", KIDS: [0]}], 10)
    Traceback (most recent call last):
    ...
    ValueError: plans[0] refers to 0, not an earlier record
    """
    max_depth = MAX_DEPTH if max_depth is None else max_depth
    if not isinstance(records, list):
        raise ValueError("plans must be a list")
    if len(records) > max_records:
        raise ValueError(f"plans has {len(records)} records, more than the {max_records} allowed")
    depth: list[int] = []
    for i, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("class"), str) \
                or not isinstance(record.get(KIDS), list):
            raise ValueError(f"plans[{i}] is not a plan record")
        below = 0
        for j in [*record[KIDS], *refs(record)]:
            if not isinstance(j, int) or isinstance(j, bool) or not 0 <= j < i:
                raise ValueError(f"plans[{i}] refers to {j!r}, not an earlier record")
            below = max(below, depth[j])
        if below >= max_depth:
            raise ValueError(f"plans nest more than {max_depth} deep")
        depth.append(below + 1)
    return records
