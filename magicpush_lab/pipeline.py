"""The engine's front door: trace -> IR -> search/verify -> rewrite -> suggestions.

This module only orchestrates: translate/ reads the trace, pushdown/ walks each pipeline,
rewrite/placement.py decides where each proved filter goes in the user's code, rewrite/cells.py
edits the cells, and suggestion.py is the JSON contract of what comes out. Measurement is not
done here: it needs the live SparkSession, which lives in the notebook's kernel (assist.py,
measure.py).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Collection, Iterator, Sequence

from magicpush_lab.budget import Budget
from magicpush_lab.capture.plan_store import MAX_DEPTH
from magicpush_lab.capture.trace import Event, Inspection, Trace
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.serialize import expr_to_json
from magicpush_lab.pipeline_graph import graph
from magicpush_lab.pushdown.records import Pushed
from magicpush_lab.pushdown.walk import filters_to_push, join_conjuncts, push_down_all
from magicpush_lab.pushdown.pandas_tail import spark_predicate
from magicpush_lab.rewrite import notes as words
from magicpush_lab.rewrite.cells import RewriteError, apply, binding_name
from magicpush_lab.rewrite.edits import AddFilter, Edit, RemoveFilter
from magicpush_lab.rewrite.placement import CannotPlace, cell_index, edits_for, edits_on_the_way, trace_cells
from magicpush_lab.rewrite.pyspark_code import functions_alias, to_pyspark
from magicpush_lab.suggestion import CellChange, OptimizeResult, ProofStep, Suggestion, Together
from magicpush_lab.symbolic.pandas_udf import unreadable_reason
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, bounded_by
from magicpush_lab.translate.dataflow import longest_path, sink_paths, translate_event, with_view_inputs
from magicpush_lab.translate.pandas_tail import NotATail, read_tail, to_pandas_calls
from magicpush_lab.translate.plan_json import PlanNodes
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET


def optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None = None,
                   *, time_budget: float | None = None, all_pipelines: bool = False,
                   cell_ids: Sequence[str | None] | None = None,
                   only_sinks: Collection[int] | None = None, budget: Budget | None = None) -> OptimizeResult:
    """Find proved pushdowns for the longest pipeline of `trace`.

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
    with deep_plans(), bounded_by(budget):
        return _optimize_trace(trace, notebook_cells, all_pipelines, cell_ids, only_sinks, budget)


def _optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None, all_pipelines: bool,
                    cell_ids: Sequence[str | None] | None, only_sinks: Collection[int] | None,
                    budget: Budget) -> OptimizeResult:
    started = time.monotonic()
    trace = with_view_inputs(trace)  # spark.sql / spark.table over temp views read notebook DataFrames
    paths = sink_paths(trace)
    if only_sinks is not None:
        paths = [p for p in paths if p[-1].id in only_sinks]
    if not paths:
        return OptimizeResult((), time.monotonic() - started, (words.NOTHING_TRACED,))
    cells = list(notebook_cells) if notebook_cells is not None else trace_cells(trace)
    index_of = cell_index(trace, cells, cell_ids if notebook_cells is not None else None)
    found: dict[tuple, Suggestion] = {}
    notes: list[str] = []
    together: list[Together] = []
    refusals: list[dict] = []
    graphs: list[dict] = []
    for path in paths if all_pipelines else paths[:1]:
        name = pipeline_name(trace, path[-1])
        if path[-1].plan is None:
            notes.append(words.in_pipeline(name, words.PLAN_UNREAD))
            continue
        graphs.append(graph(trace, path[-1].id, name))
        try:
            plan = translate(trace, path[-1].id, budget)
            got, why, joint, refused = _optimize_plan(trace, plan, cells, index_of, budget, name)
        except Exception as err:  # noqa: BLE001 - one pipeline the engine fails on is a note, not the notebook's failure
            notes.append(words.in_pipeline(name, words.failed(err)))
            continue
        for s in got:
            found.setdefault((s.source_event, s.predicate, s.cells), _for_pipeline(s, name, path[-1].id))
        named = (lambda n: words.in_pipeline(name, n)) if all_pipelines else (lambda n: n)
        notes.extend(named(n) for n in why)
        together.extend(joint)
        refusals.extend({**r, "note": named(r["note"])} if r.get("note") else r for r in refused)
    for call in to_pandas_calls(trace):
        if only_sinks is not None and call.event not in only_sinks:
            continue
        try:
            name, got, why, joint, refused = _optimize_pandas_tail(trace, call, cells, index_of, budget)
        except Exception as err:  # noqa: BLE001 - as for a pipeline: a note, not the notebook's failure
            notes.append(words.pandas_failed(call, err))
            continue
        for s in got:
            found.setdefault((s.source_event, s.predicate, s.cells), _for_pipeline(s, name, call.event))
        notes.extend(why)
        together.extend(joint)
        refusals.extend(refused)
    return OptimizeResult(tuple(found.values()), time.monotonic() - started, tuple(notes), tuple(together),
                          tuple(refusals), tuple(graphs))


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


def _for_pipeline(s: Suggestion, name: str, sink: int) -> Suggestion:
    # alternatives too: ranking on live data may put one of them in the suggestion's place
    return replace(s, pipeline=name, sink_event=sink,
                   alternatives=tuple(replace(a, pipeline=name, sink_event=sink) for a in s.alternatives))


def _optimize_pandas_tail(trace: Trace, call: Inspection, cells: list[str], index_of: dict[int, int], budget: Budget
                          ) -> tuple[str, list[Suggestion], list[str], list[Together], list[dict]]:
    """The pandas filter after `toPandas()` (translate/pandas_tail.py) as a filter on the Spark
    DataFrame it collected (pushdown/pandas_tail.py), pushed from there like any late filter;
    the pandas filter stays. Returns the pipeline's name (the filtered frame's) and what
    `_optimize_plan` returns."""
    spark = translate(trace, call.event, budget)
    try:
        tail = read_tail(trace, call, spark.output)
    except NotATail as err:
        return "", [], [] if err.quiet else [words.not_a_tail(err)], [], []
    g = spark_predicate(tail, spark.output, budget)
    if isinstance(g, str):
        return tail.sink, [], [words.on_pandas_filter(tail, g)], [], []
    # an identity projection over the collected DataFrame, as the toPandas() call: the walk moves
    # a filter from above an operator, so a DataFrame read and collected as it is still gets the
    # filter at its read; the call itself is this pipeline's end, not another reader of its rows
    collected = P.Filter(P.Project(spark, tuple((c, c) for c in spark.output), call.event), g)
    own = replace(trace, inspections=tuple(i for i in trace.inspections if i != call))
    got, why, joint, refused = _optimize_plan(own, collected, cells, index_of, budget, tail.sink)
    if not got:
        try:
            got = [_before_collecting(trace, call, g, spark, cells, index_of)]
            why = [words.before_collecting_instead(n) for n in why]
        except (RewriteError, ValueError) as err:
            why.append(words.collect_not_rewritten(g, err))
    # the late filter the user knows is the pandas one, in its cell (where a banner goes)
    late = dict(late_predicate=tail.filter_statement.code, late_filter_in_pandas=True,
                late_filter_cell=index_of.get(tail.filter_statement.execution_count))
    got = [replace(s, **late, alternatives=tuple(replace(a, **late) for a in s.alternatives)) for s in got]
    return tail.sink, got, [words.on_pandas_filter(tail, n) for n in why], joint, refused


def _before_collecting(trace: Trace, call: Inspection, g: X.Expr, collected: P.Plan, cells: list[str],
                       index_of: dict[int, int]) -> Suggestion:
    """`df.filter(G).toPandas()`: G where the rows leave Spark, when the walk took it no further
    (an aggregate, a UDF or a limit on the way). Fewer rows cross into Python, and nothing else
    that reads `df` changes. RewriteError or ValueError when it cannot be written."""
    names = [c.name for c in collected.output]
    if len(set(names)) != len(names):
        raise RewriteError("a column name appears twice in the collected DataFrame")
    if call.site is None:
        raise RewriteError("the toPandas() call has no place in the notebook")
    alias, _ = functions_alias(cells)
    rewritten = apply(cells, index_of, [AddFilter(call.site, g, target="receiver")], alias)
    return Suggestion(
        source=_source_name(trace, trace.event(call.event), cells, index_of),
        predicate=to_pyspark(g, alias),
        kind=SUPERSET,
        proof=(ProofStep("pandas code after toPandas()", "ROW-TO-ROW", 1, SUPERSET),),
        cells=tuple(CellChange(i, cells[i], src, _count_of(index_of, i)) for i, src in sorted(rewritten.items())),
        source_event=call.event,
        predicate_ir=expr_to_json(g),
    )


def _optimize_plan(trace: Trace, plan: P.Plan, cells: list[str], index_of: dict[int, int], budget: Budget,
                   name: str) -> tuple[list[Suggestion], list[str], list[Together], list[dict]]:
    """The suggestions for one pipeline's plan, notes on what was not pushed, the joint
    rewrite when there are several, and the walk's refusals as JSON."""
    if not filters_to_push(plan) and not join_conjuncts(plan):
        return [], [words.NO_FILTER], [], []
    walk = push_down_all(plan, budget)
    notes, refusals = words.refusal_notes(trace, walk.refusals, plan, name)
    placed = []
    for pushed in walk.pushed:
        try:
            placed.append(_place(trace, pushed, walk.pushed))
        except CannotPlace as err:
            notes.append(words.not_rewritten(words.proved_text(pushed), err))
            continue
        if placed[-1].not_at_source:
            notes.append(words.on_the_way(pushed.predicate,
                                          _source_name(trace, trace.event(pushed.source.origin), cells, index_of),
                                          placed[-1].not_at_source,
                                          _source_name(trace, placed[-1].source_event, cells, index_of)))
    suggestions = []
    writable = []
    for p in placed:
        try:
            to_pyspark(p.pushed.predicate)
            writable.append(p)
        except ValueError as err:  # a function with no PySpark form (rewrite/pyspark_column.py)
            notes.append(words.not_pyspark(p.pushed.predicate, err))
    for group in _same_place(writable):
        try:
            suggestions.append(_suggestion(trace, group, cells, index_of, walk.pushed))
        except RewriteError as err:
            notes.append(words.not_rewritten(_predicate(group), err))
        except ValueError as err:  # a function with no PySpark form (rewrite/pyspark_column.py)
            notes.append(words.not_pyspark(_predicate(group), err))
    if not walk.pushed and not notes:
        notes.append(words.NOTHING_PUSHED)
    joint = _together(trace, walk.pushed, cells, index_of, name) if len(suggestions) > 1 else None
    return suggestions, notes, [joint] if joint is not None and joint.cells else [], refusals


@dataclass(frozen=True)
class _Placed:
    """A proved push and where it goes in the user's code: `pushed` holds the predicate and the
    proof steps of that place (a DataFrame on the way, when the source itself cannot take it)."""

    pushed: Pushed
    edits: tuple[Edit, ...]
    kind: str
    source_event: Event
    not_at_source: str = ""  # why the source itself could not take the filter, when it goes on the way


def _place(trace: Trace, pushed: Pushed, peers: Sequence[Pushed]) -> _Placed:
    """Where `pushed` goes: at its source, else on the pipeline's own read of a DataFrame on
    the way (rewrite/placement.py). Raises CannotPlace with the source's reason first."""
    try:
        edits, kind, source_event = edits_for(trace, pushed, peers)
        return _Placed(pushed, tuple(edits), kind, source_event)
    except CannotPlace as at_source:
        if pushed.branches or not pushed.waypoints:
            raise
        reason = str(at_source)
    try:
        edits, kind, source_event, at = edits_on_the_way(trace, pushed, peers)
    except CannotPlace as on_the_way:
        raise CannotPlace(f"{reason}; on the way: {on_the_way}") from None
    return _Placed(replace(pushed, predicate=at.predicate, steps=at.steps, kind=kind,
                           may_hide_errors=at.may_hide_errors, alternatives=()), tuple(edits), kind, source_event,
                   reason)


def _same_place(placed: Sequence[_Placed]) -> list[list[_Placed]]:
    """Pushes grouped by the one place their filter goes to (several proved parts of late
    filters reaching one read), in the walk's order; a push split among branches stays alone."""
    groups: dict[object, list[_Placed]] = {}
    for i, p in enumerate(placed):
        adds = [(e.site, e.target) for e in p.edits if isinstance(e, AddFilter)]
        groups.setdefault(tuple(adds) if len(adds) == 1 and not p.pushed.branches else i, []).append(p)
    return list(groups.values())


def _predicate(group: Sequence[_Placed]) -> X.Expr:
    """The group's predicates ANDed in the order their late filters were written."""
    ordered = sorted(group, key=lambda p: (p.pushed.late_filter.origin is None, p.pushed.late_filter.origin or 0))
    return X.and_(*dict.fromkeys(p.pushed.predicate for p in ordered))


def conjoined(group: Sequence[_Placed]) -> _Placed:
    """The pushes that go to one place as one filter there: the conjunction of their predicates.

    Sound by composition: each part was proved for every input of the steps from its late
    filter down to the place, so applied one after another from the latest filter down, each
    part meets the steps it was proved on (only filters above it were removed, sources below
    it only filtered further). Each equivalent part's late filter goes; a superset part's stays.
    """
    if len(group) == 1:
        return group[0]
    first = group[0]
    add = next(e for e in first.edits if isinstance(e, AddFilter))
    edits: list[Edit] = [replace(add, predicate=_predicate(group))]
    for p in group:
        edits += [e for e in p.edits if isinstance(e, RemoveFilter) and e not in edits]
    steps: list = []
    for p in group:
        steps += [s for s in p.pushed.steps if s not in steps]
    kind = EQUIVALENT if all(p.kind == EQUIVALENT for p in group) else SUPERSET
    pushed = replace(first.pushed, predicate=_predicate(group), steps=tuple(steps), kind=kind,
                     may_hide_errors=any(p.pushed.may_hide_errors for p in group), alternatives=())
    return _Placed(pushed, tuple(edits), kind, first.source_event)


def _suggestion(trace: Trace, group: Sequence[_Placed], cells: list[str], index_of: dict[int, int],
                peers: Sequence[Pushed] = ()) -> Suggestion:
    """The suggestion of the pushes that go to one place: their conjunction, with each part
    (when there are several) or each other proved predicate as the alternatives."""
    placed = conjoined(group)
    if len(group) > 1:
        alternatives = [s for p in group for s in _or_none(lambda p=p: _written(trace, p, cells, index_of))]
    else:
        alternatives = _alternatives(trace, placed, cells, index_of, peers)
    late = _late_predicate(group, cells)
    return replace(_written(trace, placed, cells, index_of), late_predicate=late,
                   alternatives=tuple(replace(a, late_predicate=late) for a in alternatives))


def _late_predicate(group: Sequence[_Placed], cells: list[str]) -> str | None:
    """The late filters the group's predicate stands in for, ANDed, as PySpark code; None when
    one has no PySpark form (a Python UDF called inside the filter)."""
    ordered = sorted(group, key=lambda p: (p.pushed.late_filter.origin is None, p.pushed.late_filter.origin or 0))
    alias, _ = functions_alias(cells)
    try:
        # shown without the NULL guards the pandas API on Spark wraps a mask in (same rows)
        conditions = (X.unguarded(c) for p in ordered for c in X.conjuncts(p.pushed.late_filter.condition))
        return to_pyspark(X.and_(*dict.fromkeys(conditions)), alias)
    except ValueError:
        return None


def _or_none(make) -> list[Suggestion]:
    try:
        return [make()]
    except (RewriteError, ValueError):
        return []


def _written(trace: Trace, placed: _Placed, cells: list[str], index_of: dict[int, int]) -> Suggestion:
    pushed = placed.pushed
    alias, _ = functions_alias(cells)
    rewritten = apply(cells, index_of, list(placed.edits), alias)
    changes = tuple(CellChange(i, cells[i], src, _count_of(index_of, i)) for i, src in sorted(rewritten.items()))
    return Suggestion(
        source=_source_name(trace, placed.source_event, cells, index_of),
        predicate=to_pyspark(pushed.predicate, alias),
        kind=placed.kind,
        proof=tuple(ProofStep(s.operator, s.category, s.base_case_rows, s.kind) for s in pushed.steps),
        cells=changes,
        source_event=placed.source_event.id,
        predicate_ir=expr_to_json(pushed.predicate),
        may_hide_errors=pushed.may_hide_errors,
        late_filter_event=pushed.late_filter.origin,
        late_filter_cell=_late_filter_cell(trace, pushed, index_of),
    )


def _late_filter_cell(trace: Trace, pushed: Pushed, index_of: dict[int, int]) -> int | None:
    """The notebook position of the cell whose code holds the late filter, if it is still there."""
    event = trace.event(pushed.late_filter.origin)
    if event is None or event.site is None:
        return None
    return index_of.get(event.site.execution_count)


def _together(trace: Trace, pushes: Sequence[Pushed], cells: list[str], index_of: dict[int, int],
              pipeline: str) -> Together | None:
    """All of one pipeline's pushes as one rewrite, the way the walk proved them: the late filter
    goes only if every push is an equivalence (a superset elsewhere still needs it)."""
    try:
        planned = [edits_for(trace, p, pushes) for p in pushes]
    except CannotPlace:
        return None
    kind = EQUIVALENT if all(k == EQUIVALENT for _, k, _ in planned) else SUPERSET
    edits: list[Edit] = []
    for placed, _, _ in planned:
        for e in placed:
            if isinstance(e, RemoveFilter) and kind != EQUIVALENT:
                continue
            if e not in edits:  # two equivalences remove the same late filter once
                edits.append(e)
    alias, _ = functions_alias(cells)
    try:
        rewritten = apply(cells, index_of, edits, alias)
    except (RewriteError, ValueError):  # a predicate without a PySpark form has no joint rewrite either
        return None
    return Together(pipeline, kind, tuple(CellChange(i, cells[i], src, _count_of(index_of, i))
                                          for i, src in sorted(rewritten.items())), len(pushes))


def _count_of(index_of: dict[int, int], index: int) -> int | None:
    """The count of the last traced execution of cell `index`: what its prompt shows."""
    return max((count for count, i in index_of.items() if i == index), default=None)


def _alternatives(trace: Trace, placed: _Placed, cells: list[str], index_of: dict[int, int],
                  peers: Sequence[Pushed] = ()) -> list[Suggestion]:
    """The same suggestion with each other proved predicate, for ranking on live data; one
    whose cells cannot be rewritten is left out."""
    found = []
    for g in placed.pushed.alternatives:
        try:
            edits, kind, source_event = edits_for(trace, replace(placed.pushed, predicate=g, alternatives=()), peers)
        except CannotPlace:
            continue
        found += _or_none(lambda: _written(trace, _Placed(replace(placed.pushed, predicate=g, alternatives=()),
                                                          tuple(edits), kind, source_event), cells, index_of))
    return found


def _source_name(trace: Trace, source_event: Event | None, cells: list[str], index_of: dict[int, int]) -> str:
    """What the user calls the DataFrame a filter goes on: the variable its call is assigned
    to, else the variable holding it, else its code (a step in the middle of a chain)."""
    if source_event is None:
        return "source"
    site = source_event.site
    source_cell = cells[index_of[site.execution_count]] if site and site.execution_count in index_of else ""
    held = trace.variable_of(source_event.id)
    if source_event.inputs:  # a DataFrame on the way, perhaps a step inside a chain
        code = trace.code_at(site)
        return held or (f"`{' '.join(code.split())}`" if code else "source")
    return (binding_name(source_cell, site) if site else None) or held or "source"
