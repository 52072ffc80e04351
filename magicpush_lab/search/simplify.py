"""A proved predicate in the smallest form that keeps the same rows, as a person would write it.

The search builds predicates by rules, and what a rule writes is correct but rarely minimal:
conjuncts that other conjuncts imply, disjunctions that hold on every row whose columns are
set (`~(c == "a") | ~(c == "b")` is `c IS NOT NULL`), guards that keep no row the rest would
not, a predicate no row passes written out in full. Each smaller form tried here is used only
when Z3 proves, on one symbolic row, that it keeps exactly the rows the current form keeps
(NULLs included) and that neither can raise (`sargable.keeps_rows`, which also refuses
whatever the encoder does not model exactly: double arithmetic, division, Python UDFs). A
predicate at a source is a function of one row, so one row is the whole proof.

Exact rewrites come first, with no proof (`normalized`): repeated tests once, `b = true` as
`b`, equalities of one column with literals as one IN, tests every disjunct of an OR shares
taken out of it. Then the forms tried, from one predicate, smallest first:

- FALSE, when no row passes;
- a conjunct dropped (replaced by TRUE) or a disjunct dropped (replaced by FALSE), anywhere
  in the tree, so a conjunct implied by the others goes and so does a redundant guard;
- a boolean subtree replaced by `IS NOT NULL` of its columns;
- a boolean CASE replaced by its ELSE value (a guard branch that changes no row).

Greedy: the first proved form is taken and the search starts again from it, so every step
shrinks the predicate; the proofs are bounded in number and in time, and a proof that runs
out of time ends the search with the current form (a missed simplification costs
readability, never rows). A form that gives up a test the scan takes for a smaller one it
cannot take is refused.

>>> c = X.Col("c", 1, "string")
>>> p = X.And((X.Or((X.Not(X.Cmp("=", c, X.Lit("a", "string"))), X.Not(X.Cmp("=", c, X.Lit("b", "string"))))),
...            X.IsNotNull(c)))
>>> str(simplest(p))
'c IS NOT NULL'
>>> x = X.Col("x", 2, "int")
>>> str(simplest(X.And((X.Cmp(">", x, X.Lit(10, "int")), X.Cmp(">", x, X.Lit(5, "int")), X.IsNotNull(x)))))
'x > 10'
>>> str(simplest(X.And((X.Cmp(">", x, X.Lit(10, "int")), X.Cmp("<", x, X.Lit(5, "int"))))))
'False'
"""

from __future__ import annotations

import functools
import time
from typing import Iterator

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.search.sargable import answer, keeps_rows, prefer_sargable, rows_kept_alike
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.solver import prove
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled

MAX_PROOFS = 48  # a predicate of 20 disjuncts needs about that many tries to shrink fully
PROOF_MS = 250  # one row: a proof that takes longer ends the search (the next would too)

_BOOLEAN = (X.Cmp, X.And, X.Or, X.Not, X.IsNull, X.IsNotNull, X.In)

Path = tuple[int, ...]


def readable(e: X.Expr, timeout_ms: int = 2000) -> X.Expr:
    """`e` as suggested: its smallest proved form, each conjunct then in a form a scan can
    skip on where one is proved (`sargable.prefer_sargable`).

    >>> a = X.Col("amount", 1, "int")
    >>> p = X.And((X.Cmp(">", X.Arith("+", a, X.Lit(99, "long"), "long"), X.Lit(1049, "long")), X.IsNotNull(a)))
    >>> str(readable(p))
    'amount > 950'
    """
    half = timeout_ms // 2
    return simplest(prefer_sargable(simplest(e, half), half), half)


_FOUND: dict[tuple, X.Expr] = {}  # predicate -> its smallest form, from searches that ran to their end
_MAX_FOUND = 4096


def simplest(e: X.Expr, timeout_ms: int = 1500) -> X.Expr:
    """See `_simplest`. A search that ran to its end is kept: the walk, the alternatives and the
    joint predicate ask again for the same predicate, and the answer does not change."""
    key = typed(e)
    if key in _FOUND:
        return _FOUND[key]
    form, complete = _simplest(e, timeout_ms)
    if complete:
        if len(_FOUND) >= _MAX_FOUND:
            _FOUND.clear()
        _FOUND[key] = form
    return form


def typed(e: X.Expr) -> tuple:
    """`e` with its columns' types: two columns that differ only in type are equal as IR
    (`X.Col` compares name and id), but an int and a long do not bound the same values."""
    return e, tuple(sorted((c.name, c.id, c.dtype) for c in X.columns(e)))


def _simplest(e: X.Expr, timeout_ms: int) -> tuple[X.Expr, bool]:
    """The smallest form of `e` found that is proved to keep the same rows (`e` itself when
    none is, or when the time runs out).

    Only the conjuncts the prover models exactly and that can never raise are shrunk, together
    (the others stay as they are, in their places). A form whose scan part (its conjuncts a scan
    takes) keeps rows the current scan part drops is not taken: a smaller predicate the scan
    cannot skip on is worth less than a larger one it can.

    >>> x = X.Col("x", 1, "int")
    >>> p = X.And((X.Cmp(">", x, X.Lit(10, "int")), X.Cmp(">", X.Arith("*", x, X.Lit(2, "long"), "long"), X.Lit(20, "long"))))
    >>> str(simplest(p))
    'x > 10'

    Also says whether the search ran to its end (False: out of time or proofs).
    """
    e = normalized(e)
    deadline = time.monotonic() + timeout_ms / 1000
    parts = X.conjuncts(e)
    if len(parts) == 1 and not any(isinstance(n, (X.And, X.Or, X.Case)) for n in X.walk(e)):
        return e, True
    exact = [c for c in parts if _exact(typed(c))]
    if not exact:
        return e, True
    shrunk, complete = _shrink(X.and_(*exact), deadline)
    # the shrunk part takes the place of the first conjunct it came from: Spark evaluates an
    # AND left to right and stops at FALSE, so a conjunct that can raise keeps what runs before it
    at = parts.index(exact[0])
    return X.and_(*(c for c in parts[:at] if c not in exact), shrunk, *(c for c in parts[at:] if c not in exact)), complete


@functools.lru_cache(maxsize=4096)
def _exact(key: tuple) -> bool:
    """Does the model read the conjunct of `typed(c)` exactly, and can it never raise? Asked
    again for each push of one conjunct (the walk's, the alternatives', the joint
    predicate's): proved once."""
    return keeps_rows(key[0], key[0], PROOF_MS)


def _shrink(current: X.Expr, deadline: float) -> tuple[X.Expr, bool]:
    if not any(isinstance(n, (X.And, X.Or, X.Case)) for n in X.walk(current)):
        return current, True  # one test: nothing to drop, and proofs on strings can be slow
    refused: set[X.Expr] = set()
    proofs = 0
    shrinking = True
    while shrinking:
        shrinking = False
        for form in smaller_forms(current):
            if form in refused:
                continue
            left_ms = int((deadline - time.monotonic()) * 1000)
            if proofs >= MAX_PROOFS or left_ms <= 0:
                return current, False
            proofs += 1
            limit = min(PROOF_MS, left_ms)
            scan = _keeps_scan(current, form, limit)
            same = rows_kept_alike(current, form, limit) if scan else scan
            if same:
                current, shrinking = form, True
                break
            if same is None:
                # the solver ran out of time: it struggles with this predicate (string order,
                # say), and every other form would cost as much; this is the answer
                return current, True
            refused.add(form)
    return current, True


def _keeps_scan(current: X.Expr, form: X.Expr, timeout_ms: int) -> bool | None:
    """Does `form`'s scan part keep no row that `current`'s scan part drops? (None: the solver
    ran out of time.)"""
    now, then = scan_part(current), scan_part(form)
    if form == X.FALSE or now == X.TRUE or set(X.conjuncts(now)) <= set(X.conjuncts(then)):
        return True
    try:
        row, ev = SymbolicRow("s"), Evaluator()
        claim = z3.Implies(z3.And(domain([row]), truth(ev.eval(then, row))), truth(ev.eval(now, row)))
    except (NotModelled, z3.Z3Exception):
        return False
    return answer(prove(claim, timeout_ms))


def scan_part(e: X.Expr) -> X.Expr:
    """The conjuncts of `e` in a form a Parquet scan takes: a plain column compared with a
    literal, a boolean column, IS [NOT] NULL, IN literals, startswith/endswith/contains of a
    literal, and NOT, AND and OR of those.

    >>> x, y = X.Col("x", 1, "int"), X.Col("y", 2, "int")
    >>> str(scan_part(X.And((X.Cmp("<", X.Lit(3, "int"), x), X.Cmp(">", X.Arith("+", y, y, "int"), X.Lit(1, "int"))))))
    '3 < x'
    """
    return X.and_(*(c for c in X.conjuncts(e) if _scan_form(c)))


def _scan_form(e: X.Expr) -> bool:
    if isinstance(e, X.Col):
        return e.dtype == "boolean"  # Spark hands a bare boolean column to the scan as `c = true`
    if isinstance(e, X.Cmp):
        sides = (e.left, e.right)
        return any(isinstance(s, X.Col) for s in sides) and any(_literal(s) for s in sides)
    if isinstance(e, (X.IsNull, X.IsNotNull)):
        return isinstance(e.arg, X.Col)
    if isinstance(e, X.Func) and e.name in ("startswith", "endswith", "contains") and len(e.args) == 2:
        return isinstance(e.args[0], X.Col) and _literal(e.args[1])
    if isinstance(e, X.In):
        return isinstance(e.arg, X.Col) and all(_literal(v) for v in e.values)
    if isinstance(e, X.Not):
        return _scan_form(e.arg)
    if isinstance(e, (X.Or, X.And)):
        return all(_scan_form(a) for a in e.args)
    return False


def _literal(e: X.Expr) -> bool:
    """A literal, or a cast of one (`v > 995` on a long column reads 995 cast to long), which
    Spark folds to a literal before the scan sees it."""
    while isinstance(e, X.Cast):
        e = e.arg
    return isinstance(e, X.Lit)


def nodes(e: X.Expr) -> int:
    """The size a reader sees: every node of the tree.

    >>> x = X.Col("x", 1, "int")
    >>> nodes(X.And((X.Cmp(">", x, X.Lit(1, "int")), X.IsNotNull(x))))
    6
    """
    return sum(1 for _ in X.walk(e))


def smaller_forms(e: X.Expr) -> Iterator[X.Expr]:
    """Forms of `e`, each strictly smaller, most shrinking first; none is proved yet.

    >>> x = X.Col("x", 1, "int")
    >>> [str(f) for f in smaller_forms(X.And((X.Cmp(">", x, X.Lit(1, "int")), X.IsNotNull(x))))]
    ['False', 'x IS NOT NULL', 'x > 1']
    """
    size = nodes(e)
    seen: set[X.Expr] = set()
    candidates = [X.FALSE] if e != X.FALSE else []
    for path, node, parent in _positions(e):
        if _independent_atom(node, parent, e):
            continue
        for replacement in _replacements(node, parent):
            candidates.append(normalized(_replace_at(e, path, replacement)))
    for form in sorted(candidates, key=nodes):
        if nodes(form) < size and form not in seen:
            seen.add(form)
            yield form


def normalized(e: X.Expr) -> X.Expr:
    """`e` with its ANDs and ORs flattened, their TRUE/FALSE and repeated arguments folded,
    tests shared by every disjunct of an OR taken out of it, equality tests of one column with
    literals made one IN, NOT of a boolean literal folded and dead CASE branches dropped: exact
    rewrites, no proof needed.

    >>> x = X.Col("x", 1, "int")
    >>> str(normalized(X.And((X.IsNotNull(x), X.Not(X.FALSE), X.IsNotNull(x)))))
    'x IS NOT NULL'
    """
    def fold(n: X.Expr) -> X.Expr | None:
        if isinstance(n, X.And):
            return X.and_(*_as_in(X.conjuncts(X.and_(*n.args)), negated=True))
        if isinstance(n, X.Or):
            return _factored(X.or_(*_as_in(X.disjuncts(X.or_(*n.args)), negated=False)))
        if isinstance(n, X.Not) and n.arg in (X.TRUE, X.FALSE):
            return X.FALSE if n.arg == X.TRUE else X.TRUE
        if isinstance(n, X.Case):
            return X.case_(n.branches, n.default)
        if isinstance(n, X.Cmp) and n.op == "=" and n.right == X.TRUE and X.dtype_of(n.left) == "boolean":
            return n.left  # `b = true` is `b`, NULL included
        return None
    return _bottom_up(e, fold)


def _factored(e: X.Expr) -> X.Expr:
    """`(a AND b AND c1) OR (a AND b AND c2)` as `a AND b AND (c1 OR c2)`: AND distributes over
    OR in three-valued logic as in two. Only tests that can never raise are taken out: one
    that can would run first in the new form, on rows where the old one never reached it.

    >>> x, y, z = (X.IsNotNull(X.Col(n, i, "int")) for i, n in enumerate("xyz"))
    >>> str(_factored(X.Or((X.And((x, y)), X.And((x, z))))))
    'x IS NOT NULL AND (y IS NOT NULL OR z IS NOT NULL)'
    """
    if not isinstance(e, X.Or):
        return e
    parts = [X.conjuncts(d) for d in e.args]
    common = [c for c in parts[0] if all(c in p for p in parts[1:]) and _exact(typed(c))]
    if not common:
        return e
    rests = [X.and_(*(c for c in p if c not in common)) for p in parts]
    return X.and_(*common, X.or_(*rests))


def _as_in(tests: tuple[X.Expr, ...], negated: bool) -> list[X.Expr]:
    """Equality tests of one column with literals as one IN: `c = 'a' OR c = 'b'` is
    `c IN ('a', 'b')`, and `NOT c = 'a' AND NOT c = 'b'` is `NOT c IN ('a', 'b')` (De Morgan
    holds in three-valued logic, and a NULL column gives NULL either way). A NULL literal is
    left out: `c = NULL` is never true, but IN with a NULL in its list is not the same test.

    >>> c = X.Col("c", 1, "string")
    >>> [str(t) for t in _as_in((X.Cmp("=", c, X.Lit("a", "string")), X.Cmp("=", c, X.Lit("b", "string"))), False)]
    ["c IN ('a', 'b')"]
    """
    groups: dict[X.Col, list[X.Expr]] = {}
    for t in tests:
        col = _equality_column(t.arg if isinstance(t, X.Not) else None) if negated else _equality_column(t)
        if col is not None:
            groups.setdefault(col, []).append(t)
    out: list[X.Expr] = []
    for t in tests:
        col = next((k for k, ts in groups.items() if t in ts and len(ts) > 1), None)
        if col is None:
            out.append(t)
        elif t is groups[col][0]:
            values = tuple(_equality_literal(u.arg if negated else u) for u in groups[col])
            found = X.In(col, tuple(dict.fromkeys(values)))
            out.append(X.Not(found) if negated else found)
    return out


def _equality_column(t: X.Expr | None) -> X.Col | None:
    """The column of `column = literal` (either way round), else None."""
    if isinstance(t, X.Cmp) and t.op == "=":
        for col, lit in ((t.left, t.right), (t.right, t.left)):
            if isinstance(col, X.Col) and isinstance(lit, X.Lit) and lit.value is not None:
                return col
    return None


def _equality_literal(t: X.Expr) -> X.Expr:
    assert isinstance(t, X.Cmp)
    return t.right if isinstance(t.right, X.Lit) else t.left


def _bottom_up(e: X.Expr, fn) -> X.Expr:
    kids = X.children(e)
    if kids:
        new = tuple(_bottom_up(k, fn) for k in kids)
        if new != kids:
            e = X.with_children(e, new)
    out = fn(e)
    return e if out is None else out


def _positions(e: X.Expr, path: Path = (), parent: X.Expr | None = None) -> Iterator[tuple[Path, X.Expr, X.Expr | None]]:
    """Every node with its path and parent (the root's is None), outermost first."""
    yield path, e, parent
    for i, kid in enumerate(X.children(e)):
        yield from _positions(kid, path + (i,), e)


def _independent_atom(node: X.Expr, parent: X.Expr | None, whole: X.Expr) -> bool:
    """A scan-form atom (`c > 5`, `c IS NULL`, a boolean column) whose columns nothing else in
    the predicate reads: dropping it keeps the same rows only if it alone is always or never
    true, which such an atom practically never is; not trying saves a proof per disjunct of a
    long OR. (Another conjunct can make an atom on a shared column redundant, so the whole
    predicate is what counts, not the atom's siblings.)"""
    if not isinstance(parent, (X.And, X.Or)) or isinstance(node, (X.And, X.Or)) or not _scan_form(node):
        return False
    mine = X.columns(node)
    return sum(1 for x in X.walk(whole) if isinstance(x, X.Col) and x in mine) == sum(
        1 for x in X.walk(node) if isinstance(x, X.Col))


def _replacements(node: X.Expr, parent: X.Expr | None) -> Iterator[X.Expr]:
    """What `node` may be replaced by: nothing of what it computes is needed for some."""
    if isinstance(parent, X.And):
        yield X.TRUE
    elif isinstance(parent, X.Or):
        yield X.FALSE
    if _is_boolean(node) and not isinstance(node, (X.IsNotNull, X.IsNull)):
        columns = sorted(X.columns(node), key=lambda c: (c.name, c.id))
        if columns:
            yield X.and_(*(X.IsNotNull(c) for c in columns))
    if isinstance(node, X.Case) and _is_boolean(node):
        yield node.default


def _is_boolean(e: X.Expr) -> bool:
    return isinstance(e, _BOOLEAN) or X.dtype_of(e) == "boolean"


def _replace_at(e: X.Expr, path: Path, replacement: X.Expr) -> X.Expr:
    if not path:
        return replacement
    kids = list(X.children(e))
    kids[path[0]] = _replace_at(kids[path[0]], path[1:], replacement)
    return X.with_children(e, tuple(kids))
