"""Where in the user's code a proved predicate goes, and whether the late filter can go.

The walk proves a predicate for a source in the IR; the notebook holds code. A filter added at
the source's definition changes every DataFrame made from it, so it goes there only when
nothing but this pipeline reads the source (nor anything made from it on the way to the late
filter) and every later step runs whenever the definition does; otherwise each branch's own
predicate goes where that branch reads the source (paper, Section 5.1). The late filter is
removed only when it provably runs exactly when the added filters do, for this pipeline only.
Everything here reads the trace's DAG (`Trace`) and the cells' text; nothing runs.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Sequence

from magicpush_lab.capture.trace import SQL_TABLE_OP, VIEW_READERS, Event, Site, Trace
from magicpush_lab.ir import plan as P
from magicpush_lab.ir import expr as X
from magicpush_lab.ir.expr import TRUE
from magicpush_lab.pushdown.records import Pushed, Waypoint
from magicpush_lab.rewrite.cellparse import parse_cell
from magicpush_lab.rewrite.conditional import BlockPath, parsed_cell, runs_after, site_path, untraced_reads
from magicpush_lab.rewrite.edits import AddFilter, Edit, RemoveFilter
from magicpush_lab.rewrite.own_copy import NoCopy, own_copy
from magicpush_lab.rewrite.sql_text import NoSqlForm, predicate_sql, view_read
from magicpush_lab.translate.plan_json import PlanNodes
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET


class CannotPlace(Exception):
    """The proved predicate has no place in the user's code to go to."""


def edits_for(trace: Trace, pushed: Pushed, peers: Sequence[Pushed] = ()) -> tuple[list[Edit], str, Event]:
    """The code edits of one proved push, the kind they keep, and the source's event. `peers`
    are the other pushes of the same pipeline (a loop's sources may all take one filter)."""
    source_event = trace.event(pushed.source.origin)
    if source_event is None or source_event.site is None:
        raise CannotPlace("the source was not created by traced notebook code")
    edits, exact = _placements(trace, pushed, source_event)
    edits = _with_late_filter(trace, pushed, edits, exact, peers)
    return edits, _kind(edits), source_event


def edits_on_the_way(trace: Trace, pushed: Pushed, peers: Sequence[Pushed] = ()) -> tuple[list[Edit], str, Event,
                                                                                          Waypoint]:
    """When the source cannot take the filter because a DataFrame on the way also feeds other
    code (a `show()` of it, a plot, another pipeline): the filter that was proved where the walk
    passed that DataFrame, on this pipeline's own read of it (`joined.filter(G).withColumn(...)`),
    so everything else keeps reading every row. The DataFrame nearest the source whose read is
    this pipeline's own is chosen: the one that saves the most work. Raises CannotPlace, also
    when the walk found the filter unsafe on that DataFrame (`Waypoint.unsafe`)."""
    top = _top_event(pushed)
    region = _Region(trace, top)
    why = "no DataFrame on the way is read by this pipeline alone"
    for w in reversed(pushed.waypoints):  # nearest the source first
        event = trace.event(w.event)
        if w.predicate == TRUE or w.consumer == top or event is None:
            continue  # a filter right below the late one would only move it
        if not w.names_unique:
            why = f"a column the filter reads is named twice in {trace.variable_of(w.event) or 'a DataFrame'}"
            continue
        here = replace(pushed, source=P.Source(trace.variable_of(w.event) or event.op, (), w.event),
                       predicate=w.predicate, steps=w.steps, kind=w.kind, consumer=w.consumer,
                       via_input=w.via_input, may_hide_errors=w.may_hide_errors, alternatives=(), branches=(),
                       waypoints=())
        add, reason = region.at_read(here, event)
        if add is None:
            why = reason
            continue
        try:
            edits = _with_late_filter(trace, here, [add], True, peers)
        except CannotPlace as err:
            why = str(err)
            continue
        if w.unsafe != "":  # the walk's own check of this place (pushdown/guards.py); None: not made
            raise CannotPlace(w.unsafe or "the walk did not check the filter on this DataFrame")
        return edits, _kind(edits), event, w
    raise CannotPlace(why)


def edits_as_own_copy(trace: Trace, pushed: Pushed) -> tuple[list[Edit], str, Event]:
    """When neither the source nor a DataFrame on the way can take the filter: the late
    filter's pipeline copied before it, filtered at the read (rewrite/own_copy.py); the late
    filter stays. Raises CannotPlace."""
    top = _top_event(pushed)
    source_event = trace.event(pushed.source.origin)
    if source_event is None or top is None:
        raise CannotPlace("the source was not created by traced notebook code")
    if source_event.op == SQL_TABLE_OP:  # its read is inside the query's text, not a call to copy
        raise CannotPlace("its own copy: the source is read inside SQL text")
    path = _Region(trace, top)._between(source_event.id) - {top}
    try:
        copy = own_copy(trace, pushed, top, path)
    except NoCopy as err:
        raise CannotPlace(f"its own copy: {err}") from None
    return [copy], SUPERSET, source_event


def _with_late_filter(trace: Trace, pushed: Pushed, edits: list[Edit], exact: bool,
                      peers: Sequence[Pushed]) -> list[Edit]:
    """`edits`, checked against code that runs more than once, with the late filter's removal
    when the push keeps exactly its rows and the filter can be found."""
    why = _reruns(trace, edits, peers)
    if why is not None:
        raise CannotPlace(why)
    if _late_filter_removable(trace, pushed, edits, exact):
        edits = [*edits, RemoveFilter(trace.event(pushed.late_filter.origin).site)]
    return edits


def _kind(edits: list[Edit]) -> str:
    """An equivalence is kept only where the late filter goes: else the rewrite is a superset."""
    return EQUIVALENT if any(isinstance(e, RemoveFilter) for e in edits) else SUPERSET


def _late_filter_removable(trace: Trace, pushed: Pushed, edits: list[Edit], exact: bool) -> bool:
    if not exact or pushed.kind != EQUIVALENT:
        return False
    filter_event = trace.event(pushed.late_filter.origin)
    # proved equivalent, but the late filter may not be found to remove it, or it may run on a
    # path (a branch not taken) where the added filters do not, or its code may also run for
    # other DataFrames (a helper function, a loop) that keep needing it: then it stays
    return (filter_event is not None and filter_event.site is not None
            and filter_event.op.split(".")[-1] in ("filter", "where")
            and len(trace.runs_of(filter_event.site)) == 1
            and _same_blocks(trace, filter_event.site, [e.site for e in edits]))


def _placements(trace: Trace, pushed: Pushed, source_event: Event) -> tuple[list[Edit], bool]:
    """The filters to add, and whether every read of the source gets exactly its proved predicate.

    At the source's definition when nothing but this pipeline reads it (nor anything made from
    it on the way to the late filter) and every later step runs whenever the definition does;
    otherwise, and to split a disjunction among the branches of a source read several times,
    each branch's own predicate where that branch reads the source (paper, Section 5.1)."""
    if not pushed.branches:
        before_collect = _before_collect(trace, pushed, source_event)
        if before_collect is not None:
            return [before_collect], True
    region = _Region(trace, _top_event(pushed))
    if source_event.op == SQL_TABLE_OP:
        return [_in_sql_table(region, pushed, source_event)], True
    if _made_more_in_one_call(trace, source_event):
        if pushed.branches or pushed.predicate == TRUE:
            # each read's own filter would go inside the library call, where no code of the user's is
            raise CannotPlace("the pipeline reads the source more than once, and the reads are inside one call")
        return [_pandas_on_spark_read(trace, region, pushed, source_event)], True
    every = pushed.branches or (pushed,)
    branches = [b for b in every if b.predicate != TRUE]
    edits: list[Edit] = []
    why = region.why_not_at_source(source_event)
    if pushed.predicate != TRUE and why is None:
        edits.append(AddFilter(source_event.site, pushed.predicate, "call"))
        if len(branches) == len(every) and all(str(b.predicate) == str(pushed.predicate) for b in branches):
            return edits, True  # every read wants the same rows: the source's filter is theirs
    by_read: dict[tuple[int | None, int], list[Pushed]] = {}
    for b in every:
        by_read.setdefault((b.consumer, b.via_input), []).append(b)
    exact = True
    for group in by_read.values():
        wanted = [b for b in group if b.predicate != TRUE]
        if not wanted:
            continue
        if len(wanted) < len(group):
            exact = False
            why = why or "one read of the source feeds a branch that needs every row"
            continue
        at_read, reason = region.at_read(_one_read(wanted), source_event)
        if at_read is None:
            exact = False
            why = why or reason
            continue
        edits.append(at_read)
        if len({str(b.predicate) for b in wanted}) > 1:
            exact = False  # each branch gets the rows of every branch's predicate: the late filter stays
    if not edits:
        raise CannotPlace(why or "no place was found for the filter")
    return edits, exact


def _in_sql_table(region: "_Region", pushed: Pushed, source_event: Event) -> AddFilter:
    """The filter of a catalog table read inside a query's SQL text, written into that text."""
    if pushed.branches:
        raise CannotPlace("the query reads the table on more than one path")
    why = region.why_not_at_source(source_event)
    if why is not None:
        raise CannotPlace(why)
    try:
        predicate_sql(pushed.predicate)
    except NoSqlForm as err:
        raise CannotPlace(f"the predicate has no SQL form here ({err})") from None
    return AddFilter(source_event.site, pushed.predicate, "sql", view=source_event.args[0])


def _made_more_in_one_call(trace: Trace, source_event: Event) -> bool:
    """The call that read the source went on making DataFrames from it (library code: a
    pandas-on-Spark read adds its row-order column), so a filter after the call is not at the
    source. A cell's own chain (`spark.read.parquet(p).withColumn(...)`) has a site per call."""
    return any(e is not None and e.site == source_event.site
               for e in map(trace.event, trace.consumers().get(source_event.id, ())))


def _pandas_on_spark_read(trace: Trace, region: "_Region", pushed: Pushed, source_event: Event) -> AddFilter:
    """The filter for a source a pandas-on-Spark read made: on the frame's Spark form, right
    after the read, keeping the index the read gave (`index_col=`, as written). A read without
    `index_col=` numbers its rows with a default index, which the walk never gets past; one
    that picks columns (`columns=`) or takes its index from pandas metadata is not rewritten."""
    code = trace.code_at(source_event.site) or ""
    try:
        call = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        call = None
    func = getattr(call, "func", None)
    name = getattr(func, "attr", getattr(func, "id", ""))
    keywords = {k.arg: k.value for k in getattr(call, "keywords", ())}
    if not isinstance(call, ast.Call) or not name.startswith("read_") or "index_col" not in keywords:
        raise CannotPlace(f"`{code}` reads the source and makes more DataFrames from it in one call, and is not "
                          "a pandas-on-Spark read (ps.read_parquet, ps.read_csv, ...) with index_col=: a filter after it "
                          "would not be at the source")
    if {"columns", "pandas_metadata"} & set(keywords) or any(k is None for k in keywords):
        raise CannotPlace(f"`{code}` picks its columns or its index in a way the rewrite does not follow "
                          "(columns=, pandas_metadata=, **options)")
    why = _once(trace, source_event.site) or region.why_not_at_source(source_event)
    if why is not None:
        raise CannotPlace(why)
    return AddFilter(source_event.site, pushed.predicate, "pandas_on_spark", ast.unparse(keywords["index_col"]))


def _once(trace: Trace, site: Site | None) -> str | None:
    """Why the code at `site` may run more than once in its execution (None: it runs once):
    in a loop, a comprehension or a function. Several DataFrames made there then come from
    one run of one call."""
    cells = {c.execution_count: c.source for c in trace.cells}
    path = site_path(cells, site)
    if path is None or site is None:
        return "the trace has no source for the cell of the source's read"
    if any(block[3] == "loop" for block in path):
        return f"the source's read runs more than once ({_repeated_place(trace, site)})"
    if _enclosing_function(parse_cell(cells[site.execution_count]), site) is not None:
        return f"the source's read is in a function ({_repeated_place(trace, site)})"
    return None


def _one_read(branches: list[Pushed]) -> Pushed:
    """Branches that read the source through one call (`df = src.withColumn(...)` feeding two
    filters that meet again in a union): that read keeps the rows of any of them, the
    disjunction of their predicates (paper, Figure 7(3), one step up from the source)."""
    first = branches[0]
    renamed = [X.substitute(b.predicate, dict(zip(b.source.output, first.source.output))) for b in branches]
    return replace(first, predicate=X.or_(*dict.fromkeys(renamed)))


def _reruns(trace: Trace, edits: list[Edit], peers: Sequence[Pushed]) -> str | None:
    """Why a filter added where code runs more than once would reach rows of another run (None:
    it would not). A source's definition run several times (a loop, a helper called twice) may
    get the filter only when every DataFrame it made is a source proved to take that same filter
    at its definition: the reads of a loop's frames meeting in one union, say."""
    for edit in edits:
        if not isinstance(edit, AddFilter):
            continue
        runs = trace.runs_of(edit.site)
        if len(runs) <= 1 or edit.target == "pandas_on_spark":  # its one run made them all (_once)
            continue
        if edit.target != "call":
            return (f"the filter's place runs more than once ({_repeated_place(trace, edit.site)}) "
                    "for other DataFrames too")
        for run in runs:
            if not any(_filters_at_source(trace, p, run, edit) for p in peers):
                return (f"the source's code runs more than once ({_repeated_place(trace, edit.site)}), "
                        "and not every DataFrame it reads there can take the filter")
    return None


def _repeated_place(trace: Trace, site: Site) -> str:
    """Where code that runs more than once is, in the user's words: its loop and line, or the
    function it is in.

    >>> from magicpush_lab.capture.trace import Cell
    >>> t = Trace(cells=(Cell(4, "for p in paths:\\n    dfs.append(spark.read.parquet(p))"),))
    >>> _repeated_place(t, Site(4, 2, 15, 2, 39))
    'in the for loop of cell [4], line 1'
    """
    cells = {c.execution_count: c.source for c in trace.cells}
    tree = parse_cell(cells.get(site.execution_count, ""))
    for block in site_path(cells, site) or ():
        if block[3] == "loop" and tree is not None:
            kind = next((type(n).__name__ for n in ast.walk(tree)
                         if (getattr(n, "lineno", None), getattr(n, "col_offset", None)) == (block[1], block[2])
                         and isinstance(n, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp,
                                            ast.DictComp, ast.GeneratorExp))), "loop")
            what = {"For": "for loop", "AsyncFor": "for loop", "While": "while loop"}.get(kind, "comprehension")
            return f"in the {what} of cell [{site.execution_count}], line {block[1]}"
    function = _enclosing_function(tree, site)
    if function is not None:
        return f"in {getattr(function, 'name', 'a lambda')}() of cell [{site.execution_count}], called more than once"
    return f"code of cell [{site.execution_count}]"


def _enclosing_function(tree: ast.Module | None, site: Site) -> ast.AST | None:
    """The function or lambda of the cell whose code holds `site`, if any."""
    for n in ast.walk(tree) if tree is not None else ():
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and \
                (n.lineno, n.col_offset) <= (site.lineno, site.col_offset) and \
                (site.end_lineno, site.end_col_offset) <= (n.end_lineno, n.end_col_offset):
            return n
    return None


def _filters_at_source(trace: Trace, peer: Pushed, event_id: int, edit: AddFilter) -> bool:
    """Whether `peer` is proved for the source made as `event_id` and puts `edit` at its definition."""
    source = trace.event(event_id)
    if source is None or peer.source.origin != event_id or str(peer.predicate) != str(edit.predicate):
        return False
    try:
        placed, exact = _placements(trace, peer, source)
    except CannotPlace:
        return False
    key = (edit.site, edit.target, str(edit.predicate))
    return exact and any(isinstance(e, AddFilter) and (e.site, e.target, str(e.predicate)) == key for e in placed)


def _top_event(pushed: Pushed) -> int | None:
    """The event of the late filter, or of the join whose condition was pushed."""
    late = pushed.late_filter
    return late.origin if late.origin is not None else getattr(late.child, "origin", None)


def on_copied_path(trace: Trace, pushed: Pushed, event: int | None) -> bool:
    """Whether `event` is a step the pipeline's own copy for `pushed` copies: between the
    source's read and the late filter."""
    top, source = _top_event(pushed), pushed.source.origin
    if event is None or top is None or source is None:
        return False
    return event in _Region(trace, top)._between(source) - {top}


def _looks(actions: set[str]) -> str:
    """The actions of a DataFrame's looks, for a note: `count, fit`."""
    return ", ".join(sorted(actions))


class _Region:
    """The events from a source up to the late filter's event `top`, with their readers and
    their places among the notebook's conditional blocks."""

    def __init__(self, trace: Trace, top: int | None) -> None:
        self.trace, self.top = trace, top
        self.users = trace.consumers()
        self.inspected: dict[int, set[str]] = {}  # event -> its looks' actions (count, fit...)
        for i in trace.inspections:
            self.inspected.setdefault(i.event, set()).add(i.action)
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
                return f"a DataFrame on the way is also inspected ({_looks(self.inspected[x])}) on its own"
            if any(u not in self.above for u in self.users.get(x, ())):
                return "a DataFrame on the way feeds other code besides this pipeline"
        return None

    def _runs_after(self, start: int, site: Site) -> str | None:
        region = self._between(start)
        later = [self.trace.event(x).site for x in region if x != start]
        unknown = sorted({s.execution_count for s in [site, *later] if s is not None} - set(self.cells))
        if unknown:  # without the cell's text its blocks are unknown: say so, not "conditional"
            return f"the trace has no source for the cell that ran as execution {unknown}"
        if any(self.trace.event(x).op == "unknown" and self.trace.event(x).site is None for x in region if x != start):
            # a library's function making a DataFrame in the JVM: where in the cells it ran
            # (and under which condition) the trace cannot say
            return "a step of the pipeline was made by code the tracer does not see (a library calling the JVM)"
        paths = [self._building_loops_left_out(s, region | {self.top}) for s in later]
        if not runs_after(site_path(self.cells, site), paths):
            return ("a later step of the pipeline is in a conditional block (if/else, match, loop, try) "
                    "that the filter's place is not in: a path the trace did not see would get the filter")
        return None

    def _building_loops_left_out(self, site: Site | None, region: set[int]) -> BlockPath | None:
        """The step's block path without the loops that build this pipeline: a `for` loop (or a
        comprehension) whose every run of the step's code made a DataFrame of the pipeline, as
        `for i in range(K): df = df.withColumn(...)` does. Running again, such a loop makes the
        pipeline again; no run of it took another path the trace did not see."""
        path = site_path(self.cells, site)
        if path is None or site is None or not all(run in region for run in self.trace.runs_of(site)):
            return path
        return tuple(block for block in path if block[3] != "loop" or not self._for_loop(block))

    def _for_loop(self, block: tuple[int, int, int, str]) -> bool:
        """The block is a `for` loop or a comprehension (a `while` loop's runs depend on state)."""
        tree = parsed_cell(self.cells.get(block[0], ""))
        return tree is not None and any(
            isinstance(n, (ast.For, ast.AsyncFor, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
            and (n.lineno, n.col_offset) == (block[1], block[2]) for n in ast.walk(tree))

    def why_not_at_source(self, source: Event) -> str | None:
        if source.id in self.inspected:
            return f"the source is also inspected ({_looks(self.inspected[source.id])}) on its own"
        if self.top is None:  # the late filter's event is unknown: the source's readers alone decide
            return "the source feeds other code" if len(self.users.get(source.id, ())) > 1 else None
        why = self._closed(source.id) or self._runs_after(source.id, source.site)
        name = self.trace.variable_of(source.id)
        if why is None and name is not None:
            traced = [e.site for e in self.trace.events] + [i.site for i in self.trace.inspections]
            if untraced_reads(self.cells, name, traced):
                why = f"{name} is read in a conditional block the trace did not run"
        return why

    def at_read(self, branch: Pushed, source: Event) -> tuple[AddFilter | None, str]:
        """The branch's predicate on its own read of the source, or why it cannot go there."""
        consumer = self.trace.event(branch.consumer)
        if consumer is not None and consumer.site is not None and consumer.op == "sql" \
                and source.id in consumer.inputs and consumer.plan is not None and source.plan is not None:
            # a query may read several views: which read is the source's, its SQL text says
            return self._in_sql_text(branch, consumer, source)
        if consumer is None or consumer.site is None or branch.via_input != 0 \
                or consumer.inputs[:1] != (source.id,):
            return None, "the source feeds other code, and this pipeline's use of it was not found"
        if consumer.op in VIEW_READERS:
            return None, "the pipeline reads the source through a temp view (spark.sql / spark.table)"
        if self.top is not None:
            why = self._closed(consumer.id) or self._runs_after(consumer.id, consumer.site)
            if why is not None:
                return None, why
        return AddFilter(consumer.site, branch.predicate, "receiver"), ""


    def _in_sql_text(self, branch: Pushed, consumer: Event, source: Event) -> tuple[AddFilter | None, str]:
        """The predicate written into the query's SQL text where it reads the source's view."""
        nodes = PlanNodes(self.trace.plans)
        view = view_read(nodes.node(consumer.plan), nodes.node(source.plan).key)
        if view is None:
            return None, "the SQL text reads the source's temp view more than once, or not by its name"
        try:
            predicate_sql(branch.predicate)
        except NoSqlForm as err:
            return None, f"the predicate has no SQL form here ({err})"
        if self.top is not None:
            why = self._closed(consumer.id) or self._runs_after(consumer.id, consumer.site)
            if why is not None:
                return None, why
        return AddFilter(consumer.site, branch.predicate, "sql", view=view), ""


def _same_blocks(trace: Trace, late: Site, placed: list[Site]) -> bool:
    """The late filter runs exactly when each added filter does: the same conditional blocks."""
    cells = {c.execution_count: c.source for c in trace.cells}
    mine = site_path(cells, late)
    return mine is not None and all(site_path(cells, s) == mine for s in placed)


def _before_collect(trace: Trace, pushed: Pushed, source_event: Event) -> AddFilter | None:
    """A predicate for a collected table (RowIterPipeline) goes right before its `collect()`:
    `df_old.select(...).collect()` becomes `df_old.select(...).filter(G).collect()`, so only the
    list the UDF loops over changes. None when `pushed` is not such a predicate."""
    consumer = trace.event(pushed.consumer)
    if consumer is None or pushed.via_input != 1:
        return None
    names = [name for u in consumer.udfs for name, event in u.side_inputs if event == source_event.id]
    if not names:
        return None
    collects = [i for i in trace.inspections if i.event == source_event.id and i.action == "collect"]
    if len(collects) != 1 or collects[0].site is None:
        raise CannotPlace("the collected DataFrame is collected more than once, or where it is not known")
    # every UDF of the notebook tied to this collect(): one, the one the proof was made for
    udf_names = {u.function_name for e in trace.events for u in e.udfs
                 if any(event == source_event.id for _, event in u.side_inputs)}
    if len(udf_names) != 1:
        raise CannotPlace(f"{len(udf_names)} UDFs read the rows collected from this DataFrame")
    readers = _readers(trace, names[0], udf_names)
    if readers:
        # the filtered list replaces the old one for every reader of the variable
        raise CannotPlace(f"{names[0]} is also read outside the UDF (cell {readers[0]})")
    return AddFilter(collects[0].site, pushed.predicate, "receiver")


def _readers(trace: Trace, name: str, udf_names: set[str]) -> list[int]:
    """Executions whose code reads `name` other than inside the UDF's function definition."""
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
