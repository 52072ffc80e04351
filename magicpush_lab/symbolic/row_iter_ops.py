"""A Python UDF's loop over a table collected into Python (RowIterPipeline), symbolically.

The UDF of a RowIterPipeline reads a list of rows, `old_rows = df_old.collect()`,
and loops over it: `for r in old_rows: ...`. The Python UDF interpreter
(`python_udf.py`) runs the body; this module supplies the value that stands for
the list and decides how its loop is run. Two models:

* `unrolled_table`: a symbolic side table of N rows, each with an exists flag
  and (value, not-null) cells; the loop is unrolled once per row, a missing row
  being skipped. With concrete rows it is an ordinary run, which is how it is
  tested against CPython; with N free rows it is the paper's bounded base case.
* `probed_table`: one iteration on a free row from a free loop state (every
  variable the body assigns and that lives across iterations is a fresh
  symbol), recorded as a `Probe`; after the loop those variables are fresh
  again. Every concrete run is an instance of this abstract run, so a fact
  proved for every return of it holds for every list of every length, and "a
  row that fails G leaves any state unchanged and does not return" proves, by
  induction over the list, that dropping such rows changes nothing.

Variables the body assigns but that were not bound before the loop are
per-iteration temporaries: each iteration starts without them (reading one
before assigning it is refused), and they are unbound after the loop. The loop
variable is unbound after the loop too. `break`, `continue` and `for ... else`
are refused, as is any use of the list other than `for r in <list>`.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import z3

from magicpush_lab.symbolic import python_udf as U
from magicpush_lab.symbolic.values import Cell, NotModelled, literal, sort_of

_fresh = itertools.count()


@dataclass(frozen=True)
class RowVal(U.PyVal):
    """One row of the collected table: its fields as Python values (None for NULL)."""

    fields: Mapping[str, U.PyVal] = field(default_factory=dict)

    def field(self, name: str) -> U.PyVal:
        if name not in self.fields:
            raise NotModelled(f"the collected rows have no field {name!r}")
        return self.fields[name]


def row_value(cells: Mapping[str, tuple[Cell, str]]) -> RowVal:
    """A row value from its cells, by field name, with each field's Spark type."""
    return RowVal("row", None, U.F, {name: U._param(cell, dtype) for name, (cell, dtype) in cells.items()})


def free_row(tag: str, columns: Sequence[tuple[str, str]]) -> tuple[RowVal, dict[str, Cell]]:
    """A row whose every field is a fresh symbol, NULL or not."""
    cells = {name: Cell(z3.Const(f"{tag}_{name}!{next(_fresh)}", sort_of(dtype)),
                        z3.Bool(f"nn_{tag}_{name}!{next(_fresh)}"))
             for name, dtype in columns}
    return row_value({n: (c, d) for (n, d), c in zip(columns, cells.values())}), cells


def concrete_row(values: Mapping[str, object], columns: Sequence[tuple[str, str]]) -> RowVal:
    """A row of known values (None for NULL), as CPython would see it."""
    return row_value({name: (literal(values.get(name), dtype), dtype) for name, dtype in columns})


@dataclass(frozen=True)
class Probe:
    """One abstract iteration: the row, the loop state before (free) and after the body."""

    row_cells: dict[str, Cell]
    live: z3.BoolRef  # the path reaches the loop
    before: dict[str, U.PyVal]  # carried variables, fresh
    after: dict[str, U.PyVal] | None  # carried variables after the body (None: some are unbound)
    after_live: z3.BoolRef  # the body ran to its end (did not return)
    returned: z3.BoolRef  # the body returned
    raised: z3.BoolRef  # the body raised


@dataclass(frozen=True)
class _Table(U.PyVal):
    """The collected list as a value of the interpreter: only `for r in <it>` may use it."""

    columns: tuple[tuple[str, str], ...] = ()
    rows: tuple[tuple[z3.BoolRef, RowVal], ...] = ()  # unrolled: (exists, row)
    probes: list[Probe] | None = None  # probed: where the iterations are recorded
    # probed: the returns inside loops, as (reached, value, raised on the way)
    loop_returns: list[tuple[z3.BoolRef, U.PyVal, z3.BoolRef]] | None = None

    def run_loop(self, s: ast.For, st: U.State, out: U.Outcome) -> U.State:
        if not isinstance(s.target, ast.Name) or s.orelse:
            raise NotModelled("a loop over the collected rows must be `for name in rows:` without else")
        if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(s)):
            raise NotModelled("break/continue in a loop over the collected rows")
        if self.probes is None:
            return _unrolled(self, s, st, out)
        return _probed(self, s, st, out)


def unrolled_table(columns: Sequence[tuple[str, str]],
                   rows: Sequence[tuple[z3.BoolRef, RowVal]]) -> _Table:
    """The collected list as N rows in order, each present when its flag holds."""
    return _Table("table", None, U.F, tuple(columns), tuple(rows), None)


def probed_table(columns: Sequence[tuple[str, str]]) -> _Table:
    """The collected list as one free iteration per loop; `probes` collects them."""
    return _Table("table", None, U.F, tuple(columns), (), [], [])


def _carried(entry: dict[str, U.PyVal], loop_var: str) -> set[str]:
    """Variables bound before the loop (the loop variable excepted): they live across iterations."""
    return {n for n, v in entry.items() if n != loop_var and not isinstance(v, _Table)}


def _unrolled(table: _Table, s: ast.For, st: U.State, out: U.Outcome) -> U.State:
    var = s.target.id  # type: ignore[union-attr]
    keep = _carried(st.env, var) | {n for n, v in st.env.items() if isinstance(v, _Table)}
    for exists, row in table.rows:
        start = {n: v for n, v in st.env.items() if n in keep}
        ran = U._run(s.body, U.State({**start, var: row}, z3.And(st.live, exists)), out)
        ran = U.State({n: v for n, v in ran.env.items() if n in keep}, ran.live)
        skipped = U.State(start, z3.And(st.live, z3.Not(exists)))
        st = U._merge_states(ran, skipped)
    return U.State({n: v for n, v in st.env.items() if n in keep}, st.live)


def _assigned(body: list[ast.stmt]) -> set[str]:
    names = set()
    for node in (n for b in body for n in ast.walk(b)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _probed(table: _Table, s: ast.For, st: U.State, out: U.Outcome) -> U.State:
    var = s.target.id  # type: ignore[union-attr]
    constant = {n: v for n, v in st.env.items() if n != var}
    carried = sorted(_carried(st.env, var) & _assigned(s.body))
    # the kinds a carried variable can take: at entry, and after one run of the body
    row, cells = free_row("probe", table.columns)
    trial = U._run(s.body, U.State({**constant, var: row}, st.live), U.Outcome())
    before = {n: _havoc(n, constant[n], trial.env.get(n)) for n in carried}
    row, cells = free_row("side", table.columns)
    inner = U.Outcome(errors=list(out.errors))  # errors so far: the paths into the loop
    marks = len(inner.errors)
    ran = U._run(s.body, U.State({**constant, **before, var: row}, st.live), inner)
    after = {n: ran.env[n] for n in carried if n in ran.env}
    returned = z3.Or(*[c for c, _ in inner.returns]) if inner.returns else U.F
    raised = z3.Or(*inner.errors[marks:]) if len(inner.errors) > marks else U.F
    table.probes.append(Probe(cells, st.live, before, after if len(after) == len(carried) else None,
                              ran.live, returned, raised))  # type: ignore[union-attr]
    # a return inside the loop is a possible return of the UDF, with the errors on its path;
    # kept apart from `out`, whose later returns must not be judged by this iteration's errors
    for (cond, value), mark in zip(inner.returns, inner.errors_before_return):
        raised = z3.Or(*inner.errors[:mark]) if mark else U.F
        table.loop_returns.append((cond, value, raised))  # type: ignore[union-attr]
    # after the loop: any state the iterations can leave (fresh again), the same path into it
    after_loop = {n: _havoc(n, constant[n], ran.env.get(n)) for n in carried}
    return U.State({**{n: v for n, v in constant.items()}, **after_loop}, st.live)


def _havoc(name: str, entry: U.PyVal, later: U.PyVal | None) -> U.PyVal:
    """A fresh value of the kind `name` holds, or None."""
    kinds = {entry.kind} | ({later.kind} if later is not None else set())
    values = kinds - {"none"}
    if not values:
        return U.NONE
    if values == {"int", "float"}:
        values = {"float"}
    if len(values) != 1 or values - {"int", "float", "str", "bool"}:
        raise NotModelled(f"loop variable {name!r} of kind {', '.join(sorted(kinds))}")
    kind = values.pop()
    # None is always possible: a path of the body may set it, whatever the values seen so far
    none = z3.Bool(f"none_{name}!{next(_fresh)}")
    return U.PyVal(kind, z3.Const(f"{name}!{next(_fresh)}", U._sort(kind)), none)


def run_with_table(source: str, args: tuple[Cell, ...], arg_types: tuple[str, ...], name: str,
                   table: _Table) -> U.Outcome:
    """Run the UDF with the global `name` bound to the collected table."""
    return U.run_body(source, args, arg_types, {name: table})


def result_cell(out: U.Outcome, dtype: str, arrow: bool = True) -> tuple[Cell, z3.BoolRef]:
    """The UDF's column value and when the call raises, for an unrolled run."""
    cell = U._to_column(out, dtype, arrow)
    return cell, z3.Or(*out.errors) if out.errors else U.F


def each_return(out: U.Outcome, table: _Table, dtype: str,
                arrow: bool = True) -> list[tuple[z3.BoolRef, Cell, z3.BoolRef]]:
    """Every return of a probed run, inside the loops or not, as (reached, column value,
    raised on its way there or when Spark converts the value)."""
    paths = [(cond, value, z3.Or(*out.errors[:mark]) if mark else U.F)
             for (cond, value), mark in zip(out.returns, out.errors_before_return)]
    found = []
    for cond, value, raised in list(table.loop_returns or []) + paths:
        single = U.Outcome(returns=[(U.T, value)])
        cell = U._to_column(single, dtype, arrow)
        found.append((cond, cell, z3.Or(raised, *single.errors)))
    return found


def same(a: U.PyVal, b: U.PyVal) -> z3.BoolRef:
    """Two Python values are the same value (both None, or the same kind and value)."""
    if a.kind == "none" or b.kind == "none":
        return z3.And(a.none, b.none)
    if a.kind != b.kind:
        return U.F
    return z3.Or(z3.And(a.none, b.none), z3.And(z3.Not(a.none), z3.Not(b.none), a.value == b.value))
