"""The engine's front door: trace -> IR -> search/verify -> rewrite -> suggestions.

Measurement is not done here: it needs the live SparkSession, which lives in
the notebook's kernel (see `magicpush_lab.measure`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

from magicpush_lab.capture.trace import Event, Trace
from magicpush_lab.ir.serialize import expr_to_json
from magicpush_lab.pushdown import Budget, Pushed, Refusal, filters_to_push, join_conjuncts, push_down_all
from magicpush_lab.rewrite.cells import RewriteError, apply, binding_name
from magicpush_lab.rewrite.edits import AddFilter, Edit, RemoveFilter
from magicpush_lab.rewrite.pyspark_code import functions_alias, to_pyspark
from magicpush_lab.suggestion import CellChange, ProofStep, Suggestion
from magicpush_lab.translate.dataflow import consumers, pipeline_plan
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET


@dataclass(frozen=True)
class OptimizeResult:
    suggestions: tuple[Suggestion, ...]
    optimizer_seconds: float
    notes: tuple[str, ...] = ()  # why something was not pushed, for display

    def to_json(self, notebook: str | None = None) -> dict[str, Any]:
        return {
            "notebook": notebook,
            "suggestions": [s.to_json() for s in self.suggestions],
            "optimizer_seconds": round(self.optimizer_seconds, 4),
            "notes": list(self.notes),
        }


def optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None = None,
                   *, time_budget: float = 10.0) -> OptimizeResult:
    """Find proved pushdowns for the longest pipeline of `trace`.

    notebook_cells: the notebook's cell sources in notebook order (markdown cells
    included, so indices match the notebook); a suggestion's cell indices refer to
    it. When None, cells are numbered in the order the trace first saw them.
    """
    started = time.monotonic()
    plan = pipeline_plan(trace)
    if plan is None:
        return OptimizeResult((), time.monotonic() - started, ("no PySpark DataFrame was traced",))
    if not filters_to_push(plan) and not join_conjuncts(plan):
        return OptimizeResult((), time.monotonic() - started, ("the pipeline has no filter to push",))
    walk = push_down_all(plan, Budget(time_budget))
    cells = list(notebook_cells) if notebook_cells is not None else _trace_cells(trace)
    index_of = _cell_index(trace, cells)
    notes = [_describe(r) for r in walk.refusals]
    suggestions = []
    for pushed in walk.pushed:
        try:
            suggestions.append(_suggestion(trace, pushed, cells, index_of))
        except (RewriteError, _CannotPlace) as err:
            notes.append(f"{pushed.predicate}: proved, but the cells cannot be rewritten: {err}")
    if not walk.pushed and not notes:
        notes.append("nothing could be pushed")
    return OptimizeResult(tuple(suggestions), time.monotonic() - started, tuple(notes))


class _CannotPlace(Exception):
    """The proved predicate has no place in the user's code to go to."""


def _suggestion(trace: Trace, pushed: Pushed, cells: list[str], index_of: dict[int, int]) -> Suggestion:
    events = {e.id: e for e in trace.events}
    source_event = events.get(pushed.source.origin) if pushed.source.origin is not None else None
    if source_event is None or source_event.site is None:
        raise _CannotPlace("the source was not created by traced notebook code")
    edits: list[Edit] = [_add_filter(trace, pushed, source_event, events)]
    kind = pushed.kind
    filter_event = events.get(pushed.late_filter.origin) if pushed.late_filter.origin is not None else None
    if kind == EQUIVALENT:
        if filter_event is not None and filter_event.site is not None and \
                filter_event.op.split(".")[-1] in ("filter", "where"):
            edits.append(RemoveFilter(filter_event.site))
        else:
            kind = SUPERSET  # proved equivalent, but the late filter cannot be found to remove it
    alias, _ = functions_alias(cells)
    rewritten = apply(cells, index_of, edits, alias)
    changes = tuple(CellChange(i, cells[i], src) for i, src in sorted(rewritten.items()))
    source_cell = cells[index_of[source_event.site.execution_count]] \
        if source_event.site.execution_count in index_of else ""
    name = binding_name(source_cell, source_event.site) or _variable_of(trace, source_event.id) or "source"
    return Suggestion(
        source=name,
        predicate=to_pyspark(pushed.predicate, alias),
        kind=kind,
        proof=tuple(ProofStep(s.operator, s.category, s.base_case_rows, s.kind) for s in pushed.steps),
        cells=changes,
        source_event=source_event.id,
        predicate_ir=expr_to_json(pushed.predicate),
        may_hide_errors=pushed.may_hide_errors,
    )


def _add_filter(trace: Trace, pushed: Pushed, source_event: Event, events: dict[int, Event]) -> AddFilter:
    """Filter where the source is defined, unless other code reads the source too."""
    before_collect = _before_collect(trace, pushed, source_event, events)
    if before_collect is not None:
        return before_collect
    users = consumers(trace).get(source_event.id, ())
    inspected = any(i.event == source_event.id for i in trace.inspections)
    if len(users) <= 1 and not inspected:
        return AddFilter(source_event.site, pushed.predicate, "call")
    consumer = events.get(pushed.consumer) if pushed.consumer is not None else None
    if consumer is not None and consumer.site is not None and pushed.via_input == 0 \
            and consumer.inputs[:1] == (source_event.id,):
        # other code sees the source too: filter only where this pipeline reads it
        return AddFilter(consumer.site, pushed.predicate, "receiver")
    raise _CannotPlace("the source feeds other code, and this pipeline's use of it was not found")


def _before_collect(trace: Trace, pushed: Pushed, source_event: Event,
                   events: dict[int, Event]) -> AddFilter | None:
    """A predicate for a collected table (RowIterPipeline) goes right before its `collect()`:
    `df_old.select(...).collect()` becomes `df_old.select(...).filter(G).collect()`, so only the
    list the UDF loops over changes. None when `pushed` is not such a predicate."""
    consumer = events.get(pushed.consumer) if pushed.consumer is not None else None
    if consumer is None or pushed.via_input != 1:
        return None
    names = [name for u in consumer.udfs for name, event in u.side_inputs if event == source_event.id]
    if not names:
        return None
    collects = [i for i in trace.inspections if i.event == source_event.id and i.action == "collect"]
    if len(collects) != 1 or collects[0].site is None:
        raise _CannotPlace("the collected DataFrame is collected more than once, or where it is not known")
    # every UDF of the notebook tied to this collect(): one, the one the proof was made for
    udf_names = {u.name for e in trace.events for u in e.udfs
                 if any(event == source_event.id for _, event in u.side_inputs)}
    if len(udf_names) != 1:
        raise _CannotPlace(f"{len(udf_names)} UDFs read the rows collected from this DataFrame")
    readers = _readers(trace, names[0], udf_names)
    if readers:
        # the filtered list replaces the old one for every reader of the variable
        raise _CannotPlace(f"{names[0]} is also read outside the UDF (cell {readers[0]})")
    return AddFilter(collects[0].site, pushed.predicate, "receiver")


def _readers(trace: Trace, name: str, udf_names: set[str]) -> list[int]:
    """Executions whose code reads `name` other than inside the UDF's function definition."""
    import ast

    from magicpush_lab.rewrite.cellparse import parse_cell

    found = []
    for cell in trace.cells:
        tree = parse_cell(cell.source)
        if tree is None:
            found.append(cell.execution_count)  # cannot tell: count it as a reader
            continue
        inside = {id(n) for d in ast.walk(tree) if isinstance(d, ast.FunctionDef) and d.name in udf_names
                  for n in ast.walk(d)}
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               and id(n) not in inside for n in ast.walk(tree)):
            found.append(cell.execution_count)
    return found


def _trace_cells(trace: Trace) -> list[str]:
    seen: list[str] = []
    for c in trace.cells:
        if c.source not in seen:
            seen.append(c.source)
    return seen


def _cell_index(trace: Trace, cells: list[str]) -> dict[int, int]:
    """Execution count -> notebook index, for executions whose code is still in the notebook."""
    out = {}
    for c in trace.cells:
        if c.source in cells:
            out[c.execution_count] = cells.index(c.source)
    return out


def _variable_of(trace: Trace, event_id: int) -> str | None:
    names = [n for n, e in trace.variables.items() if e == event_id]
    return names[0] if names else None


def _describe(r: Refusal) -> str:
    text = f"{r.operator}: {r.reason}"
    if r.candidate:
        text += f" (e.g. `{r.candidate}` at the source fails on {_tables(r.counterexample)})"
    return text


def _tables(tables: dict[str, list[dict]]) -> str:
    """Counterexample tables in one line; runs of equal rows (a limit's k copies) counted once.

    >>> _tables({"input 1": [{"x": 1}] * 3 + [{"x": None}]})
    "input 1: 3 x {'x': 1}, {'x': None}"
    """
    parts = []
    for name, rows in tables.items():
        runs: list[list] = []
        for row in rows:
            if runs and runs[-1][1] == row:
                runs[-1][0] += 1
            else:
                runs.append([1, row])
        shown = ", ".join(f"{n} x {row}" if n > 1 else str(row) for n, row in runs)
        parts.append(f"{name}: {shown or 'empty'}")
    return "; ".join(parts)
