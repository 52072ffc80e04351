"""The engine's front door: trace -> IR -> search/verify -> rewrite -> suggestions.

Measurement is not done here: it needs the live SparkSession, which lives in
the notebook's kernel (see `magicpush_lab.measure`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any, Collection, Sequence

from magicpush_lab.capture.trace import Event, Site, Trace
from magicpush_lab.ir.expr import TRUE
from magicpush_lab.ir.serialize import expr_to_json
from magicpush_lab.pipeline_graph import graph
from magicpush_lab.pushdown import Budget, Pushed, Refusal, filters_to_push, join_conjuncts, push_down_all
from magicpush_lab.rewrite.cells import RewriteError, apply, binding_name
from magicpush_lab.rewrite.edits import AddFilter, Edit, RemoveFilter
from magicpush_lab.rewrite.conditional import runs_after, site_path, untraced_reads
from magicpush_lab.rewrite.pyspark_code import functions_alias, to_pyspark
from magicpush_lab.suggestion import CellChange, ProofStep, Suggestion, Together
from magicpush_lab.translate.dataflow import (consumers, sink_paths, translate_event,
                                              VIEW_READERS, with_view_inputs)
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET


@dataclass(frozen=True)
class OptimizeResult:
    suggestions: tuple[Suggestion, ...]
    optimizer_seconds: float
    notes: tuple[str, ...] = ()  # why something was not pushed, for display
    # per pipeline with several suggestions: all of them as the one rewrite proved jointly
    together: tuple[Together, ...] = ()
    # what was not pushed, structured: {pipeline, operator, reason, candidate, counterexample}
    refusals: tuple[dict[str, Any], ...] = ()
    # each optimized pipeline as a graph of its calls (pipeline_graph.graph)
    pipelines: tuple[dict[str, Any], ...] = ()

    def to_json(self, notebook: str | None = None) -> dict[str, Any]:
        return {
            "notebook": notebook,
            "suggestions": [s.to_json() for s in self.suggestions],
            "together": [t.to_json() for t in self.together],
            "refusals": list(self.refusals),
            "pipelines": list(self.pipelines),
            "optimizer_seconds": round(self.optimizer_seconds, 4),
            "notes": list(self.notes),
        }


def optimize_trace(trace: Trace, notebook_cells: Sequence[str] | None = None,
                   *, time_budget: float = 10.0, all_pipelines: bool = False,
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
    otherwise one of `time_budget` seconds.
    all_pipelines: optimize every sink's pipeline, the longest first, within one time
    budget; notes then name the pipeline they are about. A suggestion two pipelines
    share (the same filter at the same source) is given once.
    """
    started = time.monotonic()
    trace = with_view_inputs(trace)  # spark.sql / spark.table over temp views read notebook DataFrames
    paths = sink_paths(trace)
    if only_sinks is not None:
        paths = [p for p in paths if p[-1].id in only_sinks]
    if not paths:
        return OptimizeResult((), time.monotonic() - started, ("no PySpark DataFrame was traced",))
    budget = budget if budget is not None else Budget(time_budget)
    found: dict[tuple, Suggestion] = {}
    notes: list[str] = []
    together: list[Together] = []
    refusals: list[dict[str, Any]] = []
    graphs: list[dict[str, Any]] = []
    for path in paths if all_pipelines else paths[:1]:
        name = pipeline_name(trace, path[-1])
        graphs.append(graph(trace, path[-1].id, name))
        got, why, joint = _optimize_plan(trace, translate_event(trace, path[-1].id), notebook_cells, cell_ids,
                                         budget, name, refusals)
        for s in got:
            found.setdefault((s.source_event, s.predicate, s.cells), _for_pipeline(s, name, path[-1].id))
        notes.extend(f"pipeline ending in {name}: {n}" if all_pipelines else n for n in why)
        together.extend(joint)
    return OptimizeResult(tuple(found.values()), time.monotonic() - started, tuple(notes), tuple(together),
                          tuple(refusals), tuple(graphs))


def _for_pipeline(s: Suggestion, name: str, sink: int) -> Suggestion:
    # alternatives too: ranking on live data may put one of them in the suggestion's place
    return replace(s, pipeline=name, sink_event=sink,
                   alternatives=tuple(replace(a, pipeline=name, sink_event=sink) for a in s.alternatives))


def pipeline_name(trace: Trace, sink: Event) -> str:
    """What the user calls a pipeline: the variable holding its last DataFrame, else the call
    and the execution it ran in."""
    name = _variable_of(trace, sink.id)
    if name is not None:
        return name
    where = f" in cell [{sink.site.execution_count}]" if sink.site is not None else ""
    return f"{sink.op.split('.')[-1]}(){where}"


def _optimize_plan(trace: Trace, plan, notebook_cells: Sequence[str] | None,
                   cell_ids: Sequence[str | None] | None, budget: Budget, name: str,
                   refusals: list[dict[str, Any]]) -> tuple[list[Suggestion], list[str], list[Together]]:
    """The suggestions for one pipeline's plan, notes on what was not pushed, and the joint
    rewrite when there are several; the walk's refusals are added to `refusals`."""
    if not filters_to_push(plan) and not join_conjuncts(plan):
        return [], ["the pipeline has no filter to push"], []
    walk = push_down_all(plan, budget)
    cells = list(notebook_cells) if notebook_cells is not None else _trace_cells(trace)
    index_of = _cell_index(trace, cells, cell_ids if notebook_cells is not None else None)
    notes = [_describe(r) for r in walk.refusals]
    refusals.extend(_refusal_json(r, name) for r in walk.refusals)
    suggestions = []
    for pushed in walk.pushed:
        try:
            suggestions.append(_suggestion(trace, pushed, cells, index_of, walk.pushed))
        except (RewriteError, _CannotPlace) as err:
            notes.append(f"{pushed.predicate}: proved, but the cells cannot be rewritten: {err}")
    if not walk.pushed and not notes:
        notes.append("nothing could be pushed")
    joint = _together(trace, walk.pushed, cells, index_of, name) if len(suggestions) > 1 else None
    return suggestions, notes, [joint] if joint is not None and joint.cells else []


class _CannotPlace(Exception):
    """The proved predicate has no place in the user's code to go to."""


def _edits(trace: Trace, pushed: Pushed, peers: Sequence[Pushed] = ()) -> tuple[list[Edit], str, Event]:
    """The code edits of one proved push, the kind they keep, and the source's event."""
    events = {e.id: e for e in trace.events}
    source_event = events.get(pushed.source.origin) if pushed.source.origin is not None else None
    if source_event is None or source_event.site is None:
        raise _CannotPlace("the source was not created by traced notebook code")
    edits, exact = _placements(trace, pushed, source_event, events)
    why = _reruns(trace, edits, peers, events)
    if why is not None:
        raise _CannotPlace(why)
    kind = pushed.kind if exact else SUPERSET
    filter_event = events.get(pushed.late_filter.origin) if pushed.late_filter.origin is not None else None
    if kind == EQUIVALENT:
        if filter_event is not None and filter_event.site is not None and \
                filter_event.op.split(".")[-1] in ("filter", "where") and \
                len(_runs_of(trace, filter_event.site)) == 1 and \
                _same_blocks(trace, filter_event.site, [e.site for e in edits]):
            edits.append(RemoveFilter(filter_event.site))
        else:
            # proved equivalent, but the late filter cannot be found to remove it, or it runs
            # on a path (a branch not taken) where the added filters do not, or its code also
            # runs for other DataFrames (a helper function, a loop) that keep needing it
            kind = SUPERSET
    return edits, kind, source_event


def _suggestion(trace: Trace, pushed: Pushed, cells: list[str], index_of: dict[int, int],
                peers: Sequence[Pushed] = ()) -> Suggestion:
    edits, kind, source_event = _edits(trace, pushed, peers)
    alias, _ = functions_alias(cells)
    rewritten = apply(cells, index_of, edits, alias)
    changes = tuple(CellChange(i, cells[i], src) for i, src in sorted(rewritten.items()))
    return Suggestion(
        source=_source_name(trace, source_event, cells, index_of),
        predicate=to_pyspark(pushed.predicate, alias),
        kind=kind,
        proof=tuple(ProofStep(s.operator, s.category, s.base_case_rows, s.kind) for s in pushed.steps),
        cells=changes,
        source_event=source_event.id,
        predicate_ir=expr_to_json(pushed.predicate),
        may_hide_errors=pushed.may_hide_errors,
        alternatives=tuple(_alternatives(trace, pushed, cells, index_of, peers)),
        late_filter_event=pushed.late_filter.origin,
        late_filter_cell=_late_filter_cell(trace, pushed, index_of),
    )


def _late_filter_cell(trace: Trace, pushed: Pushed, index_of: dict[int, int]) -> int | None:
    """The notebook position of the cell whose code holds the late filter, if it is still there."""
    origin = pushed.late_filter.origin
    event = next((e for e in trace.events if e.id == origin), None) if origin is not None else None
    if event is None or event.site is None:
        return None
    return index_of.get(event.site.execution_count)


def _together(trace: Trace, pushes: Sequence[Pushed], cells: list[str], index_of: dict[int, int],
              pipeline: str) -> Together | None:
    """All of one pipeline's pushes as one rewrite, the way the walk proved them: the late filter
    goes only if every push is an equivalence (a superset elsewhere still needs it)."""
    try:
        planned = [_edits(trace, p, pushes) for p in pushes]
    except _CannotPlace:
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
    except RewriteError:
        return None
    return Together(pipeline, kind, tuple(CellChange(i, cells[i], src) for i, src in sorted(rewritten.items())),
                    len(pushes))


def _alternatives(trace: Trace, pushed: Pushed, cells: list[str], index_of: dict[int, int],
                  peers: Sequence[Pushed] = ()) -> list[Suggestion]:
    """The same suggestion with each other proved predicate, for ranking on live data; one
    whose cells cannot be rewritten is left out."""
    found = []
    for g in pushed.alternatives:
        try:
            found.append(_suggestion(trace, replace(pushed, predicate=g, alternatives=()), cells, index_of, peers))
        except (RewriteError, _CannotPlace, ValueError):
            continue
    return found


def _source_name(trace: Trace, source_event: Event, cells: list[str], index_of: dict[int, int]) -> str:
    site = source_event.site
    source_cell = cells[index_of[site.execution_count]] if site and site.execution_count in index_of else ""
    return (binding_name(source_cell, site) if site else None) or _variable_of(trace, source_event.id) or "source"


def _placements(trace: Trace, pushed: Pushed, source_event: Event,
                events: dict[int, Event]) -> tuple[list[Edit], bool]:
    """The filters to add, and whether every read of the source gets exactly its proved predicate.

    At the source's definition when nothing but this pipeline reads it (nor anything made from
    it on the way to the late filter) and every later step runs whenever the definition does;
    otherwise, and to split a disjunction among the branches of a source read several times,
    each branch's own predicate where that branch reads the source (paper, Section 5.1)."""
    if not pushed.branches:
        before_collect = _before_collect(trace, pushed, source_event, events)
        if before_collect is not None:
            return [before_collect], True
    region = _Region(trace, events, _top_event(pushed))
    every = pushed.branches or (pushed,)
    branches = [b for b in every if b.predicate != TRUE]
    edits: list[Edit] = []
    why = region.why_not_at_source(source_event)
    if pushed.predicate != TRUE and why is None:
        edits.append(AddFilter(source_event.site, pushed.predicate, "call"))
        if len(branches) == len(every) and all(str(b.predicate) == str(pushed.predicate) for b in branches):
            return edits, True  # every read wants the same rows: the source's filter is theirs
    reads = [(b.consumer, b.via_input) for b in every]
    exact = True
    for b in branches:
        at_read, reason = region.at_read(b, source_event, reads.count((b.consumer, b.via_input)) == 1)
        if at_read is None:
            exact = False
            why = why or reason
        else:
            edits.append(at_read)
    if not edits:
        raise _CannotPlace(why or "no place was found for the filter")
    return edits, exact


def _runs_of(trace: Trace, site: Site | None) -> list[int]:
    """Events and inspections made by the code at `site`: more than one when it sits in a loop or
    a function called several times, and an edit there changes every one of them."""
    if site is None:
        return []
    return [e.id for e in trace.events if e.site == site] + \
        [-1 - k for k, i in enumerate(trace.inspections) if i.site == site]


def _reruns(trace: Trace, edits: list[Edit], peers: Sequence[Pushed], events: dict[int, Event]) -> str | None:
    """Why a filter added where code runs more than once would reach rows of another run (None:
    it would not). A source's definition run several times (a loop, a helper called twice) may
    get the filter only when every DataFrame it made is a source proved to take that same filter
    at its definition: the reads of a loop's frames meeting in one union, say."""
    for edit in edits:
        if not isinstance(edit, AddFilter):
            continue
        runs = _runs_of(trace, edit.site)
        if len(runs) <= 1:
            continue
        if edit.target != "call":
            return "the filter's place runs more than once (a loop or a helper function) for other DataFrames too"
        for run in runs:
            if not any(_filters_at_source(trace, p, run, edit, events) for p in peers):
                return ("the source's code runs more than once (a loop or a helper function) and "
                        "not every DataFrame it makes can take the filter")
    return None


def _filters_at_source(trace: Trace, peer: Pushed, event_id: int, edit: AddFilter,
                       events: dict[int, Event]) -> bool:
    """Whether `peer` is proved for the source made as `event_id` and puts `edit` at its definition."""
    if peer.source.origin != event_id or str(peer.predicate) != str(edit.predicate):
        return False
    try:
        placed, exact = _placements(trace, peer, events[event_id], events)
    except _CannotPlace:
        return False
    key = (edit.site, edit.target, str(edit.predicate))
    return exact and any(isinstance(e, AddFilter) and (e.site, e.target, str(e.predicate)) == key for e in placed)


def _top_event(pushed: Pushed) -> int | None:
    """The event of the late filter, or of the join whose condition was pushed."""
    late = pushed.late_filter
    return late.origin if late.origin is not None else getattr(late.child, "origin", None)


class _Region:
    """The events from a source up to the late filter's event `top`, with their readers and
    their places among the notebook's conditional blocks."""

    def __init__(self, trace: Trace, events: dict[int, Event], top: int | None) -> None:
        self.trace, self.events, self.top = trace, events, top
        self.users = consumers(trace)
        self.inspected = {i.event for i in trace.inspections}
        self.cells = {c.execution_count: c.source for c in trace.cells}
        self.above = trace.ancestors(top) if top is not None else frozenset()

    def _between(self, start: int) -> set[int]:
        """`start` and the events made from it that the late filter's event is made from."""
        out: set[int] = set()
        stack = [start]
        while stack:
            cur = stack.pop()
            if cur in out or cur not in self.above:
                continue
            out.add(cur)
            stack.extend(self.users.get(cur, ()))
        return out

    def _closed(self, start: int) -> str | None:
        """Why rows filtered at `start` would reach code besides this pipeline (None: they would not)."""
        for x in sorted(self._between(start) - {self.top}):
            if x in self.inspected:
                return "a DataFrame on the way is also inspected (count, show...) on its own"
            if any(u not in self.above for u in self.users.get(x, ())):
                return "a DataFrame on the way feeds other code besides this pipeline"
        return None

    def _runs_after(self, start: int, site: Site) -> str | None:
        later = [self.events[x].site for x in self._between(start) if x != start]
        unknown = sorted({s.execution_count for s in [site, *later] if s is not None} - set(self.cells))
        if unknown:  # without the cell's text its blocks are unknown: say so, not "conditional"
            return f"the trace has no source for the cell that ran as execution {unknown}"
        if not runs_after(site_path(self.cells, site), [site_path(self.cells, s) for s in later]):
            return ("a later step of the pipeline is in a conditional block (if/else, match, loop, try) "
                    "that the filter's place is not in: a path the trace did not see would get the filter")
        return None

    def why_not_at_source(self, source: Event) -> str | None:
        if source.id in self.inspected:
            return "the source is also inspected on its own"
        if self.top is None:  # the late filter's event is unknown: the source's readers alone decide
            return "the source feeds other code" if len(self.users.get(source.id, ())) > 1 else None
        why = self._closed(source.id) or self._runs_after(source.id, source.site)
        name = _variable_of(self.trace, source.id)
        if why is None and name is not None:
            traced = [e.site for e in self.trace.events] + [i.site for i in self.trace.inspections]
            if untraced_reads(self.cells, name, traced):
                why = f"{name} is read in a conditional block the trace did not run"
        return why

    def at_read(self, branch: Pushed, source: Event, alone: bool) -> tuple[AddFilter | None, str]:
        """The branch's predicate on its own read of the source, or why it cannot go there."""
        consumer = self.events.get(branch.consumer) if branch.consumer is not None else None
        if consumer is None or consumer.site is None or branch.via_input != 0 \
                or consumer.inputs[:1] != (source.id,):
            return None, "the source feeds other code, and this pipeline's use of it was not found"
        if consumer.op in VIEW_READERS:
            return None, "the pipeline reads the source through a temp view (spark.sql / spark.table)"
        if not alone:
            return None, "one read of the source feeds several branches"
        if self.top is not None:
            why = self._closed(consumer.id) or self._runs_after(consumer.id, consumer.site)
            if why is not None:
                return None, why
        return AddFilter(consumer.site, branch.predicate, "receiver"), ""


def _same_blocks(trace: Trace, late: Site, placed: list[Site]) -> bool:
    """The late filter runs exactly when each added filter does: the same conditional blocks."""
    cells = {c.execution_count: c.source for c in trace.cells}
    mine = site_path(cells, late)
    return mine is not None and all(site_path(cells, s) == mine for s in placed)


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


def _cell_index(trace: Trace, cells: list[str], ids: Sequence[str | None] | None = None) -> dict[int, int]:
    """Execution count -> notebook index, for executions whose code is still in the notebook.

    A cell edited since it ran has no index: the trace's positions point into the old code.
    Two cells with the same code are told apart by id only; guessing could put the filter
    in a cell that runs before the one whose DataFrame the pipeline reads.

    >>> from magicpush_lab.capture.trace import Cell
    >>> t = Trace(cells=(Cell(1, "a = 1", "x"), Cell(2, "b = 2", None), Cell(3, "a = 1", None)))
    >>> _cell_index(t, ["a = 1", "b = 2", "a = 1"], ["x", "y", "z"])
    {1: 0, 2: 1}
    """
    out = {}
    by_id = {cell_id: i for i, cell_id in enumerate(ids or ()) if cell_id}
    for c in trace.cells:
        if c.cell_id and c.cell_id in by_id:
            i = by_id[c.cell_id]
            if cells[i] == c.source:
                out[c.execution_count] = i
        elif cells.count(c.source) == 1:
            out[c.execution_count] = cells.index(c.source)
    return out


def _variable_of(trace: Trace, event_id: int) -> str | None:
    names = [n for n, e in trace.variables.items() if e == event_id]
    return names[0] if names else None


def _refusal_json(r: Refusal, pipeline: str) -> dict[str, Any]:
    """A refusal for the JSON result: counterexample rows with plain JSON values.

    >>> _refusal_json(Refusal("GroupBy", "no candidate", "x > 1", {"input 1": [{"x": 1.5, "d": object}]}), "out")
    {'pipeline': 'out', 'operator': 'GroupBy', 'reason': 'no candidate', 'candidate': 'x > 1', 'counterexample': {'input 1': [{'x': 1.5, 'd': "<class 'object'>"}]}}
    """
    def plain(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)  # JSON has no NaN or infinity
        return v if v is None or isinstance(v, (bool, int, float, str)) else str(v)

    tables = {str(name): [{str(k): plain(v) for k, v in row.items()} for row in rows]
              for name, rows in (r.counterexample or {}).items()}
    return {"pipeline": pipeline, "operator": r.operator, "reason": r.reason, "candidate": r.candidate,
            "counterexample": tables}


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
