"""The ROW-ITER-PIPELINE category: a Python UDF that loops over a collected table (paper, Table 2).

For each left row r_l the UDF computes a value from r_l and the collected list L.
A candidate is (G_l on the left input, G_r on the collected DataFrame, applied
before `collect()`). The paper's pre-conditions (Section 4.2.3), as checked here:

(1) the subpipeline satisfies the small model property. The loop is modelled as
    a fold over L (symbolic/row_iter_ops.py); what makes one iteration's proof
    cover lists of every length is that the iteration is run from a *free* loop
    state on a *free* row (`probed_table`), so every concrete iteration is an
    instance of it.
(2) G_l(r_l) false => F fails on r_l's output, for every L: proved for every
    return of the abstract run (each return of each iteration, and after the
    loop with a free state), or, stronger, with the UDF's value left free.
(3) G_l(r_l) true => the output with L equals the output with G_r(L): proved as
    "a row failing G_r, from any loop state, neither returns nor changes the
    state" (the rows G_r keeps are then processed from the same states, in the
    same order, so the fold gives the same value; by induction on |L|).
For equivalence, G_l(r_l) must also make F pass on every return.

(1)-(3) give the claim for lists of every length by induction, so an accepted
candidate needs nothing more. The paper's base case (2 side rows: a filter and a
first/any aggregate, the largest n of the subpipeline's operators) is run when
they fail, by unrolling the loop over two symbolic rows with exists flags: it is
what gives a refusal its counterexample tables.

Modelling limits, refused rather than assumed:
- Python's NaN: doubles are reals in the model. A double value (a double
  argument, a double field of the collected rows) may flow through arithmetic into
  the result, never into a branch, a comparison, a call, or a variable carried
  across iterations; then NaN cannot change which path runs. A result that may be
  NaN because of the collected rows is never read by G_l's proof (the UDF's value
  is left free); a double argument needs G_l to keep its NaN rows and a superset
  pushdown, as for row-to-row UDFs (symbolic/nan.py).
- the late filter must not call the UDF again, and G_r must not call Python UDFs.
- order: `df.filter(G_r).collect()` is taken to list the rows `df.collect()`
  lists that pass G_r, in the same relative order (a filter is a narrow
  transformation); where the collected order is not deterministic (after a
  shuffle) the original result was order-dependent already.
"""

from __future__ import annotations

import ast
from typing import Sequence

import z3

from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL
from magicpush_lab.symbolic import row_iter_ops as R
from magicpush_lab.symbolic.encode import Evaluator, truth
from magicpush_lab.symbolic.python_udf import parse_udf
from magicpush_lab.symbolic.table import SymbolicRow, domain
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.symbolic import nan
from magicpush_lab.verify.counterexample import rows_from_model
from magicpush_lab.symbolic.solver import DEFAULT_TIMEOUT_MS, prove, satisfiable
from magicpush_lab.verify.verdict import EQUIVALENT, SUPERSET, Modelling, Verdict, Verdicts, nondeterministic

CATEGORY = "ROW-ITER-PIPELINE"
BASE_CASE_ROWS = 2
# what reading the UDF's source raises: a construct the reader does not model, or no Python at all
_SOURCE_ERRORS = (NotModelled, SyntaxError)


def verify(op: P.RowIterPipeline, f: X.Expr, g: Sequence[X.Expr | None], kind: str,
           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """Check candidate (G_l, G_r) for late filter `f` above the RowIterPipeline `op`."""
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    if len(g) != 2:
        return verdicts.refuse(f"{len(g)} predicates for an operator with 2 inputs")
    g_l, g_r = g
    reason = _refusal(op, f, g_l, g_r)
    if reason:
        return verdicts.refuse(reason)
    with Modelling(*_SOURCE_ERRORS) as reading:
        taint = nan_flow(op)
    if reading.failed:
        return verdicts.refuse(reading.reason)
    if taint.reason:
        return verdicts.refuse(taint.reason)
    if kind == EQUIVALENT and taint.result:
        return verdicts.refuse(
            "the UDF's result can be NaN, which the model does not cover: only a superset pushdown")
    with Modelling() as modelling:
        # (1)-(3) prove the claim for lists of every length; the two-row base case is only
        # run on a refusal, where its model gives the counterexample tables
        inductive = _inductive(op, f, g_l, g_r, kind, taint, timeout_ms)
        if inductive.proved:
            return inductive
        base = _base_case(op, f, g_l, g_r, kind, timeout_ms)
        return base if base is not None else inductive
    return verdicts.refuse(modelling.reason)  # reached only where the model could not express the claim


def _refusal(op: P.RowIterPipeline, f: X.Expr, g_l: X.Expr | None, g_r: X.Expr | None) -> str:
    udf = op.udf
    if udf.source is None or udf.kind != "python":
        return f"the source of UDF {udf.shown_name} is not known"
    reason = nondeterministic(*(e for _, e in op.outputs), f, *(x for x in (g_l, g_r) if x is not None))
    if reason:
        return reason
    if g_r is not None and any(isinstance(n, X.PyUdf) and n.name == udf.name for n in X.walk(f)):
        # there the UDF is a black box of its arguments, which holds only while the list is the same
        return f"the late filter calls {udf.shown_name} again, which would see the filtered list"
    others = [e for c, e in op.outputs if e != udf]
    if any(isinstance(n, X.PyUdf) and n.name == udf.name for e in others for n in X.walk(e)):
        return f"{udf.shown_name} is used inside a larger expression: not analysed"
    if g_r is not None and (X.has_python_udf(g_r) or not X.columns(g_r) <= set(op.side_input.output)):
        return "the predicate on the collected table must read only its columns, without Python UDFs"
    if g_l is not None and not X.columns(g_l) <= set(op.child.output):
        return "the predicate on the left input reads columns it does not have"
    with Modelling(*_SOURCE_ERRORS) as reading:
        fn = parse_udf(udf.source)
    if reading.failed:
        return reading.reason
    bound = {a.arg for a in fn.args.args} | {  # type: ignore[union-attr]
        t.id for n in ast.walk(fn) for t in _targets(n) if isinstance(t, ast.Name)}
    if op.side_name in bound:
        # then the name is local to the function (or a parameter), not the collected list
        return f"the UDF binds {op.side_name} itself"
    names = [c.name for c in op.side_input.output]
    if len(set(names)) != len(names):
        return "the collected rows have two fields of one name"
    return ""


def _targets(n: ast.AST) -> list[ast.AST]:
    if isinstance(n, ast.Assign):
        return list(n.targets)
    if isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)):
        return [n.target]
    if isinstance(n, (ast.Global, ast.Nonlocal)):
        return [ast.Name(x) for x in n.names]
    return []


# ----------------------------------------------------------------------------- NaN flow


class Taint:
    """Where double values reach in the UDF body (see the module docstring)."""

    def __init__(self, reason: str = "", main: bool = False, side: bool = False) -> None:
        self.reason = reason
        self.main = main  # a double argument reaches the result
        self.side = side  # a double field of the collected rows reaches the result

    @property
    def result(self) -> bool:
        return self.main or self.side


def nan_flow(op: P.RowIterPipeline) -> Taint:
    """Follow double values through the UDF's assignments; refuse where NaN could change a path."""
    fn = parse_udf(op.udf.source or "")
    params = [a.arg for a in fn.args.args]
    labels: dict[str, set[str]] = {p: {"main"} for p, a in zip(params, op.udf.args)
                                   if X.dtype_of(a) in FRACTIONAL}
    double_fields = {c.name for c in op.side_input.output if c.dtype in FRACTIONAL}
    if not labels and not double_fields:
        return Taint()
    body = fn.body if isinstance(fn, ast.FunctionDef) else [ast.Return(fn.body)]

    def of(e: ast.AST | None) -> set[str]:
        found: set[str] = set()
        for n in ast.walk(e) if e is not None else ():
            if isinstance(n, ast.Name):
                found |= labels.get(n.id, set())
            elif isinstance(n, ast.Attribute) and n.attr in double_fields:
                found.add("side")
            elif isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) \
                    and n.slice.value in double_fields:
                found.add("side")
        return found

    nodes = [n for s in body for n in ast.walk(s)]
    changed = True
    while changed:  # assignments carry labels to names, until nothing changes
        changed = False
        for n in nodes:
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        new = of(n.value) - labels.get(t.id, set())
                        if new:
                            labels.setdefault(t.id, set()).update(new)
                            changed = True
    carried = _carried_names(body, op.side_name, set(params))
    for n in nodes:
        tested = []
        if isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tested.append(n.test)
        elif isinstance(n, ast.BoolOp):
            tested.extend(n.values)
        elif isinstance(n, ast.Compare):
            tested.extend([n.left, *n.comparators])
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            tested.append(n.operand)
        elif isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id == "float"):
            tested.extend([*n.args, n.func])
        elif isinstance(n, (ast.For, ast.Subscript)):
            tested.append(n.iter if isinstance(n, ast.For) else n.slice)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id in carried for t in targets) and of(n.value):
                return Taint("a double value is carried across iterations of the loop; "
                             "Python's NaN there is not modelled")
        if any(of(t) for t in tested):
            return Taint("a double value reaches a branch, a comparison or a call in the UDF; "
                         "Python's NaN there is not modelled")
    returns = [n.value for n in nodes if isinstance(n, ast.Return)]
    if not isinstance(fn, ast.FunctionDef):
        returns = [fn.body]
    result = set().union(*(of(r) for r in returns)) if returns else set()
    return Taint("", "main" in result, "side" in result)


def _carried_names(body: list[ast.stmt], side_name: str, params: set[str]) -> set[str]:
    """Names assigned inside a loop over the collected list that are also bound outside it."""
    inside: set[str] = set()
    loops = [n for s in body for n in ast.walk(s)
             if isinstance(n, ast.For) and isinstance(n.iter, ast.Name) and n.iter.id == side_name]
    in_loop_nodes = {id(x) for loop in loops for s in loop.body for x in ast.walk(s)}
    outside: set[str] = set(params)
    for n in (x for s in body for x in ast.walk(s)):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            (inside if id(n) in in_loop_nodes else outside).update(names)
    return inside & outside


# ----------------------------------------------------------------------------- the symbolic setup


def _columns(op: P.RowIterPipeline) -> tuple[tuple[str, str], ...]:
    return tuple((c.name, c.dtype) for c in op.side_input.output)


def _side_row(op: P.RowIterPipeline, tag: str, cells: dict) -> SymbolicRow:
    """A collected row over given cells (by field name), as Spark expressions read it."""
    row = SymbolicRow(tag)
    for c in op.side_input.output:
        row.cells[(c.name, c.id)] = cells[c.name]
        row.types[c.name] = c.dtype
    return row


def _row_value(op: P.RowIterPipeline, row: SymbolicRow) -> R.RowVal:
    return R.row_value({c.name: (row.cell(c), c.dtype) for c in op.side_input.output})


def _arguments(op: P.RowIterPipeline, main: SymbolicRow, ev: Evaluator):
    args = tuple(ev.eval(a, main) for a in op.udf.args)
    return args, tuple(X.dtype_of(a) for a in op.udf.args)


def _output_row(op: P.RowIterPipeline, main: SymbolicRow, ev: Evaluator, udf_cell) -> SymbolicRow:
    """The output row of `main`: the other outputs computed, the UDF's column `udf_cell`
    (None leaves it free: any value, NULL included)."""
    out = SymbolicRow("out", exists=main.exists)
    for col, e in op.outputs:
        if e == op.udf:
            if udf_cell is not None:
                out.cells[(col.name, col.id)] = udf_cell
            continue
        out.cells[(col.name, col.id)] = ev.eval(e, main)
    return out


def _holds(ev: Evaluator, pred: X.Expr | None, row: SymbolicRow) -> z3.BoolRef:
    return z3.BoolVal(True) if pred is None else truth(ev.eval(pred, row))


# ----------------------------------------------------------------------------- base case


def _base_case(op: P.RowIterPipeline, f: X.Expr, g_l: X.Expr | None, g_r: X.Expr | None, kind: str,
               timeout_ms: int) -> Verdict | None:
    """The claim on one left row and a collected list of up to 2 rows (unrolled); a Verdict
    only when it fails, with the counterexample."""
    main = SymbolicRow("in0")
    sides = [SymbolicRow(f"side{i}", exists=z3.Bool(f"exists_side{i}")) for i in range(BASE_CASE_ROWS)]
    original, rewritten = Evaluator(), Evaluator()
    args, types = _arguments(op, main, original)
    rows = [(s.exists, _row_value(op, s)) for s in sides]
    source = op.udf.source or ""
    out1 = R.run_with_table(source, args, types, op.side_name, R.unrolled_table(_columns(op), rows))
    cell1, err1 = R.result_cell(out1, op.udf.dtype, op.udf.arrow)
    kept = [(z3.And(s.exists, _holds(rewritten, g_r, s)), v) for s, (_, v) in zip(sides, rows)]
    args2, _ = _arguments(op, main, rewritten)
    out2 = R.run_with_table(source, args2, types, op.side_name, R.unrolled_table(_columns(op), kept))
    cell2, err2 = R.result_cell(out2, op.udf.dtype, op.udf.arrow)
    row1 = _output_row(op, main, original, cell1)
    row2 = _output_row(op, main, rewritten, cell2)
    f1 = truth(original.eval(f, row1))
    gl = _holds(rewritten, g_l, main)
    f2 = truth(rewritten.eval(f, row2)) if kind == SUPERSET else z3.BoolVal(True)
    same = z3.And(cell1.notnull == cell2.notnull, z3.Implies(cell1.notnull, cell1.value == cell2.value))
    facts = domain([main, *sides])
    bad_l, bad_r = z3.Or(err1, original.error()), z3.Or(err2, rewritten.error())
    claim = z3.Implies(z3.And(facts, z3.Not(bad_l)),
                       z3.And(z3.Not(bad_r), f1 == z3.And(gl, f2), z3.Implies(f1, same)))
    proof = prove(claim, timeout_ms)
    if proof.proved:
        return None
    example = {}
    if proof.model is not None:
        tables = rows_from_model(proof.model, [main, *sides])
        example = {"left row": tables.get("input 1", []),
                   "collected rows": [r for i in range(BASE_CASE_ROWS)
                                      for r in tables.get(f"input {i + 2}", [])]}
    return Verdicts(kind, CATEGORY, BASE_CASE_ROWS).refuse(
        f"fails on a collected list of up to {BASE_CASE_ROWS} rows ({proof.reason})", example)


# ----------------------------------------------------------------------------- every list


def _on_every_return(op: P.RowIterPipeline, main: SymbolicRow, f: X.Expr, ev: Evaluator, facts: z3.BoolRef,
                     returns: list, gl: z3.BoolRef, f_implies_g: bool, timeout_ms: int) -> str:
    """For every value the UDF can return (where nothing raised): F on the output row implies
    G_l (`f_implies_g`), or G_l implies F. The solver's reason when one fails, else ""."""
    for cond, cell, raised in returns:
        f_ev = Evaluator()
        passes = truth(f_ev.eval(f, _output_row(op, main, f_ev, cell)))
        given, then = (passes, gl) if f_implies_g else (gl, passes)
        pre = z3.And(facts, cond, z3.Not(raised), z3.Not(f_ev.error()), z3.Not(ev.error()), given)
        proof = prove(z3.Implies(pre, then), timeout_ms)
        if not proof.proved:
            return proof.reason
    return ""


def _inductive(op: P.RowIterPipeline, f: X.Expr, g_l: X.Expr | None, g_r: X.Expr | None, kind: str,
               taint: Taint, timeout_ms: int) -> Verdict:
    verdicts = Verdicts(kind, CATEGORY, BASE_CASE_ROWS)
    main = SymbolicRow("in0")
    ev = Evaluator()
    args, types = _arguments(op, main, ev)
    table = R.probed_table(_columns(op))
    out = R.run_with_table(op.udf.source or "", args, types, op.side_name, table)
    returns = R.each_return(out, table, op.udf.dtype, op.udf.arrow)
    guard = Evaluator()
    gl = _holds(guard, g_l, main)
    facts = domain([main])
    if not prove(z3.Implies(facts, z3.Not(guard.error())), timeout_ms).proved:
        return verdicts.refuse("the predicate on the left input can raise")
    hides = False

    # pre-condition (2): a left row that fails G_l gives an output that fails F, for every list
    if g_l is not None:
        free_ev = Evaluator()
        free = _output_row(op, main, free_ev, None)
        keeps = truth(free_ev.eval(f, free))
        facts_free = domain([main, free])
        by_free = prove(z3.Implies(z3.And(facts_free, z3.Not(free_ev.error()), keeps), gl), timeout_ms).proved
        if not by_free:
            if taint.side:
                return verdicts.refuse(
                    "F on the UDF's value implies G_l only through a value the collected rows can "
                    "make NaN, which the model does not cover")
            exposed = tuple(a for a in op.udf.args if X.dtype_of(a) in FRACTIONAL)
            if taint.main and (kind != SUPERSET or not nan.keeps_nan_rows(g_l, exposed)):
                return verdicts.refuse(
                    "the UDF's value depends on a double argument that may be NaN: only a superset "
                    "pushdown that keeps NaN rows is sound")
            reason = _on_every_return(op, main, f, ev, facts, returns, gl, True, timeout_ms)
            if reason:
                return verdicts.refuse(
                    f"a left row that fails the predicate can pass the late filter ({reason})")
        hides = satisfiable(z3.And(facts, z3.Not(gl), z3.Or(*[z3.And(c, r) for c, _, r in returns])),
                            timeout_ms) is not False

    # equivalence: a left row that passes G_l passes F, whatever the list
    if kind == EQUIVALENT:
        reason = _on_every_return(op, main, f, ev, facts, returns, gl, False, timeout_ms)
        if reason:
            return verdicts.refuse(
                f"a left row that passes the predicate can fail the late filter ({reason})")

    # pre-condition (3): a collected row that fails G_r changes nothing, from any loop state
    if g_r is not None:
        for probe in table.probes or []:
            side = _side_row(op, "side", probe.row_cells)
            side_ev = Evaluator()
            dropped = z3.Not(truth(side_ev.eval(g_r, side)))
            pre = z3.And(domain([main, side]), probe.live, gl, dropped)
            if probe.after is None:
                return verdicts.refuse("a variable the loop carries is unbound after an iteration")
            unchanged = z3.And(*[R.same(probe.after[n], probe.before[n]) for n in probe.before]) \
                if probe.before else z3.BoolVal(True)
            claim = z3.Implies(z3.And(pre, z3.Not(probe.raised), z3.Not(side_ev.error())),
                               z3.And(z3.Not(probe.returned), unchanged))
            proof = prove(claim, timeout_ms)
            if not proof.proved:
                return verdicts.refuse(
                    "a collected row that fails the predicate can change the UDF's result "
                    f"({proof.reason})")
            if satisfiable(z3.And(pre, probe.raised), timeout_ms) is not False:
                hides = True
    return verdicts.proved(may_hide_errors=hides)
