"""The symbolic loop over a collected table agrees with CPython on concrete lists.

Each case is a UDF's source, the collected rows' columns, and argument values;
every case runs on several concrete lists (empty, one row, rows in both orders,
NULL fields). The expected result comes from running the very same source in
CPython over `pyspark.sql.Row` objects: same value, same None, same raising.
"""

from __future__ import annotations

import textwrap

import pytest
import z3
from pyspark.sql import Row

from magicpush_lab.symbolic.row_iter_ops import concrete_row, result_cell, run_with_table, unrolled_table
from magicpush_lab.symbolic.values import NotModelled, literal

COLUMNS = (("id", "int"), ("year", "int"), ("qty", "int"), ("store", "string"), ("count", "int"))


def row(id, year, qty=1, store="a"):
    return {"id": id, "year": year, "qty": qty, "store": store, "count": 0}


LISTS = [
    [],
    [row(1, 2006, 4)],
    [row(1, 2005, 2), row(1, 2006, 4)],
    [row(1, 2006, 4), row(1, 2005, 2)],
    [row(2, 2006, 0), row(1, 2006, 3), row(1, 2006, 5)],
    [row(None, 2006, 4), row(1, None, None, None)],
    [row(1, 2006, 0)],
]
ARGS = [(1, 10), (2, 7), (None, 3), (1, None), (3, 0)]

CASES = [
    ("first match returns a flag",
     "def f(id, v):\n    for r in old_rows:\n        if r.id == id and r.year == 2006:\n"
     "            return 1\n"
     "    return 0"),
    ("first match returns a value computed from both rows",
     "def f(id, v):\n    for r in old_rows:\n        if r.id == id and r.year == 2006:\n"
     "            return v * r.qty\n    return None"),
    ("division by the matched row's field raises on zero",
     "def f(id, v):\n    for r in old_rows:\n        if r.id == id and r.year == 2006:\n"
     "            return v // r.qty\n    return -1"),
    ("count of matching rows (a loop-carried variable)",
     "def f(id, v):\n    n = 0\n    for r in old_rows:\n        if r.id == id:\n            n += 1\n"
     "    return n"),
    ("flag set in the loop, read after it",
     "def f(id, v):\n    found = False\n    for r in old_rows:\n"
     "        if r['year'] == 2006 and r['id'] == id:\n"
     "            found = True\n    return 1 if found else 0"),
    ("a temporary assigned in every iteration",
     "def f(id, v):\n    best = 0\n    for r in old_rows:\n        q = r.qty if r.qty is not None else 0\n"
     "        if q > best:\n            best = q\n    return best"),
    ("ordering comparison with a NULL field raises",
     "def f(id, v):\n    for r in old_rows:\n        if r.year > 2005:\n            return r.id\n"
     "    return 0"),
    ("string field compared with a literal",
     "def f(id, v):\n    total = 0\n    for r in old_rows:\n        if r.store == 'a':\n"
     "            total = total + 1\n    return total"),
]


def _python(source: str, rows: list[dict], args: tuple) -> tuple[str, object]:
    namespace: dict = {"old_rows": [Row(**r) for r in rows]}
    exec(textwrap.dedent(source), namespace)  # the reference: CPython runs the same source
    try:
        return "ok", namespace["f"](*args)
    except Exception as err:  # noqa: BLE001 - any exception is "raises"
        return "raises", type(err).__name__


def _symbolic(source: str, rows: list[dict], args: tuple) -> tuple[str, object]:
    table = unrolled_table(COLUMNS, [(z3.BoolVal(True), concrete_row(r, COLUMNS)) for r in rows])
    cells = tuple(literal(a, "int") for a in args)
    out = run_with_table(source, cells, ("int", "int"), "old_rows", table)
    cell, error = result_cell(out, "int")
    if z3.is_true(z3.simplify(error)):
        return "raises", None
    assert z3.is_false(z3.simplify(error))
    if z3.is_false(z3.simplify(cell.notnull)):
        return "ok", None
    return "ok", z3.simplify(cell.value).as_long()


@pytest.mark.parametrize("title,source", CASES, ids=[c[0] for c in CASES])
def test_symbolic_loop_matches_cpython(title, source):
    for rows in LISTS:
        for args in ARGS:
            expected = _python(source, rows, args)
            got = _symbolic(source, rows, args)
            if expected[0] == "raises":
                assert got[0] == "raises", (rows, args, expected)
            else:
                assert got == ("ok", int(expected[1]) if expected[1] is not None else None), (rows, args)


def test_missing_rows_are_skipped():
    """A row whose exists flag is false is not iterated: the result is the one without it."""
    source = CASES[0][1]
    exists = z3.Bool("e")
    table = unrolled_table(COLUMNS, [(exists, concrete_row(row(1, 2006), COLUMNS))])
    out = run_with_table(source, (literal(1, "int"), literal(0, "int")), ("int", "int"), "old_rows", table)
    cell, _ = result_cell(out, "int")
    assert z3.simplify(z3.substitute(cell.value, (exists, z3.BoolVal(False)))).as_long() == 0
    assert z3.simplify(z3.substitute(cell.value, (exists, z3.BoolVal(True)))).as_long() == 1


REFUSED = [
    ("break", "def f(id, v):\n    for r in old_rows:\n        if r.id == id:\n            break\n"
     "    return 0"),
    ("len of the list", "def f(id, v):\n    return len(old_rows)"),
    ("slicing the list", "def f(id, v):\n    for r in old_rows[:2]:\n        return 1\n    return 0"),
    ("loop variable read after the loop",
     "def f(id, v):\n    for r in old_rows:\n        pass\n    return r.id"),
    ("temporary read before it is assigned",
     "def f(id, v):\n    for r in old_rows:\n        if r.id == id:\n            t = 1\n        v = t\n"
     "    return v"),
    ("unknown field", "def f(id, v):\n    for r in old_rows:\n        return r.price\n    return 0"),
    ("a field named like a tuple method is the method", "def f(id, v):\n    for r in old_rows:\n"
                                                        "        return r.count\n    return 0"),
]


@pytest.mark.parametrize("title,source", REFUSED, ids=[c[0] for c in REFUSED])
def test_uses_outside_the_model_are_refused(title, source):
    with pytest.raises(NotModelled):
        # one row matches and one does not: a branch no row takes would bind nothing to refuse
        _symbolic(source, [row(1, 2006), row(2, 2005)], (1, 2))


# ----------------------------------------------------------------------------- the verifier's induction

THIRD_ROW = ("def third(id):\n    n = 0\n    for r in old_rows:\n        if r.year == 2006:\n"
             "            n += 1\n"
             "        elif n >= 2:\n            return 0\n    return n\n")


def _node(source: str):
    from magicpush_lab.ir import expr as X
    from magicpush_lab.ir import plan as P

    ident, year = X.Col("id", 1, "int"), X.Col("year", 2, "int")
    old_id, old_year = X.Col("id", 11, "int"), X.Col("year", 12, "int")
    flag = X.Col("flag", 3, "int")
    call = X.PyUdf("third", (ident,), "int", source)
    node = P.RowIterPipeline(P.Source("sales", (ident, year), 0), call,
                             P.Source("collected", (old_id, old_year), 1),
                             ((ident, ident), (year, year), (flag, call)), "old_rows")
    return node, flag, old_year


def test_two_rows_are_not_enough_for_a_loop_with_state():
    """Rows of other years change nothing while n < 2, so the 2-row base case holds; from a free
    loop state (n >= 2) such a row returns, and the induction step refuses year = 2006."""
    from magicpush_lab.ir import expr as X
    from magicpush_lab.verify import row_iter

    node, flag, old_year = _node(THIRD_ROW)
    late = X.Cmp(">=", flag, X.Lit(2, "int"))
    g = (None, X.Cmp("=", old_year, X.Lit(2006, "int")))
    assert row_iter._base_case(node, late, *g, "superset", 2000) is None
    verdict = row_iter.verify(node, late, g, "superset")
    assert not verdict.proved and "can change the UDF's result" in verdict.reason


def test_the_same_loop_without_the_early_return_is_proved():
    from magicpush_lab.ir import expr as X
    from magicpush_lab.verify import row_iter

    node, flag, old_year = _node(THIRD_ROW.replace("        elif n >= 2:\n            return 0\n", ""))
    late = X.Cmp(">=", flag, X.Lit(2, "int"))
    verdict = row_iter.verify(node, late, (None, X.Cmp("=", old_year, X.Lit(2006, "int"))), "superset")
    assert verdict.proved, verdict.reason
