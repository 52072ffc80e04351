"""Candidates (G_l, G_r) for a late filter above a RowIterPipeline (paper, Sections 4.4 and 5.2).

F is split in two (Figure 8): the conjuncts that do not read the UDF's column
go to the left input as they are; the conjuncts that do are rewritten with the
UDF's column replaced by each sub-expression of a returned value that reads only
the UDF's arguments and constants (`quantity * price` in the paper's Figure 3).
The predicate on the collected table comes from the loop body: for each place
that changes the result (a `return`, an assignment to a variable the loop
carries), the conditions on the loop variable's fields that guard it; the table
keeps a row that could reach any of them. A returned field of the loop variable
also gives F on that field as a candidate. The verifier decides.
"""

from __future__ import annotations

import ast
from typing import Iterator

from magicpush_lab.budget import Budget
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.ir.types import FRACTIONAL
from magicpush_lab.search.candidate import Candidate
from magicpush_lab.symbolic.python_udf import parse_udf
from magicpush_lab.symbolic.values import NotModelled
from magicpush_lab.symbolic import nan

_CMP = {ast.Eq: "=", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def candidates(op: P.RowIterPipeline, f: X.Expr, budget: Budget) -> Iterator[Candidate]:
    """Most selective first: both inputs, then the left input alone, then the collected table alone."""
    try:
        fn = parse_udf(op.udf.source or "")
    except (NotModelled, SyntaxError):
        fn = None
    udf_cols = {c for c, e in op.outputs if e == op.udf}
    mapping = {c: e for c, e in op.outputs if e != op.udf}
    rest = [X.substitute(c, mapping) for c in X.conjuncts(f) if not X.columns(c) & udf_cols]
    on_udf = [c for c in X.conjuncts(f) if X.columns(c) & udf_cols]
    lefts: list[X.Expr] = []
    if fn is not None and on_udf:
        for e in _argument_parts(fn, op):
            rewritten = [X.substitute(c, {**mapping, **{u: e for u in udf_cols}}) for c in on_udf]
            g = X.and_(*rest, *rewritten)
            doubles = tuple(a for a in op.udf.args if X.dtype_of(a) in FRACTIONAL)
            if doubles and X.columns(e) & {c for a in doubles for c in X.columns(a)}:
                g = X.and_(*rest, nan.keep_nan_rows(X.and_(*rewritten), doubles))
            if g not in lefts:
                lefts.append(g)
    if rest and X.and_(*rest) not in lefts:
        lefts.append(X.and_(*rest))
    rights = _side_predicates(fn, op, on_udf, udf_cols) if fn is not None else []
    for g_l in lefts:
        for g_r in rights:
            yield Candidate((g_l, g_r), "the late filter split between the left row and the collected table")
    for g_l in lefts:
        yield Candidate((g_l, None), "the late filter on the left input")
    for g_r in rights:
        yield Candidate((None, g_r), "the rows of the collected table the loop can use")


# ----------------------------------------------------------------------------- the left input


def _argument_parts(fn: ast.AST, op: P.RowIterPipeline) -> list[X.Expr]:
    """Largest sub-expressions of returned values that read only arguments and constants."""
    params = {a.arg: arg for a, arg in zip(fn.args.args, op.udf.args)}  # type: ignore[attr-defined]
    returns = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    if isinstance(fn, ast.Lambda):
        returns = [fn.body]
    assigned = {t.id for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AugAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    found: list[X.Expr] = []

    def visit(e: ast.AST) -> None:
        ir = _argument_expr(e, params, assigned)
        if ir is not None:
            if not isinstance(ir, X.Lit) and ir not in found:
                found.append(ir)
            return
        for k in ast.iter_child_nodes(e):
            visit(k)

    for r in returns:
        visit(r)
    return found


def _argument_expr(e: ast.AST, params: dict[str, X.Expr], assigned: set[str]) -> X.Expr | None:
    if isinstance(e, ast.Name) and e.id in params and e.id not in assigned:
        return params[e.id]
    if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
        return X.Lit(e.value, "double" if isinstance(e.value, float) else "int")
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = _argument_expr(e.operand, params, assigned)
        return X.Neg(inner) if inner is not None else None
    if isinstance(e, ast.BinOp) and type(e.op) in _ARITH:
        a, b = _argument_expr(e.left, params, assigned), _argument_expr(e.right, params, assigned)
        if a is None or b is None:
            return None
        op = _ARITH[type(e.op)]
        fractional = op == "/" or any(X.dtype_of(x) in FRACTIONAL for x in (a, b))
        if not fractional:  # Python's integers do not overflow an int: Spark computes in long
            a, b = _as_long(a), _as_long(b)
        return X.Arith(op, a, b, "double" if fractional else "long")
    return None


def _as_long(e: X.Expr) -> X.Expr:
    if isinstance(e, X.Lit) and e.dtype in ("byte", "short", "int"):
        return X.Lit(e.value, "long")
    return X.Cast(e, "long") if X.dtype_of(e) in ("byte", "short", "int") else e


# ----------------------------------------------------------------------------- the collected table


def _side_predicates(fn: ast.AST, op: P.RowIterPipeline, on_udf: list[X.Expr],
                     udf_cols: set[X.Col]) -> list[X.Expr]:
    fields = {c.name: c for c in op.side_input.output}
    found: list[X.Expr] = []
    loops = [n for n in ast.walk(fn) if isinstance(n, ast.For) and isinstance(n.iter, ast.Name)
             and n.iter.id == op.side_name and isinstance(n.target, ast.Name)]
    for loop in loops:
        var = loop.target.id  # type: ignore[union-attr]
        effects = list(_effects(loop.body, (), var, fields))
        if effects and all(effects):
            g = X.or_(*(X.and_(*atoms) for atoms in effects))
            if g not in found:
                found.append(g)
        # each condition on the fields alone, too: a guard of some effects may be enough
        for atoms in effects:
            for a in atoms:
                if a not in found:
                    found.append(a)
        # a returned field of the loop variable: the late filter on that field
        for n in (x for s in loop.body for x in ast.walk(s)):
            if isinstance(n, ast.Return) and n.value is not None and on_udf:
                col = _field(n.value, var, fields)
                if col is not None:
                    g = X.and_(*(X.substitute(c, {u: col for u in udf_cols}) for c in on_udf))
                    if not X.columns(g) - set(op.side_input.output) and g not in found:
                        found.append(g)
    return found


def _effects(body: list[ast.stmt], guard: tuple[X.Expr, ...], var: str,
             fields: dict[str, X.Col]) -> Iterator[tuple[X.Expr, ...]]:
    """For each statement that can change the result, the field conditions that guard it."""
    for s in body:
        if isinstance(s, ast.If):
            atoms = _atoms(s.test, var, fields)
            yield from _effects(s.body, guard + atoms, var, fields)
            single = _atom(s.test, var, fields)
            negated = (X.Not(single),) if single is not None else ()
            yield from _effects(s.orelse, guard + negated, var, fields)
        elif isinstance(s, (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While)):
            yield guard
        elif isinstance(s, ast.Expr) and not isinstance(s.value, ast.Constant):
            yield guard


def _atoms(test: ast.expr, var: str, fields: dict[str, X.Col]) -> tuple[X.Expr, ...]:
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return tuple(a for a in (_atom(p, var, fields) for p in parts) if a is not None)


def _atom(e: ast.expr, var: str, fields: dict[str, X.Col]) -> X.Expr | None:
    """A condition on the loop variable's fields and constants only, as a Spark predicate."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        inner = _atom(e.operand, var, fields)
        return X.Not(inner) if inner is not None else None
    if not isinstance(e, ast.Compare) or len(e.ops) != 1:
        return None
    op, left, right = e.ops[0], e.left, e.comparators[0]
    col = _field(left, var, fields)
    if col is None:
        col, left, right = _field(right, var, fields), right, left
        op_name = _FLIP.get(_CMP.get(type(op), ""), None)
    else:
        op_name = _CMP.get(type(op))
    if col is None:
        return None
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
        return X.IsNull(col) if isinstance(op, ast.Is) else X.IsNotNull(col)
    if isinstance(op, ast.In) and isinstance(right, (ast.List, ast.Tuple, ast.Set)) \
            and right is e.comparators[0]:
        values = [_constant(v, col) for v in right.elts]
        return X.In(col, tuple(values)) if values and all(v is not None for v in values) else None
    value = _constant(right, col)
    if op_name is None or value is None:
        return None
    return X.Cmp(op_name, col, value)


def _field(e: ast.expr, var: str, fields: dict[str, X.Col]) -> X.Col | None:
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == var:
        return fields.get(e.attr)
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id == var \
            and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
        return fields.get(e.slice.value)
    return None


def _constant(e: ast.expr, col: X.Col) -> X.Lit | None:
    if not isinstance(e, ast.Constant) or e.value is None:
        return None
    if isinstance(e.value, bool) != (col.dtype == "boolean"):
        return None
    if isinstance(e.value, (int, float, str, bool)):
        return X.Lit(e.value, col.dtype)
    return None
