"""The Connect reader's entry: a Connect DataFrame's relation tree walked from its sources up,
each relation read once by its plan id, by the reader of its kind; a relation that is not read
becomes an `Opaque` barrier over its inputs with the reason and the server's schema.
"""

from __future__ import annotations

from typing import Any, Callable

from magicpush_lab.capture.connect_plan import aggregates, operators, projections
from magicpush_lab.capture.connect_plan.records import RecordWriter
from magicpush_lab.capture.connect_plan.shapes import NotReadable, Read
from magicpush_lab.capture.plan_store import PlanStore

#: reads one relation: (writer, relation, its inputs read, the session's client) -> the read
Reader = Callable[[RecordWriter, Any, list[Read], Any], Read]

# the sources: their columns are the server's schema of them
_LEAVES = {"read": "LogicalRelation", "local_relation": "LocalRelation", "cached_local_relation": "LocalRelation",
           "chunked_cached_local_relation": "LocalRelation", "range": "Range",
           # a source: its inside is not a step of the notebook
           "sql": "LogicalRelation", "cached_remote_relation": "LogicalRelation"}

_READERS: dict[str, Reader] = {
    "filter": operators.filter_rows,
    "project": projections.project,
    "with_columns": projections.with_columns,
    "drop": projections.drop,
    "with_columns_renamed": projections.renamed,
    "to_df": projections.to_df,
    "subquery_alias": operators.subquery_alias,
    "hint": operators.hint,
    "repartition": operators.repartition,
    "repartition_by_expression": operators.repartition_by_expression,
    "sort": operators.sort,
    "limit": operators.limit,
    "deduplicate": operators.deduplicate,
    "join": operators.join,
    "set_op": operators.set_op,
    "aggregate": aggregates.aggregate,
    "group_map": aggregates.group_map,
    "drop_na": operators.drop_na,
    "fill_na": operators.fill_na,
}

# why a relation kind stops every pushdown, in the PySpark user's words
_RELATION_REASONS = {
    "sample": "sample: which rows are drawn depends on the rows before it",
    "offset": "offset: which rows are kept depends on the order",
    "tail": "tail: which rows are kept depends on the order",
    "replace": "replace on Spark Connect: not analysed yet",
    "unpivot": "unpivot on Spark Connect: not analysed yet",
    "map_partitions": "mapInPandas/mapInArrow: the function sees whole batches of rows",
    "co_group_map": "cogroup applyInPandas: not analysed",
    "collect_metrics": "observe: its metrics count the rows that reach it",
    "with_watermark": "withWatermark: streaming is not analysed",
    "to_schema": "to(schema) on Spark Connect: not analysed yet",
}


class ConnectPlanEncoder:
    """Reads Connect plans (connect.ConnectHandle) into one PlanStore, each relation once."""

    def __init__(self, store: PlanStore) -> None:
        self.writer = RecordWriter(store)
        self._down_until: dict[int, float] = {}  # id(client) -> until when it counts as unreachable
        self._up_at: dict[int, float] = {}  # id(client) -> when it last answered the probe

    # -- entry ----------------------------------------------------------------
    def encode(self, handle: Any) -> int:
        plan_id = getattr(handle.plan, "_plan_id", None)
        known = self.writer.reads.get(plan_id) if plan_id is not None else None
        if known is not None:  # read as part of a later plan already: no proto, no request
            return known.rid
        client = handle.session.client
        self._check_reachable(client)
        relation = handle.plan.plan(client)
        return self._relation(relation, client).rid

    def _check_reachable(self, client: Any) -> None:
        """A server that does not answer fails this read at once, and the next ones for a while,
        instead of each schema request retrying it for minutes."""
        import time

        from magicpush_lab.capture.connect_probe import CONNECT_PROBE_SECONDS, reachable

        now = time.monotonic()
        if self._down_until.get(id(client), 0.0) > now:
            raise ConnectionError("the Spark Connect server cannot be reached: the plan was not read")
        if self._up_at.get(id(client), -60.0) > now - 10.0:  # it answered a moment ago: this pull
            return
        try:
            reachable(client, CONNECT_PROBE_SECONDS)
        except ConnectionError:
            self._down_until[id(client)] = now + 30.0
            raise
        self._up_at[id(client)] = now

    # -- relations --------------------------------------------------------------
    def _relation(self, rel: Any, client: Any) -> Read:
        plan_id = rel.common.plan_id if rel.HasField("common") and rel.common.HasField("plan_id") else None
        if plan_id is not None and plan_id in self.writer.reads:
            return self.writer.reads[plan_id]
        kind = rel.WhichOneof("rel_type")
        inputs = [self._relation(r, client) for r in _inputs(rel, kind)]
        try:
            read = self._resolved(rel, kind, inputs, client)
        except NotReadable as err:
            read = self._opaque(rel, kind, inputs, client, str(err))
        except Exception as err:  # a shape this reader did not expect: a barrier, never a guess
            read = self._opaque(rel, kind, inputs, client, f"not read ({type(err).__name__}: {err})")
        if plan_id is not None:
            self.writer.reads[plan_id] = read
        return read

    def _resolved(self, rel: Any, kind: str | None, inputs: list[Read], client: Any) -> Read:
        """`rel` read by the reader of its kind; NotReadable for a kind without one."""
        if kind in _LEAVES:
            return self._leaf(rel, _LEAVES[kind], client)
        reader = _READERS.get(kind or "")
        if reader is None:
            raise NotReadable(_RELATION_REASONS.get(kind or "", "not analysed yet"))
        return reader(self.writer, rel, inputs, client)

    def _leaf(self, rel: Any, cls: str, client: Any) -> Read:
        output = [self.writer.fresh(n, t, null) for n, t, null in self.writer.schema(rel, client)]
        rid = self.writer.record(cls, [], output=[a.flat() for a in output])
        return Read(rid, output)

    def _opaque(self, rel: Any, kind: str | None, inputs: list[Read], client: Any, reason: str) -> Read:
        try:
            output = [self.writer.fresh(n, t, null) for n, t, null in self.writer.schema(rel, client)]
        except Exception as err:  # the server cannot say either: a barrier without columns
            output, reason = [], f"{reason}; its schema could not be read ({type(err).__name__})"
        rid = self.writer.record("Opaque", inputs, reason=f"Spark Connect {kind or 'relation'}: {reason}",
                                 output=[a.flat() for a in output])
        return Read(rid, output)


def _inputs(rel: Any, kind: str | None) -> list[Any]:
    """The relations `rel` reads, in the order of their fields (a join's left before its right):
    every field of the relation's message that holds a relation, so that a kind not read here
    still becomes a barrier over its inputs rather than a source."""
    if kind is None:
        return []
    out: list[Any] = []
    for field, value in getattr(rel, kind).ListFields():
        if field.message_type is None or field.message_type.full_name != "spark.connect.Relation":
            continue
        if hasattr(value, "WhichOneof"):  # one relation
            out.append(value)
        else:  # a repeated field of relations
            out.extend(value)
    return out
