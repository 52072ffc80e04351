"""Candidates combined from predicate components (paper, Section 4.4.2, Algorithm 1).

When the candidates read straight off the late filter (search/candidates.py, the
"shortcut") are all refused, the search falls back to combining components:
conjuncts of those candidates (from F) and the branch conditions of the
operator's Python UDFs with their negations (from Op). Conjunctions of up to
`max_literals` components, without a literal and its negation, are sorted by
literal count, most first; candidates are disjunctions of them, fewer
disjuncts first.

Enumerating every subset is what made the paper's prototype try over 1,000
candidates for its Listing 6. Here the solver steers the enumeration on the
operator's one-row semantics (row-to-row operators only): with `keep` the
condition under which an input row survives the operator and the late filter,

- a disjunction is a superset candidate only if it covers `keep`; the next
  disjunct is chosen among the conjunctions true on a kept row the current
  disjunction misses (a model of `keep AND NOT D`), so no subset that cannot
  cover is ever built;
- it can be an equivalent candidate only if each disjunct implies `keep`.

These checks only order and prune the candidates. Every candidate still goes
through the verifier, which alone decides.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Iterator

import z3

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.search.formula import FORMULA_MS, first_term_ite, predicate_from_formula, written_decimals
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.row_ops import apply_op, op_expressions
from magicpush_lab.symbolic.solver import in_z3, limit_ms
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled

ROW_OPS = (P.Filter, P.Project, P.Reorder)


@dataclass(frozen=True)
class Limits:
    max_literals: int = 2  # components per conjunction
    max_disjuncts: int = 3  # conjunctions per candidate
    max_checks: int = 3000  # solver checks spent on ordering and pruning
    check_ms: int = 200  # per check; a time-out counts as "not shown", never as a proof
    seconds: float = 2.0  # per operator, of the user's budget, when the shortcut candidates fail


@dataclass(frozen=True)
class Combined:
    predicate: X.Expr
    disjuncts: int
    may_be_equivalent: bool  # every disjunct implies the one-row keep condition


def op_components(op: P.Plan, budget: Budget) -> list[X.Expr]:
    """Branch conditions of the Python UDFs `op` evaluates, each followed by its negation, over
    `op`'s input columns; for a Filter, its own condition's conjuncts.

    >>> v = X.Col("v", 1, "int")
    >>> src = "def f(v):\\n    if v is None:\\n        return 0\\n    return 1 if v > 5 else 2\\n"
    >>> op = P.Project(P.Source("t", (v,)), ((X.Col("w", 2, "int"), X.PyUdf("f", (v,), "int", src)),))
    >>> [str(c) for c in op_components(op, Budget())]
    ['v IS NULL', 'v IS NOT NULL', 'v > 5', 'v <= 5']
    """
    from magicpush_lab.symbolic.python_udf import branch_tests

    found: list[X.Expr] = []
    if isinstance(op, P.Filter):
        found.extend(X.conjuncts(op.condition))
    if len(op.children) != 1:
        return found
    for e in op_expressions(op):
        for udf in (n for n in X.walk(e) if isinstance(n, X.PyUdf)):
            if udf.source is None or udf.kind != "python" or not udf.deterministic:
                continue
            row, ev = SymbolicRow("in0"), Evaluator()
            try:
                cells = tuple(ev.eval(a, row) for a in udf.args)
                tests = branch_tests(udf.source, cells, tuple(X.dtype_of(a) for a in udf.args))
            except (NotModelled, z3.Z3Exception, SyntaxError):
                continue
            for test in tests:
                for phi in (test, z3.Not(test)):
                    g = predicate_from_formula(phi, [row], budget.slice_ms(FORMULA_MS), written_decimals([udf]))
                    if g is not None and g not in (X.TRUE, X.FALSE):
                        found.append(g)
    return _unique(found)


def conjunctions(components: list[X.Expr], max_literals: int) -> list[tuple[X.Expr, ...]]:
    """Every set of up to `max_literals` components without a component and its negation,
    most components first, then in the components' order.

    >>> a, b = X.Col("a", 1, "boolean"), X.Col("b", 2, "boolean")
    >>> [" & ".join(map(str, c)) for c in conjunctions([a, X.Not(a), b], 2)]
    ['a & b', 'NOT a & b', 'a', 'NOT a', 'b']
    """
    found = []
    for size in range(max_literals, 0, -1):
        for combo in itertools.combinations(components, size):
            if not _conflicting(combo):
                found.append(combo)
    return found


def combined_candidates(op: P.Plan, f: X.Expr, components: list[X.Expr], budget: Budget,
                        limits: Limits = Limits()) -> Iterator[Combined]:
    """Disjunctions of conjunctions of `components` that may be a correct G for `f` above `op`:
    first those whose every disjunct implies the keep condition (possible equivalences), then
    the other covers, each group with fewer disjuncts first. Nothing for operators other than
    row-to-row ones, whose one-row semantics the pruning needs. The enumeration stops when the
    budget is spent or after `limits.seconds` of it, counted from the first candidate asked for."""
    if not isinstance(op, ROW_OPS) or not components or budget.spent:
        return
    try:
        search = _CoverSearch(op, f, components, limits, budget)
    except (NotModelled, z3.Z3Exception):
        return
    seen: set[frozenset[int]] = set()
    everything = range(len(search.conjs))
    for exact in (True, False):
        for k in range(1, limits.max_disjuncts + 1):
            for chosen in search.covers(everything, k, search.implies_keep if exact else None):
                if chosen not in seen and search.drops_some_row(chosen):
                    seen.add(chosen)
                    yield Combined(search.predicate(chosen), len(chosen), exact)
            if search.spent():
                return


class _CoverSearch:
    """The solver state for one operator and late filter: the keep condition asserted once,
    candidate disjunctions checked against it incrementally."""

    def __init__(self, op: P.Plan, f: X.Expr, components: list[X.Expr], limits: Limits,
                 budget: Budget) -> None:
        self.limits, self.budget, self.checks = limits, budget, 0
        self.deadline = budget.deadline(limits.seconds)
        row, ev = SymbolicRow("in0"), Evaluator()
        out = apply_op(op, [row], ev)
        keep = z3.And(out.exists, truth(ev.eval(f, out)), z3.Not(ev.error()))  # f's own errors included
        passed = out.exists
        comp_ev = Evaluator()
        truths = [truth(comp_ev.eval(c, row)) for c in components]
        facts = domain([row])
        # the pruning works on the propositional skeleton: theory atoms (`contains(s, 'Data')`,
        # `v > 5`) as free booleans. Z3's string theory can time out on the real formulas,
        # and the skeleton is sound for what is used here: unsatisfiable there means
        # unsatisfiable for real; a spurious model only costs a candidate the verifier refuses
        atoms = _Skeleton(self.deadline)
        keep, facts, truths = atoms.of(keep), atoms.of(facts), [atoms.of(t) for t in truths]
        passed = atoms.of(passed)
        error = atoms.of(ev.error())
        self.components = components
        index = {c: i for i, c in enumerate(components)}
        # a conjunction of a branch test and its negation read back is unsatisfiable: never true
        # on a kept row, so never chosen below
        self.conjs = [tuple(index[c] for c in combo) for combo in conjunctions(components, limits.max_literals)]
        self.truth = [z3.And(*(truths[i] for i in c)) for c in self.conjs]
        self.kept = z3.Solver()  # rows the original keeps
        self.kept.set("timeout", limit_ms(budget.slice_ms(limits.check_ms)))
        self.kept.add(facts, keep)
        self.dropped = z3.Solver()  # rows the original drops
        self.dropped.set("timeout", limit_ms(budget.slice_ms(limits.check_ms)))
        # rows the operator passes on and the late filter drops, without raising: a candidate
        # must drop some of them to be worth anything. Dropping rows the operator drops itself
        # (a Filter's own condition) gains nothing; dropping rows the original fails on only
        # hides an error
        self.dropped.add(facts, passed, z3.Not(keep), z3.Not(error))
        self._kept_rows: list[z3.ModelRef] = []
        self._dropped_rows: list[z3.ModelRef] = []
        self._inside: dict[int, bool] = {}

    def spent(self) -> bool:
        return self.checks >= self.limits.max_checks or self.budget.spent or time.monotonic() > self.deadline

    def implies_keep(self, i: int) -> bool:
        """Conjunction i holds on no row the operator passes and the late filter drops. Dropped
        rows found before are tried first: most conjunctions fail on one of them."""
        if i in self._inside:
            return self._inside[i]
        if any(_holds(m, self.truth[i]) for m in self._dropped_rows):
            self._inside[i] = False
        elif self.spent():
            return False
        else:
            self.checks += 1
            answer, model = _check(self.dropped, self.truth[i])
            if model is not None:
                self._dropped_rows.append(model)
            self._inside[i] = answer == z3.unsat
        return self._inside[i]

    def drops_some_row(self, chosen: frozenset[int]) -> bool:
        """Some row the operator passes and the late filter drops (no error raised) fails every
        chosen conjunction."""
        self.checks += 1
        answer, model = _check(self.dropped, z3.Not(z3.Or(*(self.truth[i] for i in chosen))))
        if model is not None:
            self._dropped_rows.append(model)
        return answer == z3.sat

    def missed_row(self, chosen: tuple[int, ...]) -> z3.ModelRef | None | bool:
        """A kept row no chosen conjunction holds on; True when they cover every kept row,
        None when the solver cannot tell. Kept rows found before are tried first."""
        for m in self._kept_rows:
            if not any(_holds(m, self.truth[i]) for i in chosen):
                return m
        self.checks += 1
        answer, model = _check(self.kept, z3.Not(z3.Or(*(self.truth[i] for i in chosen))) if chosen else z3.BoolVal(True))
        if answer == z3.unsat:
            return True
        if model is not None:
            self._kept_rows.append(model)
        return model

    def covers(self, pool: range, k: int, allowed=None) -> Iterator[frozenset[int]]:
        """Sets of exactly k conjunctions from `pool` (those `allowed`) covering every kept
        row, found by extending a partial set with a conjunction true on a kept row it misses."""
        def extend(chosen: tuple[int, ...]) -> Iterator[frozenset[int]]:
            if self.spent():
                return
            missed = self.missed_row(chosen)
            if missed is True:
                if len(chosen) == k:
                    yield frozenset(chosen)
                return  # a cover with fewer disjuncts: found at a smaller k
            if missed is None or len(chosen) == k:
                return
            for i in pool:
                if i not in chosen and _holds(missed, self.truth[i]) and (allowed is None or allowed(i)):
                    yield from extend(chosen + (i,))
                    if self.spent():
                        return
        yield from extend(())

    def predicate(self, chosen: frozenset[int]) -> X.Expr:
        return X.or_(*(X.and_(*(self.components[j] for j in self.conjs[i])) for i in sorted(chosen)))


class _Skeleton:
    """A formula's propositional skeleton: each theory atom a boolean variable, the same atom
    the same variable; a term-level if-then-else is lifted out of its atom first, so
    `If(c, 'Finance', 'Data') = 'Data'` becomes `If(c, False, True)`."""

    def __init__(self, deadline: float = math.inf) -> None:
        # keyed by Z3's term id; the term is kept alive with its entry, since Z3 reuses the id
        # of a freed term (the substituted atoms below are temporaries)
        self.vars: dict[int, tuple[z3.ExprRef, z3.BoolRef]] = {}
        self.memo: dict[int, tuple[z3.ExprRef, z3.BoolRef]] = {}
        self.deadline = deadline  # lifting if-then-elses can multiply a formula: it has a deadline

    def of(self, f: z3.BoolRef) -> z3.BoolRef:
        key = f.get_id()
        if key not in self.memo:
            if time.monotonic() > self.deadline:
                raise NotModelled("the formula's propositional skeleton took longer than the search's time")
            self.memo[key] = (f, self._skeleton(f))
        return self.memo[key][1]

    def _skeleton(self, f: z3.BoolRef) -> z3.BoolRef:
        if z3.is_true(f) or z3.is_false(f):
            return f
        if z3.is_not(f):
            return z3.Not(self.of(f.arg(0)))
        if z3.is_and(f):
            return z3.And(*(self.of(a) for a in f.children()))
        if z3.is_or(f):
            return z3.Or(*(self.of(a) for a in f.children()))
        if z3.is_implies(f):
            return z3.Implies(self.of(f.arg(0)), self.of(f.arg(1)))
        if z3.is_app_of(f, z3.Z3_OP_ITE):
            return z3.If(self.of(f.arg(0)), self.of(f.arg(1)), self.of(f.arg(2)))
        if z3.is_eq(f) and z3.is_bool(f.arg(0)):
            return self.of(f.arg(0)) == self.of(f.arg(1))
        ite = first_term_ite(f)
        if ite is not None:
            c, a, b = ite.children()
            return z3.If(self.of(c), self.of(z3.substitute(f, (ite, a))), self.of(z3.substitute(f, (ite, b))))
        atom = z3.simplify(f, arith_lhs=True)
        if z3.is_true(atom) or z3.is_false(atom):
            return atom
        return self.vars.setdefault(atom.get_id(), (atom, z3.Bool(f"atom_{len(self.vars)}")))[1]


def _check(solver: z3.Solver, extra: z3.BoolRef) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    """The answer for the solver's facts and `extra`, with a model when satisfiable."""
    solver.push()
    try:
        solver.add(extra)
        with in_z3():
            answer = solver.check()
        return answer, solver.model() if answer == z3.sat else None
    finally:
        solver.pop()


def _holds(model: z3.ModelRef, phi: z3.BoolRef) -> bool:
    return z3.is_true(model.eval(phi, model_completion=True))


def _conflicting(combo: tuple[X.Expr, ...]) -> bool:
    """A component together with its written negation."""
    items = set(combo)
    return any(isinstance(c, X.Not) and c.arg in items for c in combo)


def _unique(items: list[X.Expr]) -> list[X.Expr]:
    out: list[X.Expr] = []
    for e in items:
        if e not in out:
            out.append(e)
    return out
