"""The stage after the walk: each proved filter placed in the user's code and written as a
suggestion, the joint rewrite of a pipeline, and the notes on what could not be written.

The walk (pushdown/) proves the predicates and, for each DataFrame a filter passed, whether
the filter may go there; placement.py finds each filter's place in the cells, cells.py
writes them, notes.py words what did not move; the suggestions are suggestion.py's JSON
contract. Nothing here proves anything: a push that cannot be written is a note, never a
weaker suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from magicpush_lab.capture.trace import SQL_TABLE_OP, Event, Inspection, Trace
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.serialize import expr_to_json
from magicpush_lab.pushdown.records import AlreadyFiltered, Pushed, WalkResult
from magicpush_lab.rewrite import notes
from magicpush_lab.rewrite.cells import RewriteError, apply, binding_name
from magicpush_lab.rewrite.edits import AddFilter, Edit, OwnCopy, RemoveFilter, merged_copies
from magicpush_lab.rewrite.placement import (CannotPlace, edits_as_own_copy, edits_for, edits_on_the_way,
                                             on_copied_path)
from magicpush_lab.rewrite.pyspark_code import functions_alias, to_pyspark
from magicpush_lab.search.simplify import simplest
from magicpush_lab.suggestion import CellChange, OptimizeResult, ProofStep, Suggestion, Together
from magicpush_lab.translate.pandas_tail import PandasTail
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET

JOINT_SIMPLIFY_MS = 1000  # proving the conjunction of a place's pushes has a smaller form


@dataclass(frozen=True)
class Assembled:
    """What the stage after the walk makes of one pipeline: its suggestions, the notes on what
    was not pushed or not written, the joint rewrite when there are several suggestions, and
    the walk's refusals as JSON (notes.refusal_json)."""

    suggestions: tuple[Suggestion, ...] = ()
    notes: tuple[str, ...] = ()
    together: tuple[Together, ...] = ()
    refusals: tuple[dict[str, Any], ...] = ()
    already: tuple[dict[str, Any], ...] = ()  # notes.already_json: filters in place, not offered again
    left_behind: tuple[dict[str, Any], ...] = ()  # notes.left_behind_json: conjuncts that stayed, and why

    def for_pipeline(self, name: str, sink: int) -> "Assembled":
        """Each suggestion naming the pipeline it is for and the event of its last DataFrame."""
        return replace(self, suggestions=tuple(_for_pipeline(s, name, sink) for s in self.suggestions))

    def named(self, name: str) -> "Assembled":
        """Each note, a refusal's too, saying which of several pipelines it is about."""
        return replace(self, notes=tuple(notes.in_pipeline(name, n) for n in self.notes),
                       refusals=tuple({**r, "note": notes.in_pipeline(name, r["note"])} if r.get("note")
                                      else r for r in self.refusals),
                       already=tuple({**a, "note": notes.in_pipeline(name, a["note"])} for a in self.already),
                       left_behind=tuple({**b, "note": notes.in_pipeline(name, b["note"])} for b in self.left_behind))


def joined(parts: Sequence[Assembled], seconds: float,
           graphs: Sequence[dict[str, Any]] = ()) -> OptimizeResult:
    """The result of every pipeline's part, in their order. A suggestion two pipelines share
    (the same filter at the same source, written the same) is given once, as the first had it.

    >>> s = Suggestion("t", "x > 1", "superset", (), (), 0, {})
    >>> r = joined([Assembled((s,), ("a",)), Assembled((replace(s, pipeline="b"),), ("b",))], 0.5)
    >>> [x.pipeline for x in r.suggestions], r.notes
    ([None], ('a', 'b'))
    """
    found: dict[tuple, Suggestion] = {}
    for part in parts:
        for s in part.suggestions:
            found.setdefault((s.source_event, s.predicate, s.cells), s)
    return OptimizeResult(tuple(found.values()), seconds, tuple(n for p in parts for n in p.notes),
                          tuple(t for p in parts for t in p.together),
                          tuple(r for p in parts for r in p.refusals), tuple(graphs),
                          already_applied=tuple(a for p in parts for a in p.already),
                          left_behind=tuple(b for p in parts for b in p.left_behind))


def _for_pipeline(s: Suggestion, name: str, sink: int) -> Suggestion:
    # alternatives too: ranking on live data may put one of them in the suggestion's place
    return replace(s, pipeline=name, sink_event=sink,
                   alternatives=tuple(replace(a, pipeline=name, sink_event=sink) for a in s.alternatives))


def assemble(trace: Trace, plan: P.Plan, walk: WalkResult, cells: list[str], index_of: dict[int, int],
             name: str) -> Assembled:
    """What the walk of pipeline `name`'s plan comes to in the user's code: a suggestion per
    place a proved filter goes (the pushes that go to one place as one), a note for each step
    that stopped a filter and each proved filter that could not be written, the joint rewrite
    when there are several suggestions, and the refusals as JSON."""
    said, refusals = notes.refusal_notes(trace, walk.refusals, plan, name)
    placed = []
    for pushed in walk.pushed:
        try:
            placed.append(_place(trace, pushed, walk.pushed))
        except CannotPlace as err:
            said.append(notes.not_rewritten(notes.proved_text(pushed), err))
            continue
        if placed[-1].not_at_source:
            source = _source_name(trace, trace.event(pushed.source.origin), cells, index_of)
            read = _source_name(trace, placed[-1].source_event, cells, index_of)
            said.append(notes.on_the_way(pushed.predicate, source, placed[-1].not_at_source, read))
    suggestions = []
    writable = []
    for p in placed:
        try:
            to_pyspark(p.pushed.predicate)
            writable.append(p)
        except ValueError as err:  # a function with no PySpark form (rewrite/pyspark_column.py)
            said.append(notes.not_pyspark(p.pushed.predicate, err))
    for group in _same_place(writable):
        try:
            suggestions.append(_suggestion(trace, group, cells, index_of, walk.pushed))
        except RewriteError as err:
            said.append(notes.not_rewritten(_predicate(group), err))
        except ValueError as err:  # a function with no PySpark form (rewrite/pyspark_column.py)
            said.append(notes.not_pyspark(_predicate(group), err))
    already = in_place(trace, walk.already, name, cells)
    said.extend(a["note"] for a in already)
    alias, _ = functions_alias(cells)
    behind = tuple(notes.left_behind_json(trace, walk.left_behind, name, lambda g: to_pyspark(g, alias)))
    said.extend(b["note"] for b in behind)
    if not walk.pushed and not said:
        said.append(notes.NOTHING_PUSHED)
    joint = _together(trace, walk.pushed, cells, index_of, name) if len(suggestions) > 1 else None
    return Assembled(tuple(suggestions), tuple(said), (joint,) if joint is not None and joint.cells else (),
                     tuple(refusals), tuple(already), behind)


def after_to_pandas(trace: Trace, call: Inspection, tail: PandasTail, g: X.Expr, collected: P.Plan,
                    walked: Assembled, cells: list[str], index_of: dict[int, int]) -> Assembled:
    """What the walk from a pandas filter after `toPandas()` comes to (`walked`: its Spark
    counterpart `g` pushed from the DataFrame `collected`, which the call collects). When it
    moved nowhere, `g` goes right before the call. The late filter each suggestion names is
    the pandas one, in its cell (where a banner goes); it stays."""
    got, said = list(walked.suggestions), list(walked.notes)
    if not got:
        try:
            got = [_before_collecting(trace, call, g, collected, cells, index_of)]
            said = [notes.before_collecting_instead(n) for n in said]
        except (RewriteError, ValueError) as err:
            said.append(notes.collect_not_rewritten(g, err))
    late = dict(late_predicate=tail.filter_statement.code, late_filter_in_pandas=True,
                late_filter_cell=index_of.get(tail.filter_statement.execution_count))
    got = [replace(s, **late, alternatives=tuple(replace(a, **late) for a in s.alternatives)) for s in got]
    return replace(walked, suggestions=tuple(got), notes=tuple(notes.on_pandas_filter(tail, n) for n in said))


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
    """Where `pushed` goes (`_placed`), as edits that each filter some rows: a filter that keeps
    every row (a source read by several branches, one of which no filter reached, so that the
    reads' predicates together are TRUE) is no suggestion. Raises CannotPlace."""
    placed = _placed(trace, pushed, peers)
    edits = tuple(e for e in placed.edits if not (isinstance(e, AddFilter) and e.predicate == X.TRUE))
    if not any(isinstance(e, (AddFilter, OwnCopy)) for e in edits):
        raise CannotPlace("a read of the source that no filter reached keeps every row, so the one filter "
                          "at the source would keep every row too")
    return replace(placed, edits=edits)


def _placed(trace: Trace, pushed: Pushed, peers: Sequence[Pushed]) -> _Placed:
    """Where `pushed` goes: at its source, else on the pipeline's own read of a DataFrame on
    the way (rewrite/placement.py). Raises CannotPlace with the source's reason first."""
    try:
        edits, kind, source_event = edits_for(trace, pushed, peers)
        return _Placed(pushed, tuple(edits), kind, source_event)
    except CannotPlace as at_source:
        if pushed.branches:
            return _own_copy_of_reads(trace, pushed, str(at_source))
        reason = str(at_source)
    try:
        if not pushed.waypoints:
            raise CannotPlace("no DataFrame on the way was proved to take a filter")
        edits, kind, source_event, at = edits_on_the_way(trace, pushed, peers)
    except CannotPlace as on_the_way:
        try:  # the last resort: the pipeline's own copy, filtered at the read
            edits, kind, source_event = edits_as_own_copy(trace, pushed)
        except CannotPlace as copied:
            raise CannotPlace(f"{reason}; on the way: {on_the_way}; {copied}") from None
        return _Placed(replace(pushed, kind=kind, alternatives=()), tuple(edits), kind, source_event, reason)
    if _calls_udfs_its_source_does_not(trace, at.event, pushed.source.origin):
        try:  # every row read would still pay those UDFs: the own copy filters before them
            copied, kind, source_event = edits_as_own_copy(trace, pushed)
            return _Placed(replace(pushed, kind=kind, alternatives=()), tuple(copied), kind, source_event, reason)
        except CannotPlace:
            pass
    return _Placed(replace(pushed, predicate=at.predicate, steps=at.steps, kind=kind,
                           may_hide_errors=at.may_hide_errors, alternatives=()), tuple(edits), kind, source_event,
                   reason)


def _calls_udfs_its_source_does_not(trace: Trace, waypoint: int, source: int | None) -> bool:
    """Whether the DataFrame on the way calls a Python UDF its source does not: a filter on
    its own read leaves that UDF running on every row the source hands on."""
    at, read = trace.event(waypoint), trace.event(source) if source is not None else None
    return at is not None and read is not None and bool({u.name for u in at.udfs} - {u.name for u in read.udfs})


def _own_copy_of_reads(trace: Trace, pushed: Pushed, reason: str) -> _Placed:
    """A source read more than once on the way (one DataFrame feeding both sides of a join,
    say), where every read was proved to take the same predicate: the pipeline's own copy,
    its one source filtered by it, is each read filtered by it. Different predicates per read
    are not copied: one filter at the copy's source would give a read rows it was not proved for."""
    renamed = {_int_casts_folded(X.substitute(b.predicate, dict(zip(b.source.output, pushed.source.output))))
               for b in pushed.branches}
    if len(renamed) != 1 or X.TRUE in renamed or any(b.source.origin != pushed.source.origin
                                                      for b in pushed.branches):
        raise CannotPlace(reason)
    one = replace(pushed, predicate=renamed.pop(), branches=())
    try:
        edits, kind, source_event = edits_as_own_copy(trace, one)
    except CannotPlace as copied:
        raise CannotPlace(f"{reason}; {copied}") from None
    return _Placed(replace(one, kind=kind, alternatives=()), tuple(edits), kind, source_event, reason)


def _int_casts_folded(e: X.Expr) -> X.Expr:
    """`e` with each integer constant cast to a double written as the double (exact below 2**53),
    so that one read's `v >= cast(5 as double)` and another's `v >= 5.0` are seen to be the same.

    >>> str(_int_casts_folded(X.Cmp(">=", X.Col("v", 1, "double"), X.Cast(X.Lit(5, "int"), "double"))))
    'v >= 5.0'
    """
    def fold(node: X.Expr) -> X.Expr | None:
        if (isinstance(node, X.Cast) and node.dtype in ("double", "float") and isinstance(node.arg, X.Lit)
                and type(node.arg.value) is int and abs(node.arg.value) < 2 ** 53):
            return X.Lit(float(node.arg.value), node.dtype)
        return None
    return X.transform(e, fold)


def _same_place(placed: Sequence[_Placed]) -> list[list[_Placed]]:
    """Pushes grouped by the one place their filter goes to (several proved parts of late
    filters reaching one read), in the walk's order; a push split among branches stays alone."""
    groups: dict[object, list[_Placed]] = {}
    for i, p in enumerate(placed):
        adds = [(e.site, e.target) for e in p.edits if isinstance(e, AddFilter)]
        groups.setdefault(tuple(adds) if len(adds) == 1 and not p.pushed.branches else i, []).append(p)
    return list(groups.values())


def _predicate(group: Sequence[_Placed]) -> X.Expr:
    """The group's predicates ANDed in the order their late filters were written, each conjunct
    once by its text: the code names columns, and two pushes to one place may carry one column
    under two ids (reads of one table by two branches)."""
    ordered = sorted(group, key=lambda p: (p.pushed.late_filter.origin is None, p.pushed.late_filter.origin or 0))
    first: dict[str, X.Expr] = {}
    for p in ordered:
        for c in X.conjuncts(p.pushed.predicate):
            first.setdefault(str(c), c)
    # each part was simplified alone; together, one may imply another (`a | b | c` and `a`)
    return simplest(X.and_(*first.values()), JOINT_SIMPLIFY_MS)


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
    predicate = _predicate(group)
    edits: list[Edit] = [replace(add, predicate=predicate)]
    for p in group:
        edits += [e for e in p.edits if isinstance(e, RemoveFilter) and e not in edits]
    steps: list = []
    for p in group:
        steps += [s for s in p.pushed.steps if s not in steps]
    kind = EQUIVALENT if all(p.kind == EQUIVALENT for p in group) else SUPERSET
    pushed = replace(first.pushed, predicate=predicate, steps=tuple(steps), kind=kind,
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
    added = {e.predicate for e in placed.edits if isinstance(e, AddFilter)}
    if pushed.predicate == X.TRUE and len(added) == 1:
        # a source read by several branches, filtered on one read only: that read's filter is
        # what the suggestion does (the reads' disjunction, TRUE, would say it does nothing)
        pushed = replace(pushed, predicate=added.pop())
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


def in_place(trace: Trace, found: Sequence[AlreadyFiltered], name: str, cells: list[str]
             ) -> tuple[dict[str, Any], ...]:
    """The filters of pipeline `name` that are in place already (notes.already_json), each
    predicate written as the notebook's own code would write it."""
    alias, _ = functions_alias(cells)
    return tuple(notes.already_json(trace, found, name, lambda g: to_pyspark(g, alias)))


def _late_filter_cell(trace: Trace, pushed: Pushed, index_of: dict[int, int]) -> int | None:
    """The notebook position of the cell whose code holds the late filter, if it is still there."""
    event = trace.event(pushed.late_filter.origin)
    if event is None or event.site is None:
        return None
    return index_of.get(event.site.execution_count)


def _together(trace: Trace, pushes: Sequence[Pushed], cells: list[str], index_of: dict[int, int],
              pipeline: str) -> Together | None:
    """All of one pipeline's pushes as one rewrite, the way the walk proved them: the late filter
    goes only if every push is an equivalence (a superset elsewhere still needs it) and every
    push can be written; those that cannot are left out (each push holds for whatever the
    other reads give, so the rest still hold together)."""
    placed_by_push = []
    for p in pushes:  # each where its own suggestion puts it: the source, the way, or the pipeline's own copy
        try:
            placed_by_push.append((p, _place(trace, p, pushes)))
        except CannotPlace:
            continue  # the others still hold together; the late filter then stays
    planned = [(placed.edits, placed.kind, placed.source_event)
               for placed in _copies_take_their_peers(trace, placed_by_push)]
    if len(placed_by_push) < 2:
        return None
    every = len(placed_by_push) == len(pushes)
    kind = EQUIVALENT if every and all(k == EQUIVALENT for _, k, _ in planned) else SUPERSET
    edits: list[Edit] = []
    for placed, _, _ in planned:
        for e in placed:
            if isinstance(e, RemoveFilter) and kind != EQUIVALENT:
                continue
            if e not in edits:  # two equivalences remove the same late filter once
                edits.append(e)
    edits = _one_copy_per_late_filter(edits)
    alias, _ = functions_alias(cells)
    try:
        rewritten = apply(cells, index_of, edits, alias)
    except (RewriteError, ValueError):  # a predicate without a PySpark form has no joint rewrite either
        return None
    return Together(pipeline, kind, tuple(CellChange(i, cells[i], src, _count_of(index_of, i))
                                          for i, src in sorted(rewritten.items())), len(placed_by_push))


def _copies_take_their_peers(trace: Trace, placed: Sequence[tuple[Pushed, _Placed]]) -> list[_Placed]:
    """The placed pushes, where one went to the pipeline's own copy and others from the same
    source, for the same late filter or for a filter among the copied steps (a `dropna`, an
    earlier `filter`), went elsewhere (on the way, past a DataFrame other code reads): the copy
    filters its read by all their predicates. The pipeline reads only the copy, so a filter left
    on the original steps alone would save it nothing; those edits stay, for the other code that
    reads those steps (and so that another pipeline's joint rewrite of the same cells agrees).

    Sound by composition: each predicate was proved at the source, for every table the source
    may hold, to keep what its own late filter passes; that filter is the copy's or one of its
    copied steps, whose output is all the copy reads of the path below it. So each holds for the
    source already filtered by the others. The copy keeps the late filter (a superset rewrite),
    and copies the other filters as they are written, so no equivalence need hold. When the copy
    cannot take the conjunction, everything stays as it was placed."""
    out = [q for _, q in placed]
    for i, (pushed, q) in enumerate(placed):
        if not any(isinstance(e, OwnCopy) for e in q.edits) or pushed.branches:
            continue
        peers = [j for j, (other, r) in enumerate(placed)
                 if j != i and not other.branches and not any(isinstance(e, OwnCopy) for e in r.edits)
                 and other.source.origin == pushed.source.origin
                 and (other.late_filter.origin == pushed.late_filter.origin
                      or on_copied_path(trace, pushed, other.late_filter.origin))]
        if not peers:
            continue
        both = X.and_(*dict.fromkeys(c for k in (i, *peers) for c in X.conjuncts(placed[k][0].predicate)))
        try:
            edits, kind, source_event = edits_as_own_copy(trace, replace(q.pushed, predicate=both))
        except CannotPlace:
            continue
        steps = tuple(dict.fromkeys(s for k in (i, *peers) for s in placed[k][0].steps))
        out[i] = _Placed(replace(q.pushed, predicate=both, steps=steps, kind=kind), tuple(edits), kind,
                         source_event, q.not_at_source)
    return out


def _one_copy_per_late_filter(edits: list[Edit]) -> list[Edit]:
    """The pipeline's own copies of one late filter (each filtering another source's read) as
    one copy filtering every read; left as they are when they cannot be one (edits.merged_copies).
    Each push was proved for every table the other reads give, so the reads filter together."""
    copies: dict[object, list[OwnCopy]] = {}
    for e in edits:
        if isinstance(e, OwnCopy):
            copies.setdefault(e.site, []).append(e)
    merged = {site: merged_copies(group) for site, group in copies.items() if len(group) > 1}
    out: list[Edit] = []
    for e in edits:
        if not isinstance(e, OwnCopy) or merged.get(e.site) is None:
            out.append(e)
        elif merged[e.site] not in out:
            out.append(merged[e.site])
    return out


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
    if source_event.op == SQL_TABLE_OP:  # a table read inside SQL text: its name, as Spark gives it
        return source_event.args[0]
    site = source_event.site
    source_cell = cells[index_of[site.execution_count]] if site and site.execution_count in index_of else ""
    held = trace.variable_of(source_event.id)
    if source_event.inputs:  # a DataFrame on the way, perhaps a step inside a chain
        code = trace.code_at(site)
        return held or (f"`{' '.join(code.split())}`" if code else "source")
    return (binding_name(source_cell, site) if site else None) or held or "source"


def _count_of(index_of: dict[int, int], index: int) -> int | None:
    """The count of the last traced execution of cell `index`: what its prompt shows."""
    return max((count for count, i in index_of.items() if i == index), default=None)


def cell_index(trace: Trace, cells: list[str], ids: Sequence[str | None] | None = None) -> dict[int, int]:
    """Execution count -> notebook index, for executions whose code is still in the notebook.

    A cell edited since it ran has no index: the trace's positions point into the old code.
    Two cells with the same code are told apart by id only; guessing could put the filter
    in a cell that runs before the one whose DataFrame the pipeline reads.

    >>> from magicpush_lab.capture.trace import Cell
    >>> t = Trace(cells=(Cell(1, "a = 1", "x"), Cell(2, "b = 2", None), Cell(3, "a = 1", None)))
    >>> cell_index(t, ["a = 1", "b = 2", "a = 1"], ["x", "y", "z"])
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


def trace_cells(trace: Trace) -> list[str]:
    """The distinct cell sources in the order the trace first ran them: the notebook as the
    trace knows it, when the caller has no notebook."""
    seen: list[str] = []
    for c in trace.cells:
        if c.source not in seen:
            seen.append(c.source)
    return seen
