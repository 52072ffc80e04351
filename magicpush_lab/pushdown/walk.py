"""The pipeline walk: push a late filter from where it is toward the sources (paper, Section 5).

At each operator the search proposes candidates (operators.py, proposals.py) and the verifier
checks them, equivalence first, then superset. A superset step anywhere on the way means the
late filter must stay. Each source reached gets its own predicate; when several sources get
one, each is proved on its own as a superset pushdown, so any of them can be applied alone.
When a walk is done, each push records for every traced DataFrame it passed (a waypoint)
whether its filter may go there instead of at the source, and why not (guards.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.pushdown.alternatives import add_alternatives
from magicpush_lab.pushdown.body_walk import why_not as body_why_not
from magicpush_lab.pushdown.guards import (drop_new_overflow, drop_shared_side_inputs, with_checked_waypoints,
                                          without_double_arithmetic)
from magicpush_lab.pushdown.operators import candidates_for, check, only, rule_for
from magicpush_lab.pushdown.proposals import proposals
from magicpush_lab.pushdown.records import AlreadyFiltered, LeftBehind, Pushed, Refusal, Step, WalkResult, Waypoint
from magicpush_lab.pushdown.shared_sources import merge_shared_sources, union_input_missed
from magicpush_lab.search.simplify import readable
from magicpush_lab.search.transfer import extra_predicates
from magicpush_lab.translate.pandas_on_spark import ROW_ORDER
from magicpush_lab.translate.spark_plan import unwritten_call
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, bounded_by
from magicpush_lab.verify import full_outer_join, join_condition, model_gaps
from magicpush_lab.verify.implication import implied_by, keeps_every_row
from magicpush_lab.verify.aggregate import order_dependent_fold
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, UNMODELLED, Verdict

READABLE_MS = 1500  # proving smaller and scan-friendly forms of the pushed predicate keep the same rows
EXPLAIN_MS = 500  # finding the input rows on which the naive candidate fails, for a refusal


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
    # whether a run of filters rests on a source, remembered per filter: a chain of n filters is
    # looked at once, not n times (a trace may hold thousands of them)
    rests: dict[int, bool] = {}

    def on_source(node: P.Plan) -> bool:
        run = []
        while isinstance(node, P.Filter) and id(node) not in rests:
            run.append(node)
            node = node.child
        answer = rests[id(node)] if isinstance(node, P.Filter) else isinstance(node, P.Source)
        rests.update((id(n), answer) for n in run)
        return answer

    return [n for n in P.nodes(plan) if isinstance(n, P.Filter) and not on_source(n.child)]


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


def push_down_all(plan: P.Plan, budget: Budget | None = None) -> WalkResult:
    """Each of `filters_to_push(plan)` walked toward the sources, under one time budget; a
    predicate that reaches a source twice (from two filters) is kept once."""
    budget = budget if budget is not None else Budget()
    result = WalkResult()
    seen: set[tuple] = set()
    with bounded_by(budget):
        filters = filters_to_push(plan)
        # a filter in another one's stack is walked joined with it there: once is enough (a
        # chain of n filters makes one joined walk, not n)
        stacked_below = {id(f) for node in filters for f in _stack(node)}
        walks = [push_down(node, budget) if id(node) in stacked_below else push_down_stacked(node, budget)
                 for node in filters]
        for node, walk in zip(filters, walks):
            walk.left_behind = left_behind(node, walk, budget)
        walks += [_push_join_conjunct(join, side, g, budget) for join, side, g in join_conjuncts(plan)]
    for walk in walks:
        for pushed in walk.pushed:
            key = (pushed.source.origin, pushed.source.name, pushed.predicate,
                   tuple((b.consumer, b.via_input, b.predicate) for b in pushed.branches))
            if key not in seen:
                seen.add(key)
                result.pushed.append(pushed)
        result.refusals.extend(walk.refusals)
        result.already.extend(a for a in walk.already if a not in result.already)
        result.left_behind.extend(b for b in walk.left_behind if b not in result.left_behind)
    return result


#: conjuncts of one late filter looked at for what stopped them, at most (each is a walk)
LEFT_BEHIND_MAX = 6


def left_behind(filter_node: P.Filter, walk: WalkResult, budget: Budget) -> list[LeftBehind]:
    """The conjuncts of `filter_node` that stay in it while others moved (every push a superset
    one, so the late filter stays), each with the step that stopped it when walked alone and
    why. A conjunct that, alone, reaches a source (in a weaker form or not) is not said: what
    keeps the late filter then is that pushes to several places are each proved alone. Only
    what the walk's own refusals say is reported; nothing here moves a filter."""
    conjuncts = X.conjuncts(filter_node.condition)
    if not walk.pushed or any(p.kind == EQUIVALENT for p in walk.pushed) or not 2 <= len(conjuncts) <= LEFT_BEHIND_MAX:
        return []
    found = []
    for c in conjuncts:
        if budget.spent:
            break
        alone = _push_down(P.Filter(filter_node.child, c, origin=filter_node.origin), budget)
        if alone.pushed or alone.already:
            continue
        stop = next((r for r in alone.refusals if r.event is not None), alone.refusals[0] if alone.refusals else None)
        if stop is not None:
            found.append(LeftBehind(c, stop))
    return found


def stacked(filter_node: P.Filter) -> P.Filter | None:
    """The filter with the conditions of the filters right below it (through sorts, column drops
    and other filters) joined to its own, as Spark's CombineFilters joins them; None when there
    are none. Rows reaching the filter passed those below, so the conjunction selects the same
    rows above them; walked on its own, it may tell apart rows its parts alone cannot (after an
    unpivot, `week > 40` and `sales > 30` together name the columns of the weeks after 40).
    Only conditions on columns the filter itself sees are joined.

    >>> k, v = X.Col("k", 1, "int"), X.Col("v", 2, "int")
    >>> low = P.Filter(P.Reorder(P.Source("t", (k, v)), "Sort"), X.Cmp(">", k, X.Lit(1, "int")))
    >>> print(stacked(P.Filter(low, X.Cmp("<", v, X.Lit(5, "int")))).condition)
    v < 5 AND k > 1
    """
    seen = set(filter_node.child.output)
    below: list[X.Expr] = []
    for node in _stack(filter_node):
        if X.is_deterministic(node.condition) and X.columns(node.condition) <= seen:
            below.extend(c for c in X.conjuncts(node.condition) if c not in below)
    own = X.conjuncts(filter_node.condition)
    extra = [c for c in below if c not in own]
    if not extra or not X.is_deterministic(filter_node.condition):
        return None
    return replace(filter_node, condition=X.and_(*own, *extra))


def _stack(filter_node: P.Filter) -> list[P.Filter]:
    """The filters right below `filter_node`, through sorts and column drops."""
    found, node = [], filter_node.child
    while isinstance(node, (P.Filter, P.Reorder)) or isinstance(node, P.Project) and node.kind == "DropColumn":
        if isinstance(node, P.Filter):
            found.append(node)
        node = node.child
    return found


def push_down_stacked(filter_node: P.Filter, budget: Budget) -> WalkResult:
    """The walk of `filter_node`, where the walk of its stacked conjunction (`stacked`) reached a
    source with a predicate as good (the same kind, or an equivalence): that one instead. The
    stacked walk's predicate is sound for the filter alone, since the filters below stay."""
    walk = push_down(filter_node, budget)
    combined = stacked(filter_node)
    if combined is None or budget.spent:
        return walk
    other = push_down(combined, budget)
    if not other.pushed:
        return walk
    better = {p.source.origin: p for p in other.pushed if not p.branches}
    mine = {p.source.origin for p in walk.pushed}
    kept = [better[p.source.origin] if p.source.origin in better and not p.branches
            and (better[p.source.origin].kind == p.kind or better[p.source.origin].kind == EQUIVALENT) else p
            for p in walk.pushed]
    kept += [p for origin, p in better.items() if origin not in mine]
    return WalkResult(pushed=kept, refusals=walk.refusals, already=walk.already)


def push_down(filter_node: P.Filter, budget: Budget | None = None) -> WalkResult:
    """Push `filter_node`'s condition as far toward the sources as proofs allow."""
    budget = budget if budget is not None else Budget()
    with bounded_by(budget):
        return _push_down_within(filter_node, budget)


def _push_down_within(filter_node: P.Filter, budget: Budget) -> WalkResult:
    result = _push_down(filter_node, budget)
    exact = without_double_arithmetic(filter_node)
    if exact is not None and any(r.reason.startswith(model_gaps.DOUBLE_GAP) for r in result.refusals):
        # The conjuncts that compute nothing in doubles are what the model proves exactly. The
        # late filter implies them, so whatever they push is a superset pushdown of the whole.
        reached = {p.source for p in result.pushed}
        retry = _push_down(exact, budget)
        result.pushed += [replace(p, kind=SUPERSET) for p in retry.pushed if p.source not in reached]
        result.refusals += [r for r in retry.refusals if r not in result.refusals]
        result.already += [a for a in retry.already if a not in result.already]
    return result


def _push_down(filter_node: P.Filter, budget: Budget) -> WalkResult:
    walk = _Walk(filter_node, budget)
    # the same rows without the NULL guards of a pandas-on-Spark mask, which would otherwise be
    # carried into every candidate
    condition = X.and_(*(X.unguarded(c) for c in X.conjuncts(filter_node.condition)))
    walk.visit(filter_node.child, _Carried(condition, (), EQUIVALENT, filter_node.origin, 0))
    result = walk.result
    drop_shared_side_inputs(filter_node, result)
    result.pushed = merge_shared_sources(filter_node.child, result.pushed, filter_node.origin)
    dropped = drop_new_overflow(filter_node, result, budget)
    if dropped or len([p for p in result.pushed if not p.transferred]) > 1 or \
            union_input_missed(filter_node.child, result.pushed):
        # each source's predicate was proved alone; applied alone, the late filter stays.
        # A transferred predicate is a superset pushdown of its own, whose proof holds for
        # every other input, filtered or not: it leaves the others' kinds as they are
        result.pushed = [replace(p, kind=SUPERSET) for p in result.pushed]
    result.pushed = with_checked_waypoints(result.pushed, budget)
    return result


def _push_join_conjunct(join: P.Plan, side: int, g: X.Expr, budget: Budget) -> WalkResult:
    """A join condition's conjunct on one input, walked from that input toward its source. The
    join keeps its condition, so the suggestion only adds the predicate (superset)."""
    holder = P.Filter(join, g)  # no filter of the user's to remove: the condition stays in the join
    walk = _Walk(holder, budget)
    verdict = join_condition.verify(join, side, g, budget.slice_ms(DEFAULT_TIMEOUT_MS))
    if not verdict.proved:
        walk.result.refusals.append(Refusal(P.operator_name(join), verdict.reason, str(g), verdict.counterexample,
                                            getattr(join, "origin", None)))
        return walk.result
    step = Step(P.operator_name(join), verdict.category, verdict.base_case_rows, verdict.kind)
    here = getattr(join, "origin", None)
    walk.visit(join.children[side], _Carried(g, (step,), SUPERSET, here, side))
    walk.result.pushed = merge_shared_sources(join.children[side], walk.result.pushed, here, side)
    walk.result.pushed = with_checked_waypoints(walk.result.pushed, budget)
    return walk.result


# the check that a disjunction is TRUE on every row: a handful of comparisons, quick where it matters
_EVERY_ROW_MS = 200
# the check that a filter on the way already keeps only rows the pushed predicate keeps
_IMPLIED_MS = 300


@dataclass(frozen=True)
class _Carried:
    """A predicate on its way down: the proof steps so far and the weakest kind among them, the
    traced operator right above where it is (the consumer of a source it reaches) and which of
    that operator's inputs it goes into, and whether a step may hide an error of the original."""

    pred: X.Expr
    steps: tuple[Step, ...]
    kind: str
    consumer: int | None
    via_input: int
    hides: bool = False
    waypoints: tuple[Waypoint, ...] = ()

    def passing(self, node: P.Plan) -> "_Carried":
        """This predicate with `node`'s DataFrame among its waypoints, when `node` is a traced one."""
        origin = getattr(node, "origin", None)
        if origin is None or any(w.event == origin for w in self.waypoints):
            return self
        names = [c.name for c in node.output]
        unique = all(names.count(c.name) == 1 for c in X.columns(self.pred))
        here = Waypoint(origin, self.consumer, self.via_input, self.pred, self.steps, self.kind, self.hides, unique)
        return replace(self, waypoints=self.waypoints + (here,))


class _Walk:
    """One late filter's walk: what it pushed and why it stopped, under the user's budget."""

    def __init__(self, late: P.Filter, budget: Budget) -> None:
        self.late, self.budget, self.result = late, budget, WalkResult()

    def visit(self, node: P.Plan, at: _Carried) -> None:
        if isinstance(node, P.Source):
            # at the scan, a form Parquet can skip on, when it keeps the same rows
            pred = readable(at.pred, self.budget.slice_ms(READABLE_MS))
            self.result.pushed.append(Pushed(node, pred, at.steps, at.kind, self.late, at.consumer,
                                             at.via_input, at.hides, waypoints=at.waypoints))
            return
        if isinstance(node, P.Other):
            self.result.refusals.append(Refusal("Other", node.reason, event=node.origin))
            return
        if isinstance(node, P.Filter) and self._implied_by(node, at.pred):
            # the rows here already pass the predicate: below, it could only repeat this filter
            # (one applied on an earlier run, say); nothing to move, and nothing stopped it. A
            # predicate true on every row (`1 == 1`) is no filter of the user's in place: unsaid
            if not self._filters_nothing_at_all(at.pred):
                self.result.already.append(AlreadyFiltered(node.origin, node.condition, at.pred))
            return
        at = at.passing(node)
        if rule_for(node) is None:
            self.result.refusals.append(Refusal(P.operator_name(node), "operator not analysed yet",
                                                event=getattr(node, "origin", None)))
            return
        if self.budget.spent:
            self.result.refusals.append(Refusal(P.operator_name(node), "time budget used up", event=node.origin))
            return
        run = passing_run(node, at.pred)
        if len(run) > 1 and self._through_run(run, at):
            return
        here = node.origin if node.origin is not None else at.consumer
        # a predicate that is always true filters nothing: that input gets no pushdown (also one
        # true on every row without being the literal, which taking a CASE apart can give)
        cands = [replace(c, predicates=tuple(None if g == X.TRUE or g is not None and self._filters_nothing(g) else g
                                             for g in c.predicates))
                 for c in candidates_for(node, at.pred, self.budget)]
        # a candidate calling a function never written into a predicate could not be suggested
        cands = [c for c in cands if any(g is not None for g in c.predicates) and not unwritten_call(
            *(g for g in c.predicates if g is not None))]
        ordered = proposals(node, at.pred, cands, self.budget)
        for wanted, predicates in ordered:
            if self.budget.spent:
                self.result.refusals.append(Refusal(P.operator_name(node), "time budget used up", event=node.origin))
                return
            self.budget.candidates_tried += 1
            try:
                verdict = self._proved(node, at.pred, predicates, wanted)
            except Exception as err:  # noqa: BLE001 - a failed check is a refusal, never a wrong push
                self.result.refusals.append(Refusal(P.operator_name(node), f"check failed: {type(err).__name__}: {err}",
                                                    ", ".join(map(str, filter(None, predicates))), {},
                                                    node.origin))
                continue
            if verdict is None:
                continue
            before = len(self.result.pushed)
            self._descend(node, at, predicates, verdict, here)
            if verdict.kind == SUPERSET:
                add_alternatives(node, at.pred, predicates, ordered, self.budget, self.result, before)
            return
        why = "no candidate could be proved"
        if isinstance(node, P.GroupedMap):  # the body's analysis says which part stopped the filter
            why = body_why_not(node, at.pred, self.budget, EXPLAIN_MS)
        elif isinstance(node, P.Project):
            why = nondeterministic_column(node) or why
        elif isinstance(node, P.Aggregate):
            why = order_dependent_fold(node, EXPLAIN_MS) or why
        candidate, example, unmodelled = self._naive_failure(node, at.pred)
        if unmodelled and why == "no candidate could be proved":
            why = f"the late filter cannot be modelled at this step: {unmodelled}"
        self.result.refusals.append(Refusal(P.operator_name(node), why, candidate, example, node.origin))

    def _through_run(self, run: list[P.Project], at: _Carried) -> bool:
        """A run of projections that all pass the late filter's columns through unchanged is one
        step: their expressions, inlined over the run's input, make one projection, proved once
        (the filter's rows are the same above and below; what it may change is which rows the
        run's other expressions meet, errors included). False when that proof fails: the walk
        then goes operator by operator."""
        combined = collapse(run)
        try:
            verdict = self._proved(combined, at.pred, (at.pred,), EQUIVALENT)
        except Exception:  # noqa: BLE001 - the operator-by-operator walk decides instead
            verdict = None
        if verdict is None:
            return False
        self.budget.candidates_tried += 1
        here = next((p.origin for p in reversed(run) if p.origin is not None), at.consumer)
        name = f"{P.operator_name(combined)} ({len(run)} calls)"
        step = Step(name, verdict.category, verdict.base_case_rows, verdict.kind)
        kind = EQUIVALENT if at.kind == EQUIVALENT and verdict.kind == EQUIVALENT else SUPERSET
        self.visit(run[-1].child, _Carried(at.pred, at.steps + (step,), kind, here, 0,
                                           at.hides or verdict.may_hide_errors, at.waypoints))
        return True

    def _descend(self, node: P.Plan, at: _Carried, chosen: tuple[X.Expr | None, ...], verdict: Verdict,
                 here: int | None) -> None:
        """The proved candidate `chosen` walked on from each input it gives a predicate to."""
        step = Step(P.operator_name(node), verdict.category, verdict.base_case_rows, verdict.kind,
                    spark_stops_at(node, at.pred))
        kind = EQUIVALENT if at.kind == EQUIVALENT and verdict.kind == EQUIVALENT else SUPERSET
        start, stopped = len(self.result.pushed), False
        for i, (child, g) in enumerate(zip(node.children, chosen)):
            if g is not None:
                before = len(self.result.pushed)
                self.visit(child, _Carried(g, at.steps + (step,), kind, here, i, at.hides or verdict.may_hide_errors,
                                           at.waypoints))
                # a transferred predicate is a superset of its own: an input that got only
                # those still keeps rows the late filter drops (a union's branch, say)
                stopped = stopped or all(p.transferred for p in self.result.pushed[before:])
        if stopped:
            # the verdict is about the inputs' predicates applied together: one of them stopped
            # on its way down, so what the others pushed leaves the late filter in place
            self.result.pushed[start:] = [replace(p, kind=SUPERSET) for p in self.result.pushed[start:]]
        if isinstance(node, P.InnerJoin) or isinstance(node, P.OuterJoin) and node.preserved != "both":
            self._transfer(node, at, chosen, here)

    def _transfer(self, node: P.InnerJoin | P.OuterJoin, at: _Carried, chosen: tuple[X.Expr | None, ...],
                  here: int | None) -> None:
        """Predicate transfer: an input the chosen candidate leaves alone may still get what the
        other input's predicate and the join condition imply for it, proved alone as a superset
        pushdown (the late filter stays for it), while the chosen candidate keeps its own kind."""
        try:
            extras = extra_predicates(node, chosen, self.budget)
        except Exception as err:  # noqa: BLE001 - a failed search misses a pushdown, never makes one
            self.result.refusals.append(Refusal(P.operator_name(node),
                                                f"predicate transfer failed: {type(err).__name__}",
                                                event=node.origin))
            return
        for i, extra in enumerate(extras):
            if extra is None or self.budget.spent:
                continue
            self.budget.candidates_tried += 1
            g = only(tuple(extra if j == i else None for j in range(2)), i)
            verdict = check(node, at.pred, g, SUPERSET, self.budget.slice_ms(DEFAULT_TIMEOUT_MS))
            if verdict.proved:
                step = Step(P.operator_name(node), verdict.category, verdict.base_case_rows, SUPERSET)
                before = len(self.result.pushed)
                self.visit(node.children[i], _Carried(extra, at.steps + (step,), SUPERSET, here, i,
                                                      at.hides or verdict.may_hide_errors))
                self.result.pushed[before:] = [replace(p, transferred=True) for p in self.result.pushed[before:]]

    def _implied_by(self, node: P.Filter, pred: X.Expr) -> bool:
        """Every row `node` keeps, `pred` keeps (NULL as false): proved, each pair once per walk."""
        seen = self.__dict__.setdefault("_implied", {})
        key = (node.condition, pred)
        if key not in seen:
            try:
                seen[key] = X.is_deterministic(node.condition) and implied_by(
                    node.condition, pred, self.budget.slice_ms(_IMPLIED_MS))
            except Exception:  # noqa: BLE001 - not proved: the walk goes on as it would have
                seen[key] = False
        return seen[key]

    def _filters_nothing_at_all(self, g: X.Expr) -> bool:
        """G is TRUE on every row, whatever its form (proved; a time-out is no)."""
        try:
            return implied_by(X.TRUE, g, self.budget.slice_ms(_EVERY_ROW_MS))
        except Exception:  # noqa: BLE001 - unknown: said as in place, which is still true
            return False

    def _filters_nothing(self, g: X.Expr) -> bool:
        """G is TRUE on every row. Only a disjunction can be without being the literal TRUE, so
        only those are checked, each once per walk."""
        if not any(isinstance(n, X.Or) for n in X.walk(g)):
            return False
        seen = self.__dict__.setdefault("_every_row", {})
        if g not in seen:
            seen[g] = keeps_every_row(g, self.budget.slice_ms(_EVERY_ROW_MS))
        return seen[g]

    def _proved(self, node: P.Plan, pred: X.Expr, g: tuple[X.Expr | None, ...], kind: str) -> Verdict | None:
        """Check one candidate for `kind`; None unless proved."""
        verdict = check(node, pred, g, kind, self.budget.slice_ms(DEFAULT_TIMEOUT_MS))
        return verdict if verdict.proved else None

    def _naive_failure(self, node: P.Plan, pred: X.Expr) -> tuple[str, dict, str]:
        """The naive candidate (F itself on the input) and the rows on which it fails, when F's
        columns exist below; or, third, what of F the model lacks (a NaN literal, say)."""
        if isinstance(node, P.OuterJoin) and node.preserved == "both":
            tried = [c.predicates for c in candidates_for(node, pred, self.budget)]
            return (*full_outer_join.first_failure(node, pred, tried, self.budget.slice_ms(EXPLAIN_MS),
                                                   self.budget.slice_ms(3 * EXPLAIN_MS)), "")
        if len(node.children) != 1 or not X.columns(pred) <= set(node.children[0].output):
            return "", {}, ""
        # the operator's own verifier: a row-to-row check on, say, a limit would not say why
        verdict = check(node, pred, (pred,), EQUIVALENT, self.budget.slice_ms(EXPLAIN_MS))
        if not verdict.proved and verdict.reason.startswith(UNMODELLED):
            return "", {}, verdict.reason.removeprefix(UNMODELLED)
        if verdict.proved or not verdict.counterexample:
            return "", {}, ""
        return str(pred), verdict.counterexample, ""


def passing_run(node: P.Plan, pred: X.Expr) -> list[P.Project]:
    """The projections from `node` down that each pass `pred`'s columns through unchanged and
    compute only deterministic expressions without Python UDFs (which the one-step proof of
    `collapse` would have to inline): a chain of `withColumn` calls, say."""
    run: list[P.Project] = []
    wanted = X.columns(pred)
    while isinstance(node, P.Project) and node.outputs:
        passed = {c for c, e in node.outputs if e == c}
        computed = [e for _, e in node.outputs if not isinstance(e, X.Col)]  # a column reads nothing more
        if not wanted <= passed or any(not X.is_deterministic(e) or X.has_python_udf(e) for e in computed):
            break
        run.append(node)
        node = node.child
    return run


def collapse(run: list[P.Project]) -> P.Project:
    """One projection over the run's input computing, inlined, every expression of the run
    that is not a plain column, beside the columns the run passes through to its top."""
    defs: dict[X.Col, X.Expr] = {}
    made: list[tuple[X.Col, X.Expr]] = []
    for project in reversed(run):  # bottom first: each definition inlines the ones below it
        for col, e in project.outputs:
            if isinstance(e, X.Col):  # a column passed on or renamed: what it stands for below
                defs[col] = defs.get(e, e)
                continue
            inlined = X.substitute(e, defs) if defs else e
            defs[col] = inlined
            if not isinstance(inlined, X.Col):
                made.append((col, inlined))
    below = run[-1].child
    passed = [(c, c) for c in below.output if defs.get(c, c) == c]
    return P.Project(below, tuple(passed) + tuple(dict.fromkeys(made)), run[0].origin)


def nondeterministic_column(node: P.Project) -> str | None:
    """Why a projection making a nondeterministic column stops every filter, in words; None when
    its columns are all deterministic.

    >>> from magicpush_lab.ir.expr import Col, Func
    >>> order = Func("monotonically_increasing_id", (), "long", deterministic=False)
    >>> nondeterministic_column(P.Project(P.Source("t", (Col("a"),)), ((Col("__natural_order__"), order),)))
    '`__natural_order__` is the row order the pandas API on Spark adds (monotonically_increasing_id()), and a later step reads it: a filter below it would number the rows it keeps differently'
    """
    for col, e in node.outputs:
        found = X.first_nondeterministic(e)
        if found is None:
            continue
        # the call as the user wrote it: a Func's printed form may carry Spark's parameters
        call = f"{found.name}({', '.join(map(str, found.args))})" if isinstance(found, X.Func) else str(found)
        if col.name == ROW_ORDER:
            # translate/pandas_on_spark.py leaves the column out where nothing reads it
            return (f"`{col.name}` is the row order the pandas API on Spark adds ({call}), and a later step reads "
                    "it: a filter below it would number the rows it keeps differently")
        return f"`{col.name}` = {call} is nondeterministic: a filter below it would change the values of the rows it keeps"
    return None


def spark_stops_at(node: P.Plan, pred: X.Expr) -> bool:
    """Spark's optimizer would not move `pred` through `node` by itself: a grouped map, a UDF
    over a collected table, a limit, or a window, a groupBy, an unpivot or an explode where
    `pred` reads a column other than the partition or grouping keys or the copied columns
    (its PushPredicateThroughNonJoin passes those on such columns only).

    >>> k, v = X.Col("k", 1, "int"), X.Col("v", 2, "int")
    >>> w = P.Window(P.Source("t", (k, v)), (k,), (), ())
    >>> spark_stops_at(w, X.Cmp(">", k, X.Lit(1, "int"))), spark_stops_at(w, X.Cmp(">", v, X.Lit(1, "int")))
    (False, True)
    >>> m = X.Col("m", 3, "int")
    >>> g = P.Aggregate(P.Source("t", (k, v)), (k,), ((k, k), (m, X.Agg("max", v, "int"))))
    >>> spark_stops_at(g, X.Cmp(">", k, X.Lit(1, "int"))), spark_stops_at(g, X.Cmp(">", m, X.Lit(1, "int")))
    (False, True)
    """
    if isinstance(node, (P.GroupedMap, P.RowIterPipeline, P.TopK)):
        return True
    if isinstance(node, P.Window):
        keys = {c for c in node.partition if isinstance(c, X.Col)}
        return not X.columns(pred) <= keys
    if isinstance(node, P.Aggregate):  # a groupBy passes filters on its keys only
        return not X.columns(pred) <= {c for c, e in node.outputs if e in node.keys}
    if isinstance(node, P.RowExpand):  # explode passes filters on the columns it does not make
        return bool(X.columns(pred) & set(node.generated))
    if isinstance(node, P.Expand):  # unpivot, stack: only columns every output row copies as they are
        kept = {c for j, c in enumerate(node.output)
                if all(isinstance(p[j], X.Col) and p[j] == node.projections[0][j] for p in node.projections)}
        return not X.columns(pred) <= kept
    return False
