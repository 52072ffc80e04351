"""The pipeline walk: push a late filter from where it is toward the sources (paper, Section 5).

At each operator the search proposes candidates and the verifier checks
them, equivalence first, then superset. A superset step anywhere on the way
means the late filter must stay. Each source reached gets its own predicate;
when several sources get one, each is proved on its own as a superset
pushdown, so any of them can be applied alone.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace
from typing import Iterator

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.search.candidates import candidates
from magicpush_lab.search.combine import Combined, Limits, combined_candidates, op_components
from magicpush_lab.search.sargable import prefer_sargable
from magicpush_lab.search.transfer import extra_predicates
from magicpush_lab.shared_sources import merge_shared_sources, union_input_missed
from magicpush_lab.verify import aggregate, outer_join, row_expand, row_to_row, topk, window
from magicpush_lab.verify import full_outer_join, grouped_map, join_condition, model_gaps, overflow, row_iter
from magicpush_lab.symbolic.values import Unsupported
from magicpush_lab.verify.implication import implies
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, Verdict

ANALYSED_OPS = (P.Filter, P.Project, P.InnerJoin, P.OuterJoin, P.Reorder, P.Union, P.Aggregate, P.TopK,
                P.Window, P.RowExpand, P.Expand,
                P.GroupedMap, P.RowIterPipeline, P.SemiJoin)


COMBINE_SECONDS = 2.0  # Algorithm 1's enumeration, per operator, when the shortcut fails


@dataclass(frozen=True)
class Step:
    operator: str
    category: str
    base_case_rows: int
    kind: str


@dataclass(frozen=True)
class Pushed:
    """A predicate that reached a source, and the proof steps that carried it there."""

    source: P.Source
    predicate: X.Expr
    steps: tuple[Step, ...]
    kind: str
    late_filter: P.Filter
    consumer: int | None  # trace event of the operator right above the source
    via_input: int  # which input of that operator the source feeds (0 = receiver)
    may_hide_errors: bool = False
    transferred: bool = False  # an extra predicate from predicate transfer across a join
    alternatives: tuple[X.Expr, ...] = ()  # other proved superset predicates for the same source
    # a source read by several branches: one entry per read, `predicate` their disjunction
    # (shared_sources.py)
    branches: tuple["Pushed", ...] = ()


@dataclass(frozen=True)
class Refusal:
    operator: str
    reason: str
    candidate: str = ""
    counterexample: dict = field(default_factory=dict)


@dataclass
class Budget:
    seconds: float
    started: float = field(default_factory=time.monotonic)
    candidates_tried: int = 0

    def left_ms(self) -> int:
        return max(0, int((self.seconds - (time.monotonic() - self.started)) * 1000))

    def cancel(self) -> None:
        """Spend what is left now (the client went away): every check still running or to come
        gets the minimum time limit, fails, and nothing more is pushed."""
        self.seconds = 0.0


@dataclass
class WalkResult:
    pushed: list[Pushed] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)


def late_filter(plan: P.Plan) -> P.Filter | None:
    """The filter nearest the end of the pipeline (the first Filter in pre-order)."""
    for node in P.nodes(plan):
        if isinstance(node, P.Filter):
            return node
    return None


def filters_to_push(plan: P.Plan) -> list[P.Filter]:
    """Every filter of the pipeline with an operator below it, the latest first: a filter in
    the middle of a pipeline is pushed too. A filter right on a source (or on other filters on
    it) has nowhere to go."""
    def on_source(node: P.Plan) -> bool:
        while isinstance(node, P.Filter):
            node = node.child
        return isinstance(node, P.Source)

    return [n for n in P.nodes(plan) if isinstance(n, P.Filter) and not on_source(n.child)]


def push_down_all(plan: P.Plan, budget: Budget | None = None) -> WalkResult:
    """Each of `filters_to_push(plan)` walked toward the sources, under one time budget; a
    predicate that reaches a source twice (from two filters) is kept once."""
    budget = budget or Budget(10.0)
    result = WalkResult()
    seen: set[tuple] = set()
    walks = [push_down(node, budget) for node in filters_to_push(plan)]
    walks += [_push_join_conjunct(join, side, g, budget) for join, side, g in join_conjuncts(plan)]
    for walk in walks:
        for pushed in walk.pushed:
            key = (pushed.source.origin, pushed.source.name, pushed.predicate,
                   tuple((b.consumer, b.via_input, b.predicate) for b in pushed.branches))
            if key not in seen:
                seen.add(key)
                result.pushed.append(pushed)
        result.refusals.extend(walk.refusals)
    return result


def join_conjuncts(plan: P.Plan) -> list[tuple[P.Plan, int, X.Expr]]:
    """(join, input, conjunct): the conjuncts of join conditions that read one input only,
    on an input whose unmatched rows the join drops (verify/join_condition.py)."""
    found = []
    for node in P.nodes(plan):
        if not isinstance(node, (P.InnerJoin, P.SemiJoin, P.OuterJoin)):
            continue
        for side, child in enumerate(node.children):
            own = set(child.output)
            for c in X.conjuncts(node.condition):
                if X.columns(c) and X.columns(c) <= own and join_condition.unmatched_rows_dropped(node, side):
                    found.append((node, side, c))
    return found


def _push_join_conjunct(join: P.Plan, side: int, g: X.Expr, budget: Budget) -> WalkResult:
    """A join condition's conjunct on one input, walked from that input toward its source. The
    join keeps its condition, so the suggestion only adds the predicate (superset)."""
    result = WalkResult()
    verdict = join_condition.verify(join, side, g, min(2000, max(1, budget.left_ms())))
    if not verdict.proved:
        result.refusals.append(Refusal(P.operator_name(join), verdict.reason, str(g), verdict.counterexample))
        return result
    step = Step(P.operator_name(join), verdict.category, verdict.base_case_rows, verdict.kind)
    holder = P.Filter(join, g)  # no filter of the user's to remove: the condition stays in the join
    here = getattr(join, "origin", None)
    _walk(join.children[side], g, (step,), SUPERSET, holder, here, side, budget, result)
    result.pushed = merge_shared_sources(join.children[side], result.pushed, here, side)
    return result


def push_down(filter_node: P.Filter, budget: Budget | None = None) -> WalkResult:
    """Push `filter_node`'s condition as far toward the sources as proofs allow."""
    budget = budget or Budget(10.0)
    result = _push_down(filter_node, budget)
    exact = _without_double_arithmetic(filter_node)
    if exact is not None and any(r.reason.startswith(model_gaps.DOUBLE_GAP) for r in result.refusals):
        # The conjuncts that compute nothing in doubles are what the model proves exactly. The
        # late filter implies them, so whatever they push is a superset pushdown of the whole.
        reached = {p.source for p in result.pushed}
        retry = _push_down(exact, budget)
        result.pushed += [replace(p, kind=SUPERSET) for p in retry.pushed if p.source not in reached]
        result.refusals += [r for r in retry.refusals if r not in result.refusals]
    return result


def _without_double_arithmetic(late: P.Filter) -> P.Filter | None:
    """The late filter with only its conjuncts free of double arithmetic (in them or in the
    columns they read), when it has both kinds; None otherwise."""
    parts = X.conjuncts(late.condition)
    exact = [c for c in parts if not model_gaps.double_arithmetic(replace(late, condition=c))]
    if not exact or len(exact) == len(parts):
        return None
    return replace(late, condition=X.and_(*exact))


def _push_down(filter_node: P.Filter, budget: Budget) -> WalkResult:
    result = WalkResult()
    _walk(filter_node.child, filter_node.condition, (), EQUIVALENT, filter_node,
          filter_node.origin, 0, budget, result)
    _drop_shared_side_inputs(filter_node, result)
    result.pushed = merge_shared_sources(filter_node.child, result.pushed, filter_node.origin)
    dropped = _drop_new_overflow(filter_node, result, budget)
    if dropped or len([p for p in result.pushed if not p.transferred]) > 1 or \
            union_input_missed(filter_node.child, result.pushed):
        # each source's predicate was proved alone; applied alone, the late filter stays.
        # A transferred predicate is a superset pushdown of its own, whose proof holds for
        # every other input, filtered or not: it leaves the others' kinds as they are
        result.pushed = [replace(p, kind=SUPERSET) for p in result.pushed]
    return result


def _drop_new_overflow(late: P.Filter, result: WalkResult, budget: Budget) -> bool:
    """Drop each pushed predicate whose integer arithmetic may overflow in Spark where the
    original never computes it there (verify/overflow.py), or that a gap of the model
    around the walk's steps may make wrong (verify/model_gaps.py); True if any was dropped.
    The others were proved with it, so they stay only as superset pushdowns."""
    same = overflow.same_source_columns(late)
    known = [X.substitute(e, same) for e in overflow.pipeline_expressions(late)]
    kept = []
    for p in result.pushed:
        why = (overflow.new_overflow(X.substitute(p.predicate, same), known, min(500, max(1, budget.left_ms())))
               or model_gaps.lost_double_arithmetic(late, p.predicate)
               or model_gaps.new_double_arithmetic(late, p.predicate)
               or model_gaps.double_sort_key(late, p.predicate, p.steps)
               or model_gaps.udf_on_padded_rows(late, p.steps))
        if why:
            result.refusals.append(Refusal(P.operator_name(p.source), why, str(p.predicate)))
        else:
            kept.append(p)
    dropped = len(kept) < len(result.pushed)
    result.pushed = kept
    return dropped


def _walk(node: P.Plan, pred: X.Expr, steps: tuple[Step, ...], kind: str, late: P.Filter,
          consumer: int | None, via_input: int, budget: Budget, result: WalkResult,
          hides: bool = False) -> None:
    if isinstance(node, P.Source):
        # at the scan, a form Parquet can skip on, when it keeps the same rows
        pred = prefer_sargable(pred, min(500, max(1, budget.left_ms())))
        result.pushed.append(Pushed(node, pred, steps, kind, late, consumer, via_input, hides))
        return
    if isinstance(node, P.Other):
        result.refusals.append(Refusal("Other", node.reason))
        return
    if not isinstance(node, ANALYSED_OPS):
        result.refusals.append(Refusal(P.operator_name(node), "operator not analysed yet"))
        return
    here = node.origin if node.origin is not None else consumer
    # a predicate that is always true filters nothing: that input gets no pushdown
    cands = [replace(c, predicates=tuple(None if g == X.TRUE else g for g in c.predicates))
             for c in candidates(node, pred)]
    cands = [c for c in cands if any(g is not None for g in c.predicates)]
    # equivalence for every candidate before superset for any: removing the late filter
    # is worth more than a slightly more selective predicate that must keep it
    proposals = _proposals(cands, _Replayable(_combined(node, pred, cands, budget)))
    for wanted, predicates in proposals:
        if budget.left_ms() == 0:
            result.refusals.append(Refusal(P.operator_name(node), "time budget used up"))
            return
        budget.candidates_tried += 1
        try:
            verdict = _verify(node, pred, predicates, budget, wanted)
        except Exception as err:  # noqa: BLE001 - a failed check is a refusal, never a wrong push
            result.refusals.append(Refusal(P.operator_name(node), f"check failed: {type(err).__name__}: {err}",
                                           ", ".join(map(str, filter(None, predicates)))))
            continue
        if verdict is None:
            continue
        before = len(result.pushed)
        _descend(node, pred, predicates, verdict, steps, kind, late, here, budget, result, hides)
        if verdict.kind == SUPERSET:
            _add_alternatives(node, pred, predicates, proposals, budget, result, before)
        return
    why = "no candidate could be proved"
    if isinstance(node, P.GroupedMap):  # the body's analysis says which part stopped the filter
        why = grouped_map.why_not(node, pred, min(500, max(1, budget.left_ms())))
    result.refusals.append(Refusal(P.operator_name(node), why, *_last_failure(node, pred)))


def _descend(node: P.Plan, pred: X.Expr, chosen: tuple[X.Expr | None, ...], verdict: Verdict,
             steps: tuple[Step, ...], kind: str, late: P.Filter, here: int | None, budget: Budget,
             result: WalkResult, hides: bool) -> None:
    """The proved candidate `chosen` walked on from each input it gives a predicate to."""
    step = Step(P.operator_name(node), verdict.category, verdict.base_case_rows, verdict.kind)
    step_kind = EQUIVALENT if kind == EQUIVALENT and verdict.kind == EQUIVALENT else SUPERSET
    for i, (child, g) in enumerate(zip(node.children, chosen)):
        if g is not None:
            _walk(child, g, steps + (step,), step_kind, late, here, i, budget, result,
                  hides or verdict.may_hide_errors)
    if isinstance(node, P.InnerJoin):
        _transfer(node, pred, chosen, steps, late, here, budget, result, hides)


def _combined(node: P.Plan, pred: X.Expr, cands: list, budget: Budget) -> Iterator[Combined]:
    """Algorithm 1's enumeration, for when the shortcut candidates are refused: components
    from the late filter (the conjuncts of those candidates) and from the operator (its UDFs'
    branch conditions), under its own share of the time budget (counted from the first use)."""
    from_f = [c for cand in cands if len(cand.predicates) == 1 and cand.predicates[0] is not None
              for c in X.conjuncts(cand.predicates[0])]
    components = list(dict.fromkeys(from_f + op_components(node)))
    deadline = time.monotonic() + min(COMBINE_SECONDS, budget.left_ms() / 1000)
    yield from combined_candidates(node, pred, components, Limits(), deadline)


class _Replayable:
    """An iterator that can be read again from the start, computing each item once."""

    def __init__(self, items: Iterator) -> None:
        self._items, self._seen = items, []

    def __iter__(self) -> Iterator:
        i = 0
        while True:
            if i == len(self._seen):
                try:
                    self._seen.append(next(self._items))
                except (StopIteration, z3.Z3Exception, Unsupported):
                    return
            yield self._seen[i]
            i += 1


def _proposals(cands: list, combined: _Replayable) -> Iterator[tuple[str, tuple[X.Expr | None, ...]]]:
    """(kind wanted, candidate) in the order they are verified: the shortcut candidates, then
    Algorithm 1's, for equivalence; then the same for superset. Each pair at most once."""
    def ordered() -> Iterator[tuple[str, tuple[X.Expr | None, ...]]]:
        yield from ((EQUIVALENT, c.predicates) for c in cands)
        yield from ((EQUIVALENT, (c.predicate,)) for c in itertools.takewhile(
            lambda c: c.may_be_equivalent, combined))  # the rest cannot be equivalences
        yield from ((SUPERSET, c.predicates) for c in cands)
        yield from ((SUPERSET, (c.predicate,)) for c in combined)

    seen = set()
    for item in ordered():
        if item not in seen:
            seen.add(item)
            yield item


MAX_ALTERNATIVES = 2  # other proved superset predicates kept for ranking on live data
ALTERNATIVES_SECONDS = 0.5


def _add_alternatives(node: P.Plan, pred: X.Expr, chosen: tuple[X.Expr | None, ...], proposals: Iterator,
                      budget: Budget, result: WalkResult, first: int) -> None:
    """Superset predicates are not all alike: which keeps fewer rows depends on the data. For an
    operator right on a source, the next proved superset candidates are kept with the pushed
    predicate, so a live session can rank them by the rows they keep (measure.py)."""
    if len(node.children) != 1 or not isinstance(node.children[0], P.Source):
        return
    pushed = [i for i in range(first, len(result.pushed)) if result.pushed[i].source is node.children[0]]
    if len(pushed) != 1:
        return
    found: list[X.Expr] = []
    stop = time.monotonic() + min(ALTERNATIVES_SECONDS, budget.left_ms() / 1000)
    for wanted, predicates in proposals:
        if len(found) == MAX_ALTERNATIVES or time.monotonic() > stop:
            break
        if wanted != SUPERSET or predicates == chosen or predicates[0] is None:
            continue
        if any(_implies(h, predicates[0]) for h in (chosen[0], *found)):
            continue  # weaker than one in hand: it can never keep fewer rows
        budget.candidates_tried += 1
        try:
            verdict = _verify(node, pred, predicates, budget, SUPERSET)
        except Exception:  # noqa: BLE001 - an alternative that cannot be checked is left out
            continue
        if verdict is not None and not verdict.may_hide_errors:
            found.append(prefer_sargable(predicates[0], min(500, max(1, budget.left_ms()))))
    if not found:
        return
    chosen_at_source = result.pushed[pushed[0]]
    if chosen_at_source.may_hide_errors:
        found = []  # the alternatives do not hide errors: they are not equally correct
    # a predicate another one implies can never keep fewer rows: only the strongest are kept,
    # the first of them pushed and the others left for the data to rank
    every = list(dict.fromkeys([chosen_at_source.predicate, *found]))

    def weaker(i: int) -> bool:  # another keeps no more rows; of two equivalent ones, the later goes
        return any(j != i and _implies(h, every[i]) and (j < i or not _implies(every[i], h))
                   for j, h in enumerate(every))

    strongest = [g for i, g in enumerate(every) if not weaker(i)]
    if len(strongest) > 1:
        # each keeps every row the late filter needs; their conjunction may too, and then it
        # keeps fewer rows than any of them on any data (proved, since for an operator that
        # looks at groups or order a conjunction of supersets need not be one)
        both = X.and_(*strongest)
        try:
            verdict = _verify(node, pred, (both,), budget, SUPERSET)
        except Exception:  # noqa: BLE001 - unproved: the data ranks them instead
            verdict = None
        if verdict is not None and not verdict.may_hide_errors:
            strongest = [both]
    result.pushed[pushed[0]] = replace(chosen_at_source, predicate=strongest[0], alternatives=tuple(strongest[1:]))


def _implies(a: X.Expr, b: X.Expr, timeout_ms: int = 200) -> bool:
    """Every row `a` keeps, `b` keeps (unknown counts as no)."""
    try:
        return implies(a, b, timeout_ms).proved
    except (Unsupported, z3.Z3Exception):
        return False


def _transfer(node: P.InnerJoin, pred: X.Expr, chosen: tuple[X.Expr | None, ...], steps: tuple[Step, ...],
              late: P.Filter, here: int | None, budget: Budget, result: WalkResult, hides: bool) -> None:
    """Predicate transfer: an input the chosen candidate leaves alone may still get what the
    other input's predicate and the join condition imply for it, proved alone as a superset
    pushdown (the late filter stays for it), while the chosen candidate keeps its own kind."""
    try:
        extras = extra_predicates(node, chosen)
    except Exception as err:  # noqa: BLE001 - a failed search misses a pushdown, never makes one
        result.refusals.append(Refusal(P.operator_name(node), f"predicate transfer failed: {type(err).__name__}"))
        return
    for i, extra in enumerate(extras):
        if extra is None or budget.left_ms() == 0:
            continue
        budget.candidates_tried += 1
        verdict = check(node, pred, _only(tuple(extra if j == i else None for j in range(2)), i), SUPERSET,
                        min(2000, max(1, budget.left_ms())))
        if verdict.proved:
            step = Step(P.operator_name(node), verdict.category, verdict.base_case_rows, SUPERSET)
            before = len(result.pushed)
            _walk(node.children[i], extra, steps + (step,), SUPERSET, late, here, i, budget, result,
                  hides or verdict.may_hide_errors)
            result.pushed[before:] = [replace(p, transferred=True) for p in result.pushed[before:]]


def _verify(node: P.Plan, pred: X.Expr, g: tuple[X.Expr | None, ...], budget: Budget,
            kind: str) -> Verdict | None:
    """Check one candidate for `kind`; None unless proved."""
    verdict = check(node, pred, g, kind, min(2000, max(1, budget.left_ms())))
    return verdict if verdict.proved else None


def check(node: P.Plan, pred: X.Expr, g: tuple[X.Expr | None, ...], kind: str,
          timeout_ms: int = 2000) -> Verdict:
    """The verdict on candidate `g` (one predicate or None per input of `node`) for late filter
    `pred`. Predicates on several inputs are proved one input at a time as superset pushdowns,
    whatever `kind` asks, since each becomes a suggestion of its own."""
    if isinstance(node, P.Union):
        # each output row is one input's row under the union's column names: a renaming
        # projection per input, proved one input at a time
        renames = [P.Project(child, tuple((out, m[out]) for out in node.output))
                   for child, m in zip(node.inputs, node.column_maps())]
        each = [row_to_row.verify(r, pred, (gi,), kind, timeout_ms) for r, gi in zip(renames, g)]
        failed = [v for v in each if not v.proved]
        return failed[0] if failed else replace(each[0], may_hide_errors=any(v.may_hide_errors for v in each))
    verify = _VERIFIERS.get(type(node), row_to_row.verify)
    if isinstance(node, P.OuterJoin) and node.preserved == "both":
        verify = full_outer_join.verify  # both inputs padded: the FULLOUTERJ conditions
    if sum(x is not None for x in g) > 1:
        each = [verify(node, pred, _only(g, i), SUPERSET, timeout_ms) for i, x in enumerate(g) if x is not None]
        failed = [v for v in each if not v.proved]
        if failed:
            return failed[0]
        if isinstance(node, P.InnerJoin):
            return replace(each[0], may_hide_errors=any(v.may_hide_errors for v in each))
    return verify(node, pred, g, kind, timeout_ms)


def _semi_join(node: P.SemiJoin, pred: X.Expr, g: tuple[X.Expr | None, ...], kind: str,
               timeout_ms: int) -> Verdict:
    """A semi or anti join keeps a left row by whether a match exists: a filter on an unknown
    condition of the row (SemiJoin.as_filter), so a left predicate is proved as for a Filter.
    The right input gets nothing here: its rows decide which left rows match."""
    if len(g) != 2 or g[1] is not None:
        return Verdict(False, kind, row_to_row.CATEGORY, row_to_row.BASE_CASE_ROWS,
                       "a predicate on the right input of a semi or anti join is not analysed")
    return row_to_row.verify(node.as_filter(), pred, (g[0],), kind, timeout_ms)


_VERIFIERS = {P.Aggregate: aggregate.verify, P.OuterJoin: outer_join.verify, P.TopK: topk.verify,
              P.Window: window.verify, P.RowExpand: row_expand.verify, P.Expand: row_expand.verify_unpivot,
              P.GroupedMap: grouped_map.verify, P.RowIterPipeline: row_iter.verify, P.SemiJoin: _semi_join}


def _drop_shared_side_inputs(plan: P.Plan, result: WalkResult) -> None:
    """A predicate before a `collect()` changes the list every reader of it sees: it is kept only
    when the pipeline calls the UDF once, in the RowIterPipeline the proof was made for, and no
    other UDF of the pipeline reads a name like the list's."""
    for node in P.nodes(plan):
        if not isinstance(node, P.RowIterPipeline):
            continue
        calls = sum(1 for n in P.nodes(plan) for e in P.expressions(n) for x in X.walk(e)
                    if isinstance(x, X.PyUdf) and (x.name == node.udf.name or _reads(x, node.side_name)))
        if calls > 1 and any(p.source is node.side_input for p in result.pushed):
            result.pushed = [p for p in result.pushed if p.source is not node.side_input]
            reason = (f"{node.udf.name} is called {calls} times in the pipeline; "
                      "a filter before its collect() would change every call")
            result.refusals.append(Refusal("RowIterPipeline", reason))


def _reads(udf: X.PyUdf, name: str) -> bool:
    """The UDF's source loads `name` (or cannot be read, so it might)."""
    import ast

    if udf.source is None:
        return True  # no source (a black box): it might
    try:
        tree = ast.parse(udf.source.strip())
    except SyntaxError:
        return True
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ast.walk(tree))


def _only(g: tuple[X.Expr | None, ...], i: int) -> tuple[X.Expr | None, ...]:
    return tuple(x if j == i else None for j, x in enumerate(g))


def _last_failure(node: P.Plan, pred: X.Expr) -> tuple[str, dict]:
    """The naive candidate (F itself on the input) and why it fails, when F's columns exist below."""
    if isinstance(node, P.OuterJoin) and node.preserved == "both":
        return full_outer_join.first_failure(node, pred, [c.predicates for c in candidates(node, pred)])
    if len(node.children) != 1 or not X.columns(pred) <= set(node.children[0].output):
        return "", {}
    # the operator's own verifier: a row-to-row check on, say, a limit would not say why
    verdict = check(node, pred, (pred,), EQUIVALENT, 500)
    if verdict.proved or not verdict.counterexample:
        return "", {}
    return str(pred), verdict.counterexample
