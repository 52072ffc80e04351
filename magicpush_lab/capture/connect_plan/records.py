"""What every part of the Connect reader writes through: one kernel's PlanStore, the relations
read so far by their plan ids, the ids given to the columns and results made here, and the
server's schema of a relation, against which a projection's columns are checked.
"""

from __future__ import annotations

import itertools
from typing import Any

from magicpush_lab.capture.connect_plan.shapes import PLAN, Attr, NotReadable, Read, Typed, alias_as
from magicpush_lab.capture.plan_store import PlanStore


class RecordWriter:
    """Writes the records of the Connect relations of one kernel into `store`."""

    def __init__(self, store: PlanStore) -> None:
        self.store = store
        self.reads: dict[int, Read] = {}  # plan id -> the relation's record and output
        self._ids = itertools.count(1)

    def next_id(self) -> int:
        """A new id, for a column (its exprId) or a function's result."""
        return next(self._ids)

    def fresh(self, name: str, dtype: Any, nullable: bool = True) -> Attr:
        """A new column."""
        return Attr(name, dtype, nullable, self.next_id())

    def record(self, cls: str, inputs: list[Read], **fields: Any) -> int:
        """The id of the plan record of class `cls` over `inputs` with `fields`."""
        record = {k: self.store.field(v) for k, v in fields.items()}
        record["class"] = PLAN + cls
        record["#kids"] = [i.rid for i in inputs]
        return self.store.intern(record)

    @staticmethod
    def schema(rel: Any, client: Any) -> list[tuple[str, Any, bool]]:
        """(name, type, nullable) of each column of `rel`, from the server."""
        from pyspark.sql.connect.proto import base_pb2

        plan = base_pb2.Plan()
        plan.root.CopyFrom(rel)
        schema = client.schema(plan)
        return [(f.name, f.dataType.jsonValue(), bool(f.nullable)) for f in schema.fields]

    def alias(self, value: Typed, name: str) -> Typed:
        """`value AS name`, a new column."""
        return alias_as(value, self.fresh(name, value.dtype))

    def named(self, value: Typed, name: str) -> Typed:
        """A projection item: the column itself when it keeps its name, else an Alias."""
        if value.attr is not None and value.attr.name == name and value.flat[0]["class"].endswith("AttributeReference"):
            return value
        return self.alias(value, name)

    def projection(self, rel: Any, inputs: list[Read], client: Any, items: list[Typed]) -> Read:
        """A Project of `items` (columns passed through, or Aliases), checked against the server's
        schema of `rel`: same names, same types, in order."""
        schema = self.schema(rel, client)
        output = [i.attr for i in items]
        if any(a is None for a in output) or len(schema) != len(output):
            raise NotReadable("its columns are not the ones the server names")
        for attr, (name, dtype, _) in zip(output, schema):
            if attr.name != name or attr.dtype != dtype:  # type: ignore[union-attr]
                raise NotReadable(f"column {name}: read here as {attr.dtype}, the server says {dtype}")  # type: ignore
        rid = self.record("Project", inputs, projectList=[i.flat for i in items])
        return Read(rid, output)  # type: ignore[arg-type]
