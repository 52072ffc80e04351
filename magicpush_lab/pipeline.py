"""The engine's front door: trace -> IR -> walk -> the stage after the walk -> suggestions.

This module only orchestrates: translate/ reads the trace into each pipeline's IR, pushdown/
walks its filters toward the sources (proving each step, and checking each place a filter
may go), and rewrite/assemble.py turns what the walk proved into suggestions in the user's
cells, with the notes (rewrite/notes.py) on what did not move. suggestion.py is the JSON
contract of what comes out. Measurement is not done here: it needs the live SparkSession,
which lives in the notebook's kernel (assist.py, measure.py).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import replace
from typing import Collection, Iterator, Sequence

from magicpush_lab.budget import Budget
from magicpush_lab.capture.plan_store import MAX_DEPTH
from magicpush_lab.capture.trace import Event, Inspection, Trace
from magicpush_lab.ir import plan as P
from magicpush_lab.pipeline_graph import graph
from magicpush_lab.pushdown.pandas_tail import spark_predicate
from magicpush_lab.pushdown.records import AlreadyFiltered
from magicpush_lab.pushdown.walk import filters_to_push, join_conjuncts, push_down_all
from magicpush_lab.rewrite import notes
from magicpush_lab.rewrite.assemble import (Assembled, after_to_pandas, assemble, cell_index, in_place, joined,
                                            trace_cells)
from magicpush_lab.rewrite.fold_columns import with_folds
from magicpush_lab.suggestion import OptimizeResult
from magicpush_lab.symbolic.pandas_udf import unreadable_reason
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, bounded_by, z3_turn
from magicpush_lab.rewrite.untraced_sites import with_untraced_sites
from magicpush_lab.translate.dataflow import longest_path, sink_paths, translate_event, with_view_inputs
from magicpush_lab.translate.pandas_tail import NotATail, read_tail, to_pandas_calls
from magicpush_lab.translate.plan_json import PlanNodes


def optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None = None,
                   *, time_budget: float | None = None, all_pipelines: bool = False,
                   cell_ids: Sequence[str | None] | None = None,
                   only_sinks: Collection[int] | None = None, budget: Budget | None = None) -> OptimizeResult:
    """Find proved pushdowns for the longest pipeline of `trace`; when none of them stands in
    for that pipeline's last filter, for the next longest, up to FALLBACK_PIPELINES more.

    notebook_cells: the notebook's cell sources in notebook order (markdown cells
    included, so indices match the notebook); a suggestion's cell indices refer to
    it. When None, cells are numbered in the order the trace first saw them.
    cell_ids: the notebook cells' ids, in the same order as `notebook_cells`. An execution
    is matched to its cell by id when it has one; without ids, only by a source text that
    no other cell has (two cells with equal code cannot be told apart).
    only_sinks: look only at pipelines ending in these events (`%%magicpush`: the cell's own).
    budget: the time budget to spend, when the caller wants to cancel it (Budget.cancel);
    otherwise one of `time_budget` seconds (budget.DEFAULT_SECONDS when None).
    all_pipelines: optimize every sink's pipeline, the longest first, within one time
    budget; notes then name the pipeline they are about. A suggestion two pipelines
    share (the same filter at the same source) is given once.
    """
    if budget is None:
        budget = Budget(time_budget) if time_budget is not None else Budget()
    with z3_turn(), deep_plans(), bounded_by(budget):  # Z3's one context: one optimization at a time
        result = _optimize_trace(trace, notebook_cells, all_pipelines, cell_ids, only_sinks, budget)
    return with_failed_cell(trace, with_folds(trace, result, notebook_cells, cell_ids))


def with_failed_cell(trace: Trace, result: OptimizeResult) -> OptimizeResult:
    """The result, saying so first when the trace's last cell execution raised: the cells after
    it have not run, so their pipeline is not in the trace (what ran before it is still
    optimized).

    >>> from magicpush_lab.capture.trace import Cell
    >>> t = Trace(cells=(Cell(2, "x = 1"), Cell(3, "1 / 0", "c3", "ZeroDivisionError: division by zero")))
    >>> got = with_failed_cell(t, OptimizeResult((), 0.1))
    >>> got.failed_cell["execution_count"], got.notes[0]
    (3, 'cell [3] failed (ZeroDivisionError: division by zero); the cells after it have not run: run them and optimize again')
    """
    # the cell running `%magicpush` itself is no step of the notebook's: the one before it counts
    ran = [c for c in trace.cells if not c.source.lstrip().startswith(("%magicpush", "%%magicpush"))]
    last = max(ran, key=lambda c: c.execution_count, default=None)
    if last is None or last.error is None:
        return result
    note = (f"cell [{last.execution_count}] failed ({last.error}); the cells after it have not run: "
            "run them and optimize again")
    return replace(result, notes=(note, *result.notes),
                   failed_cell={"execution_count": last.execution_count, "cell_id": last.cell_id,
                                "error": last.error})


def _optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None, all_pipelines: bool,
                    cell_ids: Sequence[str | None] | None, only_sinks: Collection[int] | None,
                    budget: Budget) -> OptimizeResult:
    started = time.monotonic()
    trace = with_view_inputs(trace)  # spark.sql / spark.table over temp views read notebook DataFrames
    trace = with_untraced_sites(trace)  # a DataFrame made in the JVM: the statement that made it
    paths = sink_paths(trace)
    if only_sinks is not None:
        paths = [p for p in paths if p[-1].id in only_sinks]
    if not paths:
        return OptimizeResult((), time.monotonic() - started, (notes.NOTHING_TRACED,))
    cells = list(notebook_cells) if notebook_cells is not None else trace_cells(trace)
    index_of = cell_index(trace, cells, cell_ids if notebook_cells is not None else None)
    parts: list[tuple[str, Assembled, dict | None]] = []  # (pipeline, its result, its graph)
    moved = False
    for path in paths if all_pipelines else paths[:1 + FALLBACK_PIPELINES]:
        if not all_pipelines and parts and (moved or budget.spent):
            break
        sink = path[-1]
        name = pipeline_name(trace, sink)
        if sink.plan is None:
            parts.append((name, Assembled(notes=(notes.in_pipeline(name, notes.PLAN_UNREAD),)), None))
            continue
        drawn = graph(trace, sink.id, name)
        try:
            plan = translate(trace, sink.id, budget)
            drawn = graph(trace, sink.id, name, plan)  # each step as the engine read it
            got = _optimize_plan(trace, plan, cells, index_of, budget, name)
        except Exception as err:  # noqa: BLE001 - one pipeline the engine fails on is a note, not the notebook's failure
            parts.append((name, Assembled(notes=(notes.in_pipeline(name, notes.failed(err)),)), drawn))
            continue
        moved = _moves_its_last_filter(plan, got)
        parts.append((name, got.for_pipeline(name, sink.id), drawn))
    if not all_pipelines and len(parts) > 1:
        # the longest pipeline, and those after it that have a suggestion; the others said nothing new
        parts = parts[:1] + [p for p in parts[1:] if p[1].suggestions]
    graphs = [drawn for _, _, drawn in parts if drawn is not None]
    # several pipelines in the result: each note says which one it is about
    named = [got.named(name) if all_pipelines or len(parts) > 1 else got for name, got, _ in parts]
    for call in to_pandas_calls(trace):
        if only_sinks is not None and call.event not in only_sinks:
            continue
        try:
            name, got = _optimize_pandas_tail(trace, call, cells, index_of, budget)
        except Exception as err:  # noqa: BLE001 - as for a pipeline: a note, not the notebook's failure
            named.append(Assembled(notes=(notes.pandas_failed(call, err),)))
            continue
        named.append(got.for_pipeline(name, call.event))
    return joined(named, time.monotonic() - started, graphs)


#: pipelines looked at after the longest, in order of length, while the one before moved
#: none of its last filter (a ranking shown with `rank <= 15`, say, beside the pipeline that
#: filters the same table on a column that can move)
FALLBACK_PIPELINES = 3


def _moves_its_last_filter(plan: P.Plan, got: Assembled) -> bool:
    """Some suggestion stands in for the pipeline's last filter (its top one)."""
    last = next(iter(filters_to_push(plan)), None)
    if last is None or last.origin is None:
        return bool(got.suggestions)
    return any(s.late_filter_event == last.origin for s in got.suggestions)


@contextmanager
def deep_plans() -> Iterator[None]:
    """Translation and the walk recurse along a pipeline: a notebook's plan may be as deep as a
    trace allows (plan_store.MAX_DEPTH, a loop of a thousand `withColumn` calls and more)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 8 * MAX_DEPTH))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def translate(trace: Trace, eid: int, budget: Budget | None = None) -> P.Plan:
    """The IR of event `eid`'s DataFrame, pandas UDF bodies read within the budget."""
    budget = budget if budget is not None else Budget()

    def pandas_body_reason(source: str | None, arg_types: tuple[str, ...], dtype: str) -> str | None:
        return unreadable_reason(source, arg_types, dtype, budget.slice_ms(DEFAULT_TIMEOUT_MS))

    # tying the plan's steps to the traced calls writes subtrees out: it stops when the budget does
    return translate_event(trace, eid, pandas_body_reason, PlanNodes(trace.plans, out_of_time=lambda: budget.spent))


def pipeline_plan(trace: Trace, budget: Budget | None = None) -> P.Plan | None:
    """The IR of the longest pipeline: the sink's analyzed plan, annotated with events."""
    trace = with_view_inputs(trace)
    path = longest_path(trace)
    return translate(trace, path[-1].id, budget) if path else None


def pipeline_name(trace: Trace, sink: Event) -> str:
    """What the user calls a pipeline: the variable holding its last DataFrame, else the call
    and the execution it ran in."""
    name = trace.variable_of(sink.id)
    if name is not None:
        return name
    where = f" in cell [{sink.site.execution_count}]" if sink.site is not None else ""
    return f"{sink.op.split('.')[-1]}(){where}"


def _optimize_plan(trace: Trace, plan: P.Plan, cells: list[str], index_of: dict[int, int], budget: Budget,
                   name: str) -> Assembled:
    """One pipeline's plan walked (pushdown/), then what that comes to in the cells."""
    if not filters_to_push(plan) and not join_conjuncts(plan):
        # filters at the reads (a suggestion applied on an earlier run that removed the late
        # filter, say) are in place: said as such, since there is nothing left to move
        at_reads = [AlreadyFiltered(n.origin, n.condition, n.condition) for n in P.nodes(plan)
                    if isinstance(n, P.Filter) and n.origin is not None and isinstance(n.child, P.Source)]
        already = in_place(trace, at_reads, name, cells)
        return Assembled(notes=(notes.NO_FILTER, *(a["note"] for a in already)), already=already)
    return assemble(trace, plan, push_down_all(plan, budget), cells, index_of, name)


def _optimize_pandas_tail(trace: Trace, call: Inspection, cells: list[str], index_of: dict[int, int],
                          budget: Budget) -> tuple[str, Assembled]:
    """The pandas filter after `toPandas()` (translate/pandas_tail.py) as a filter on the Spark
    DataFrame it collected (pushdown/pandas_tail.py), pushed from there like any late filter;
    the pandas filter stays. Returns the pipeline's name (the filtered frame's) and what
    `_optimize_plan` returns, as rewrite/assemble.after_to_pandas completes it."""
    spark = translate(trace, call.event, budget)
    try:
        tail = read_tail(trace, call, spark.output)
    except NotATail as err:
        return "", Assembled(notes=() if err.quiet else (notes.not_a_tail(err),))
    g = spark_predicate(tail, spark.output, budget)
    if isinstance(g, str):
        return tail.sink, Assembled(notes=(notes.on_pandas_filter(tail, g),))
    # an identity projection over the collected DataFrame, as the toPandas() call: the walk moves
    # a filter from above an operator, so a DataFrame read and collected as it is still gets the
    # filter at its read; the call itself is this pipeline's end, not another reader of its rows
    collected = P.Filter(P.Project(spark, tuple((c, c) for c in spark.output), call.event), g)
    own = replace(trace, inspections=tuple(i for i in trace.inspections if i != call))
    walked = _optimize_plan(own, collected, cells, index_of, budget, tail.sink)
    return tail.sink, after_to_pandas(trace, call, tail, g, spark, walked, cells, index_of)
