"""Turn a Z3 condition over input-row symbols into a readable IR predicate.

For a row-to-row operator, the condition under which an input row survives
the late filter is exactly a Z3 formula over that row's symbols: the late
filter with the operator's expressions (UDF bodies included) substituted in.
This module rewrites such a formula into disjunctive normal form, drops
contradictory disjuncts and implied literals with the solver, and maps the
symbols back to columns: `If(v > 500, v + 5, v) > 1000` becomes `v > 995`.

The result is only a candidate; the verifier decides whether it is correct.
"""

from __future__ import annotations

import ast
import contextvars
import datetime as dt
import math
import time
from fractions import Fraction
from typing import Iterable, Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.symbolic import calendar, pyregex
from magicpush_lab.symbolic.table import SymbolicRow
from magicpush_lab.symbolic.solver import in_z3, limit_ms, satisfiable
from magicpush_lab.symbolic.values import NotModelled

MAX_DISJUNCTS = 64
#: reading a formula back as SQL: its simplification is for readability only, so it stays short
FORMULA_MS = 500
Literal = z3.BoolRef
Conj = tuple[Literal, ...]


class NotExpressible(Exception):
    """The formula uses something with no IR counterpart (a black-box call, say)."""


#: the decimal constants the formula being read back may hold as written (see written_decimals)
_WRITTEN: contextvars.ContextVar[frozenset[Fraction]] = contextvars.ContextVar("written", default=frozenset())


def written_decimals(exprs: Iterable[X.Expr]) -> frozenset[Fraction]:
    """The float constants written in `exprs` (double literals, and float literals in the
    source of the Python UDFs they call), each as the decimal the model holds it as.

    The model reads a float written `38.8` as the real 194/5 (the shortest decimal of the
    double), which no double equals. Compared with a double, 194/5 and the double nearest it
    agree on every double (none lies between them), so such a constant may be written back as
    the same literal; but only a constant the user wrote: one the model computed (`0.1 + 0.2`
    is 3/10 there, 0.30000000000000004 in Python) would compare differently.

    >>> sorted(written_decimals([X.PyUdf("f", (), "int", "lambda h: 1 if h > 38.8 else 0")]))
    [Fraction(194, 5)]
    """
    found: set[Fraction] = set()
    for e in exprs:
        for n in X.walk(e):
            if isinstance(n, X.Lit) and isinstance(n.value, float) and math.isfinite(n.value):
                found.add(Fraction(repr(n.value)))
            elif isinstance(n, X.PyUdf) and n.source:
                try:
                    tree = ast.parse(n.source)
                except SyntaxError:
                    continue
                found.update(Fraction(repr(c.value)) for c in ast.walk(tree)
                             if isinstance(c, ast.Constant) and type(c.value) is float and math.isfinite(c.value))
    return frozenset(found)


def predicate_from_formula(phi: z3.BoolRef, rows: Sequence[SymbolicRow], timeout_ms: int = FORMULA_MS,
                           written: frozenset[Fraction] = frozenset()) -> X.Expr | None:
    """A SQL predicate whose truth on an input row is `phi`, or None if none is found; a
    constant with no exact double is written only when it is one of the `written` decimals."""
    token = _WRITTEN.set(written)
    try:
        return _predicate_from_formula(phi, rows, timeout_ms)
    finally:
        _WRITTEN.reset(token)


def _predicate_from_formula(phi: z3.BoolRef, rows: Sequence[SymbolicRow], timeout_ms: int) -> X.Expr | None:
    symbols = _symbol_table(rows)
    pre = z3.Then(z3.With("simplify", arith_lhs=True), "ctx-simplify")
    try:
        with in_z3():
            goal = z3.TryFor(pre, limit_ms(timeout_ms))(phi)
        phi = z3.And(*goal[0]) if len(goal) == 1 else phi
    except z3.Z3Exception:
        pass  # simplification is an optimisation; the raw formula still works
    try:
        # the DNF is built in Python, a lifted if-then-else at a time: it has a deadline too
        dnf = _dnf(phi, positive=True, deadline=time.monotonic() + limit_ms(timeout_ms) / 1000)
    except NotExpressible:
        return None
    if dnf is None:
        return None
    # first a propositional pass (theory atoms as plain booleans): cheap, and it removes the
    # redundancy that comes from branch conditions and their negations; the theory solver then
    # only sees what is left, under an overall deadline, since pruning is only for readability
    conjs = _propositional_prune(dnf)
    # the theory pass is only for readability: a short deadline (string atoms can be slow)
    deadline = time.monotonic() + limit_ms(timeout_ms) / 1000
    if len(conjs) <= 8:
        quick = min(timeout_ms, 100)
        pruned = []
        for c in conjs:
            kept = _prune_conj(c, quick, deadline)
            if kept is not None:
                pruned.append(kept)
        conjs = _drop_subsumed(pruned, quick, deadline)
    try:
        disjuncts = [X.and_(*_without_redundant_null_checks([_literal(l, symbols) for l in c])) for c in conjs]
    except NotExpressible:
        return None
    return X.or_(*disjuncts)


# ----------------------------------------------------------------------------- DNF


def _dnf(f: z3.BoolRef, positive: bool, deadline: float = math.inf) -> list[Conj] | None:
    """Disjunctive normal form of f (or of Not f), as lists of literals; None if too big or not
    found by `deadline` (a `time.monotonic()` value)."""
    if time.monotonic() > deadline:
        return None
    if z3.is_true(f):
        return [()] if positive else []
    if z3.is_false(f):
        return [] if positive else [()]
    if z3.is_not(f):
        return _dnf(f.arg(0), not positive, deadline)
    if z3.is_and(f) or z3.is_or(f):
        conj = z3.is_and(f) == positive
        parts = [_dnf(a, positive, deadline) for a in f.children()]
        if any(p is None for p in parts):
            return None
        return _product(parts) if conj else _union(parts)
    if z3.is_app_of(f, z3.Z3_OP_ITE) and z3.is_bool(f):
        c, a, b = f.children()
        return _dnf(z3.Or(z3.And(c, a), z3.And(z3.Not(c), b)), positive, deadline)
    if z3.is_eq(f) and z3.is_bool(f.arg(0)):
        a, b = f.children()
        return _dnf(z3.Or(z3.And(a, b), z3.And(z3.Not(a), z3.Not(b))), positive, deadline)
    if z3.is_implies(f):
        a, b = f.children()
        return _dnf(z3.Or(z3.Not(a), b), positive, deadline)
    ite = first_term_ite(f)
    if ite is not None:
        c, a, b = ite.children()
        lifted = z3.If(c, z3.substitute(f, (ite, a)), z3.substitute(f, (ite, b)))
        return _dnf(lifted, positive, deadline)
    lit = z3.simplify(f if positive else z3.Not(f), arith_lhs=True)
    if z3.is_true(lit) or z3.is_false(lit):  # a constant comparison, such as a looked-up value's test
        return [()] if z3.is_true(lit) else []
    return [(lit,)]


def _product(parts: list[list[Conj]]) -> list[Conj] | None:
    """The conjunction of DNFs, as a DNF; each conjunction holding a literal and its negation is
    dropped as it is made (a lookup's `key = k AND NOT (key IS NULL OR key <> k')` branches
    multiply out to mostly such ones), so only the consistent ones count towards the limit.

    >>> import z3
    >>> p, q = z3.Bools("p q")
    >>> _product([[(p,), (q,)], [(z3.Not(p),)]])
    [(q, Not(p))]
    """
    parts = [_absorbed(part) for part in parts]
    if len(parts) > 1:
        # an alternative every part offers is factored out: AND_i (C OR R_i) is C OR AND_i R_i
        # (`NOT (key IS NOT NULL AND key = k)` for each of a dict's keys all offer `key IS NULL`)
        def key(c: Conj) -> tuple[int, ...]:
            return tuple(l.get_id() for l in c)
        common = set.intersection(*({key(c) for c in part} for part in parts))
        if common:
            shared = [c for c in parts[0] if key(c) in common]
            rest = _product([[c for c in part if key(c) not in common] for part in parts])
            return None if rest is None else _union([shared, rest])
    # each conjunction with its literals' (atom, sign) pairs and its `term = constant` pins,
    # read once: comparing them is then set arithmetic, not calls into Z3
    acc: list[tuple[tuple[tuple[int, Conj], ...], frozenset[tuple[int, bool]], dict[int, int]]] = \
        [((), frozenset(), {})]
    # the fewest alternatives first: a single conjunction (`key = 'CA'`) then prunes each factor
    # of a long negated membership (`NOT (key = 'AL' OR key = 'AK' ...)`) to one alternative
    for i, part in sorted(enumerate(parts), key=lambda ip: len(ip[1])):
        read = [(c, _signs(c), _pins(c)) for c in part]
        acc = [(a + ((i, b),), sa | sb, {**pa, **pb}) for a, sa, pa in acc for b, sb, pb in read
               if not _clash(sa, pa, sb, pb)]
        if len(acc) > MAX_DISJUNCTS:
            return None
    # each conjunction's literals in the parts' own order, as the formula has them
    return [tuple(l for _, c in sorted(pieces, key=lambda ic: ic[0]) for l in c) for pieces, _, _ in acc]


def _signs(c: Conj) -> frozenset[tuple[int, bool]]:
    return frozenset((l.arg(0).get_id(), False) if z3.is_not(l) else (l.get_id(), True) for l in c)


def _pins(c: Conj) -> dict[int, int]:
    return dict(p for p in map(_pinned, c) if p is not None)


def _clash(sa: frozenset, pa: dict[int, int], sb: frozenset, pb: dict[int, int]) -> bool:
    """Two conjunctions contradict each other: a literal and its negation, or one term equal to
    two different constants (`key = 'AL'` and `key = 'CA'`).

    >>> k = z3.String("k")
    >>> al, ca = (k == z3.StringVal("AL"),), (k == z3.StringVal("CA"),)
    >>> _clash(_signs(al), _pins(al), _signs(ca), _pins(ca)), _clash(_signs(al), _pins(al), _signs(al), _pins(al))
    (True, False)
    """
    return any((atom, not sign) in sa for atom, sign in sb) or \
        any(term in pa and pa[term] != value for term, value in pb.items())


def _pinned(lit: z3.BoolRef) -> tuple[int, int] | None:
    """(term id, constant id) for a literal `term = constant`, else None. Z3 interns its terms,
    so two different constant ids are two different values."""
    if not z3.is_eq(lit):
        return None
    a, b = lit.children()
    for term, value in ((a, b), (b, a)):
        if z3.is_string_value(value) or z3.is_int_value(value) or z3.is_rational_value(value):
            if not (z3.is_string_value(term) or z3.is_int_value(term) or z3.is_rational_value(term)):
                return term.get_id(), value.get_id()
    return None


def _without_implied_disequalities(lits: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """`NOT (key = 'AL')` dropped beside `key = 'CA'`, which implies it: a dictionary lookup's
    branch lists every other key so, and the solver would take each out one call at a time.

    >>> k = z3.String("k")
    >>> _without_implied_disequalities([k == z3.StringVal("CA"), z3.Not(k == z3.StringVal("AL"))])
    [k == "CA"]
    """
    pinned = dict(p for p in map(_pinned, lits) if p is not None)
    def implied(l: z3.BoolRef) -> bool:
        if not z3.is_not(l):
            return False
        found = _pinned(l.arg(0))
        return found is not None and found[0] in pinned and pinned[found[0]] != found[1]
    return [l for l in lits if not implied(l)]


def _absorbed(part: list[Conj]) -> list[Conj]:
    """A DNF with repeated literals dropped, and each conjunction that holds all of another
    one's literals dropped (X OR (X AND Y) is X).

    >>> import z3
    >>> p, q = z3.Bools("p q")
    >>> _absorbed([(p, q, p), (p,)])
    [(p,)]
    """
    unique = [tuple({l.get_id(): l for l in c}.values()) for c in part]
    keys = [frozenset(l.get_id() for l in c) for c in unique]
    return [c for i, c in enumerate(unique)
            if not any(other < keys[i] or (other == keys[i] and j < i) for j, other in enumerate(keys) if j != i)]


def _union(parts: list[list[Conj]]) -> list[Conj] | None:
    out = [c for p in parts for c in p]
    return out if len(out) <= MAX_DISJUNCTS else None


def first_term_ite(f: z3.ExprRef, seen: set[int] | None = None) -> z3.ExprRef | None:
    """The first non-boolean if-then-else inside `f`, depth first. Each shared subterm is looked
    into once (`seen`): Z3's terms are DAGs, and a timestamp's calendar arithmetic shares
    subterms so deeply that a walk of the tree is exponential."""
    seen = set() if seen is None else seen
    for child in f.children():
        key = child.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_app_of(child, z3.Z3_OP_ITE) and not z3.is_bool(child):
            return child
        found = first_term_ite(child, seen)
        if found is not None:
            return found
    return None


# ----------------------------------------------------------------------------- pruning


def _propositional_prune(dnf: list[Conj]) -> list[Conj]:
    """The DNF with contradictory conjunctions dropped (an atom and its negation), repeated
    literals dropped, and conjunctions dropped that contain another one's literals (they add
    no rows). With theory atoms as plain booleans these are the only implications between
    conjunctions of literals, so this needs no solver.

    >>> import z3
    >>> p, q = z3.Bools("p q")
    >>> _propositional_prune([(p, z3.Not(p)), (p, q, p), (p,)])
    [(p,)]
    """
    def atom_and_sign(lit: z3.BoolRef) -> tuple[int, bool]:
        negated = z3.is_not(lit)
        return (lit.arg(0) if negated else lit).get_id(), not negated

    keyed = []
    for conj in dnf:
        lits = _without_implied_disequalities(list(dict.fromkeys(l for l in conj if not z3.is_true(z3.simplify(l)))))
        signs = {atom_and_sign(l) for l in lits}
        if any((atom, not sign) in signs for atom, sign in signs):
            continue  # contradictory
        keyed.append((frozenset(signs), tuple(lits)))
    kept = []
    for i, (signs, lits) in enumerate(keyed):
        # subsumed by a weaker conjunction (a proper subset; of equal ones the first stays)
        if any(other < signs or (other == signs and j < i) for j, (other, _) in enumerate(keyed) if j != i):
            continue
        kept.append(lits)
    return kept


def _check(formula_of, timeout_ms: int, deadline: float | None) -> bool | None:
    if deadline is not None and time.monotonic() > deadline:
        return None  # out of time: "may be satisfiable", which only keeps more
    return satisfiable(formula_of(), timeout_ms)


def _prune_conj(conj: Conj, timeout_ms: int, deadline: float | None = None) -> Conj | None:
    """Drop the conjunction if contradictory; drop literals the others imply."""
    lits = list(dict.fromkeys(l for l in conj if not z3.is_true(z3.simplify(l))))
    if _check(lambda: z3.And(*lits), timeout_ms, deadline) is False:
        return None
    i = 0
    while i < len(lits):
        rest = lits[:i] + lits[i + 1:]
        if rest and _check(lambda: z3.And(*rest, z3.Not(lits[i])), timeout_ms, deadline) is False:
            lits = rest
        else:
            i += 1
    return tuple(lits)


def _drop_subsumed(conjs: list[Conj], timeout_ms: int, deadline: float | None = None) -> list[Conj]:
    """Remove disjuncts that imply another disjunct (they add no rows)."""

    def implies(a: Conj, b: Conj) -> bool:
        return _check(lambda: z3.And(*a, z3.Not(z3.And(*b))), timeout_ms, deadline) is False

    kept = list(conjs)
    i = 0
    while i < len(kept):
        others = kept[:i] + kept[i + 1:]
        if any(implies(kept[i], o) for o in others):
            kept = others
        else:
            i += 1
    return kept


def _without_redundant_null_checks(lits: list[X.Expr]) -> list[X.Expr]:
    """SQL comparisons are already false on NULL, so `c IS NOT NULL AND c > 3` is `c > 3`."""
    rejected = {c for lit in lits if not isinstance(lit, (X.IsNotNull, X.IsNull)) for c in X.columns(lit)
                if _null_rejecting(lit)}
    return [l for l in lits if not (isinstance(l, X.IsNotNull) and isinstance(l.arg, X.Col) and l.arg in rejected)]


def _null_rejecting(lit: X.Expr) -> bool:
    return isinstance(lit, (X.Cmp, X.In, X.Func)) and not (isinstance(lit, X.Cmp) and lit.op == "<=>")


# ----------------------------------------------------------------------------- back to IR


def _symbol_table(rows: Iterable[SymbolicRow]) -> dict[str, tuple[str, X.Col]]:
    table: dict[str, tuple[str, X.Col]] = {}
    for row in rows:
        for (name, cid), cell in row.cells.items():
            col = X.Col(name, cid, row.types.get(name, "other"))
            if z3.is_const(cell.value):
                table[str(cell.value)] = ("value", col)
            if z3.is_const(cell.notnull):
                table[str(cell.notnull)] = ("notnull", col)
    return table


_CMP_OPS = {z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "=",
            z3.Z3_OP_STRING_LT: "<", z3.Z3_OP_STRING_LE: "<="}
_NEGATED = {"<=": ">", "<": ">=", ">=": "<", ">": "<=", "=": "!=", "!=": "="}


def _literal(lit: z3.BoolRef, symbols: dict[str, tuple[str, X.Col]]) -> X.Expr:
    negate = False
    while z3.is_not(lit):
        negate, lit = not negate, lit.arg(0)
    if z3.is_const(lit) and str(lit) in symbols:
        role, col = symbols[str(lit)]
        if role == "notnull":
            return X.IsNull(col) if negate else X.IsNotNull(col)
        return X.Not(col) if negate else col  # a boolean column
    if z3.is_and(lit) or z3.is_or(lit):
        # a literal the simplifier rewrote (ToInt(d) == 1 as d >= 1 AND NOT d >= 2)
        parts = [_literal(z3.Not(c) if negate else c, symbols) for c in lit.children()]
        return X.and_(*parts) if z3.is_and(lit) != negate else X.or_(*parts)
    kind = lit.decl().kind()
    if kind in _CMP_OPS:
        a, b = _moved(*lit.children())
        op = _CMP_OPS[kind]
        hint = _dtype_hint(a, symbols) or _dtype_hint(b, symbols)
        left, right = _term(a, symbols, hint), _term(b, symbols, hint)
        return X.Cmp(_NEGATED[op] if negate else op, left, right)
    if kind == z3.Z3_OP_SEQ_IN_RE:  # a regular expression of a UDF body, as Spark's rlike
        try:
            pattern = pyregex.java_pattern(lit.arg(1))
        except NotModelled as err:
            raise NotExpressible(str(err)) from err
        e = X.Func("rlike", (_term(lit.arg(0), symbols, "string"), X.Lit(pattern, "string")), "boolean")
        return X.Not(e) if negate else e
    if kind in (z3.Z3_OP_SEQ_PREFIX, z3.Z3_OP_SEQ_SUFFIX, z3.Z3_OP_SEQ_CONTAINS):
        a, b = lit.children()
        if kind == z3.Z3_OP_SEQ_CONTAINS:
            e = X.Func("contains", (_term(a, symbols, "string"), _term(b, symbols, "string")), "boolean")
        else:
            name = "startswith" if kind == z3.Z3_OP_SEQ_PREFIX else "endswith"
            e = X.Func(name, (_term(b, symbols, "string"), _term(a, symbols, "string")), "boolean")
        return X.Not(e) if negate else e
    raise NotExpressible(f"literal {lit}")


def _dtype_hint(t: z3.ExprRef, symbols: dict[str, tuple[str, X.Col]]) -> str | None:
    if z3.is_const(t) and str(t) in symbols:
        return symbols[str(t)][1].dtype
    if z3.is_app(t) and (t.decl().name() in calendar.SPARK_NAMES or t.decl().kind() == z3.Z3_OP_SEQ_INDEX):
        return "int"  # a date's field or a position is a number, whatever its argument's type
    for c in t.children():
        h = _dtype_hint(c, symbols)
        if h:
            return h
    return None


def _term(t: z3.ExprRef, symbols: dict[str, tuple[str, X.Col]], hint: str | None) -> X.Expr:
    if z3.is_const(t) and str(t) in symbols:
        role, col = symbols[str(t)]
        if role == "value":
            return col
    if z3.is_int_value(t):
        n = t.as_long()
        if hint == "date":
            return X.Lit(dt.date(1970, 1, 1) + dt.timedelta(days=n), "date")
        if hint == "timestamp":
            return X.Lit(dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=n), "timestamp")
        return X.Lit(n, hint if hint in ("int", "long", "short", "byte") else "long")
    if z3.is_rational_value(t):
        frac = Fraction(t.numerator_as_long(), t.denominator_as_long())
        if frac.denominator == 1:
            return X.Lit(int(frac), "long") if hint not in ("double", "float") else X.Lit(float(frac), "double")
        if Fraction(float(frac)) != frac and frac not in _WRITTEN.get():
            raise NotExpressible(f"{frac} has no exact double")
        return X.Lit(float(frac), "double")
    if z3.is_string_value(t):
        return X.Lit(t.as_string(), "string")
    if z3.is_true(t) or z3.is_false(t):
        return X.Lit(z3.is_true(t), "boolean")
    if z3.is_to_real(t):
        return _term(t.arg(0), symbols, hint)
    kind = t.decl().kind() if z3.is_app(t) else None
    arith = {z3.Z3_OP_ADD: "+", z3.Z3_OP_SUB: "-", z3.Z3_OP_MUL: "*"}
    if kind in arith:
        if any(_dtype_hint(c, symbols) in ("date", "timestamp") for c in t.children()):
            # date + n in Spark is a date (date_add), not the day number the model adds to
            raise NotExpressible(f"arithmetic on a date: {t}")
        terms = [_term(c, symbols, hint) for c in t.children()]
        out = terms[0]
        for nxt in terms[1:]:
            out = X.Arith(arith[kind], out, nxt, hint or "other")
        return out
    if kind == z3.Z3_OP_TO_INT:
        # math.floor/ceil/trunc and round() of a double: Spark's floor and ceil raise (ANSI) on
        # NaN, the infinities and values beyond the long range, which the pushed predicate would
        # meet on rows the NaN widening keeps; compared with a constant they are ranges of the
        # double instead (the simplifier writes floor(d) == 1 as 1 <= d < 2)
        raise NotExpressible(f"floor of a double has no Spark form that never raises: {t}")
    if kind == z3.Z3_OP_UMINUS:
        return X.Neg(_term(t.arg(0), symbols, hint))
    if kind == z3.Z3_OP_SEQ_LENGTH:
        return X.Func("length", (_term(t.arg(0), symbols, "string"),), "int")
    return _spark_function(t, kind, symbols)


def _negated(t: z3.ExprRef) -> z3.ExprRef | None:
    """x when `t` is -x or -1 * x (the simplifier writes the one as the other)."""
    if not z3.is_app(t):
        return None
    if t.decl().kind() == z3.Z3_OP_UMINUS:
        return t.arg(0)
    if t.decl().kind() == z3.Z3_OP_MUL and t.num_args() == 2:
        k = z3.simplify(t.arg(0))
        if (z3.is_int_value(k) and k.as_long() == -1) or (z3.is_rational_value(k) and k.as_fraction() == -1):
            return t.arg(1)
    return None


def _moved(a: z3.ExprRef, b: z3.ExprRef) -> tuple[z3.ExprRef, z3.ExprRef]:
    """`x + -1 * y` compared with 0 as x compared with y: the simplifier's form of `x == y`
    adds a subtraction that Spark's integer types may overflow, where the comparison does not."""
    if z3.is_app(a) and a.decl().kind() == z3.Z3_OP_ADD and a.num_args() == 2 and z3.is_int_value(b) \
            and b.as_long() == 0:
        x, y = a.children()
        if _negated(y) is not None and _negated(x) is None:
            return x, _negated(y)
        if _negated(x) is not None and _negated(y) is None:
            return y, _negated(x)
    return a, b


def _spark_function(t: z3.ExprRef, kind, symbols: dict[str, tuple[str, X.Col]]) -> X.Expr:
    """A term a UDF body computed, as the Spark function encode.py encodes as the same term
    (symbolic/spark_functions.py): a date's fields, a substring, a concatenation, a replace,
    a position."""
    name = t.decl().name() if z3.is_app(t) else ""
    if name in calendar.SPARK_NAMES and t.num_args() == 1:
        return X.Func(calendar.SPARK_NAMES[name], (_term(t.arg(0), symbols, "date"),), "int")
    if kind == z3.Z3_OP_SEQ_EXTRACT:
        start, size = (z3.simplify(c) for c in t.children()[1:])
        if z3.is_int_value(start) and z3.is_int_value(size) and start.as_long() >= 0 and size.as_long() >= 0:
            return X.Func("substring", (_term(t.arg(0), symbols, "string"), X.Lit(start.as_long() + 1, "int"),
                                        X.Lit(size.as_long(), "int")), "string")
    if kind == z3.Z3_OP_SEQ_AT and z3.is_int_value(z3.simplify(t.arg(1))) and z3.simplify(t.arg(1)).as_long() >= 0:
        at = z3.simplify(t.arg(1)).as_long()  # one character, "" past the end, as substring gives
        return X.Func("substring", (_term(t.arg(0), symbols, "string"), X.Lit(at + 1, "int"), X.Lit(1, "int")),
                      "string")
    if kind == z3.Z3_OP_SEQ_CONCAT:
        return X.Func("concat", tuple(_term(c, symbols, "string") for c in t.children()), "string")
    if kind == z3.Z3_OP_SEQ_REPLACE_ALL:
        search = t.arg(1)
        if z3.is_string_value(search) and search.as_string():
            return X.Func("replace", tuple(_term(c, symbols, "string") for c in t.children()), "string")
    if kind == z3.Z3_OP_SEQ_INDEX and z3.is_int_value(z3.simplify(t.arg(2))) and z3.simplify(t.arg(2)).as_long() == 0:
        found = X.Func("instr", (_term(t.arg(0), symbols, "string"), _term(t.arg(1), symbols, "string")), "int")
        return X.Arith("-", found, X.Lit(1, "int"), "int")
    raise NotExpressible(f"term {t}")
