"""The pipeline's own copy of its steps, with the filter at the read: the place of last resort.

When a DataFrame between the source and the late filter is also shown, counted or read by other
code, no filter can go on the way without changing what that code sees, and the late filter's
own read is no better than the late filter. What still saves work: the late filter's pipeline
written anew, from the filtered read up to the late filter, under names of its own, in the late
filter's cell just before it; everything else keeps reading the DataFrames it read.

    result = data.join(...)            # cells as the user wrote them, untouched
    result.show()
    ...
    df_pushed = spark.read.parquet(p).filter(<G>)      # added before the late filter
    data_pushed = df_pushed.select(...).where(...)
    result_pushed = data_pushed.join(...)
    big = result_pushed.filter(<late filter>)           # its receiver renamed

It reads the same plan from a filtered source, so the proof of `G` for the path holds for it.
The late filter stays (a superset rewrite): the copy changes no other DataFrame, so nothing else
has to be proved. Refused (CannotPlace) unless every step of the path is a top-level
assignment of one name, run once, in the cells up to the late filter's; a name a copied step
reads that is bound again before the late filter (`t = t.join(...)`, a constant set anew) has the
plain assignment that made it copied too, so the copy reads what the step read; other names are
not bound again, by other code, between the first copied step and the late filter; and the late
filter's receiver is the name of the path's last DataFrame.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from magicpush_lab.capture.trace import Event, Site, Trace
from magicpush_lab.ir import expr as X
from magicpush_lab.ir.expr import TRUE
from magicpush_lab.pushdown.records import Pushed
from magicpush_lab.rewrite.cellparse import parse_cell
from magicpush_lab.rewrite.edits import CopiedStatement, OwnCopy

#: the suffix of the copies' names (`sales` -> `sales_pushed`; a second `sales` -> `sales_pushed_2`)
SUFFIX = "pushed"


class NoCopy(Exception):
    """Why the path cannot be copied."""


@dataclass(frozen=True)
class _Statement:
    execution_count: int
    node: ast.stmt  # a top-level `name = <expression>` of its cell
    target: str


def own_copy(trace: Trace, pushed: Pushed, top: int | None, path: set[int]) -> OwnCopy:
    """The OwnCopy edit for `pushed`, whose late filter is event `top` and whose steps from the
    source up to the late filter's input are the events `path`. Raises NoCopy."""
    late = trace.event(top)
    source = trace.event(pushed.source.origin)
    if pushed.branches or pushed.predicate == TRUE:
        raise NoCopy("the filter is not one predicate for one read")
    if not _beyond_spark(pushed):
        raise NoCopy("Spark moves the late filter to the read by itself: a copy would read no fewer rows")
    if late is None or late.site is None or source is None or source.site is None:
        raise NoCopy("a step of the path was not made by traced notebook code")
    if len(late.inputs) != 1 or late.inputs[0] not in path:
        raise NoCopy("the late filter does not read the path's last DataFrame")
    cells = {c.execution_count: c.source for c in trace.cells}
    trees = {n: parse_cell(src) for n, src in cells.items()}
    statements: dict[tuple[int, int], _Statement] = {}
    for eid in sorted(path):
        event = trace.event(eid)
        stmt = _statement_of(trees, event)
        if len(trace.runs_of(event.site)) != 1:
            raise NoCopy(f"`{trace.code_at(event.site)}` runs more than once")
        statements[(stmt.execution_count, stmt.node.lineno)] = stmt
    late_stmt = _statement_of(trees, late)
    ordered = [statements[k] for k in sorted(statements)]
    if (late_stmt.execution_count, late_stmt.node.lineno) in statements:
        raise NoCopy("the late filter is in the same statement as a step of the path")
    if (ordered[-1].execution_count, ordered[-1].node.lineno) > (late_stmt.execution_count, late_stmt.node.lineno):
        raise NoCopy("a step of the path comes after the late filter")
    last_var = trace.variable_of(late.inputs[0])
    receiver = _late_receiver(trees, late)
    if receiver != ordered[-1].target or (last_var is not None and last_var != receiver):
        raise NoCopy("the late filter's receiver is not the name of the path's last DataFrame")
    ordered = _with_bound_columns(trees, ordered)
    if (ordered[-1].execution_count, ordered[-1].node.lineno) > (late_stmt.execution_count, late_stmt.node.lineno):
        raise NoCopy("a name a step reads is made after the late filter")
    ordered, helpers = _with_rebound_inputs(trees, ordered, late_stmt)
    _check_no_rebinding(trees, ordered, late_stmt)
    copied, current, taken = [], {}, _names_in(trees)
    for stmt in ordered:
        renames = tuple((old, current[old]) for old in sorted(_loads(stmt.node.value)) if old in current)
        new = _fresh(stmt.target, taken)
        taken.add(new)
        current[stmt.target] = new
        span = Site(stmt.execution_count, stmt.node.lineno, stmt.node.col_offset, stmt.node.end_lineno,
                    stmt.node.end_col_offset)
        filter_at = source.site if _contains(stmt, source.site) else None
        if filter_at is None and not renames and (stmt.execution_count, stmt.node.lineno) not in helpers:
            # the step reads its input other than by a name copied before it (SQL text over a
            # temporary view, say): the copy would compute from the unfiltered rows
            raise NoCopy(f"`{stmt.target} = ...` (execution [{stmt.execution_count}]) does not read the copied "
                         "steps by name")
        copied.append(CopiedStatement(span, new, renames, filter_at))
    if not any(c.filter_at is not None for c in copied):
        raise NoCopy("the source's read is not among the copied steps")
    return OwnCopy(late.site, tuple(copied), pushed.predicate, receiver, current[receiver])


# steps Spark's optimizer never moves a filter through, whatever the filter
def _beyond_spark(pushed: Pushed) -> bool:
    """The copy is worth its lines only when its filter is one Spark would not apply at the read
    itself: a predicate other than the late filter's own (derived through a UDF, an aggregate,
    a join's condition), or one carried through a step Spark's optimizer stops at. The late
    filter's own condition through projections, joins, unions, sorts, and aggregates or windows
    on their keys, Spark pushes to the read alone (its PushDownPredicates rules; each step says
    whether Spark stops there, pushdown/walk.spark_stops_at)."""
    late = getattr(pushed.late_filter, "condition", None)
    if late is None or X.columns(pushed.predicate) != X.columns(late):
        return True  # other columns (by identity: an aggregate's output may reuse an input's name)
    return str(pushed.predicate) != str(late) or any(s.spark_stops for s in pushed.steps)


def _statement_of(trees: dict[int, ast.Module | None], event: Event) -> _Statement:
    """The top-level `name = ...` statement holding the event's call."""
    site = event.site
    tree = trees.get(site.execution_count) if site is not None else None
    if tree is None:
        raise NoCopy("the trace has no parsable source for a step's cell")
    for node in tree.body:
        if (node.lineno, node.col_offset) <= (site.lineno, site.col_offset) and \
                (site.end_lineno, site.end_col_offset) <= (node.end_lineno, node.end_col_offset):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                return _Statement(site.execution_count, node, node.targets[0].id)
            raise NoCopy(f"a step of the path is not a plain assignment at the top of its cell "
                         f"(line {node.lineno} of execution [{site.execution_count}])")
    raise NoCopy("a step of the path is inside a block (a loop, a function, a condition)")


def _late_receiver(trees: dict[int, ast.Module | None], late: Event) -> str | None:
    """The name the late filter's call is made on: `result` in `result.filter(...)`."""
    site = late.site
    for node in ast.walk(trees[site.execution_count]):
        if isinstance(node, ast.Call) and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == (
                site.lineno, site.col_offset, site.end_lineno, site.end_col_offset):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                return func.value.id
    return None


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


# a DataFrame's attributes that are not columns bound to it
_NOT_COLUMNS = {"columns", "dtypes", "schema", "isStreaming"}


def _with_bound_columns(trees: dict[int, ast.Module | None], ordered: list[_Statement]) -> list[_Statement]:
    """`ordered` with the statements that make a name a copied step reads from a column of a
    copied DataFrame (`w = Window.partitionBy(df["genre"])`, `key = df.genre`): such a column is
    bound to the original DataFrame, and Spark cannot find it in the copy's plan
    (MISSING_ATTRIBUTES), so the statement is copied too, reading the copies. Only a top-level
    `name = ...`, the one binding of its name in the notebook, made after the first copied step;
    otherwise NoCopy."""
    while True:
        copied = {stmt.target for stmt in ordered}
        read = {name for stmt in ordered for name in _loads(stmt.node.value) - _inner(stmt.node.value)} - copied
        found = _holding_columns(trees, read, copied)
        if not found:
            return ordered
        name, base, execution_count, node = found
        bindings = [n for t in trees.values() for n in (t.body if t is not None else ()) if name in _binds(n)]
        first = (ordered[0].execution_count, ordered[0].node.lineno)
        if len(bindings) != 1 or not (isinstance(node, ast.Assign) and len(node.targets) == 1
                                      and isinstance(node.targets[0], ast.Name)) \
                or (execution_count, node.lineno) < first:
            raise NoCopy(f"`{name}` holds a column of `{base}`, which a copy cannot use")
        ordered = sorted([*ordered, _Statement(execution_count, node, name)],
                         key=lambda st: (st.execution_count, st.node.lineno))


def _with_rebound_inputs(trees: dict[int, ast.Module | None], ordered: list[_Statement],
                         late: _Statement) -> tuple[list[_Statement], set[tuple[int, int]]]:
    """`ordered` with the statement that made a name a copied step reads, where that name is bound
    again (by the step itself, say: `table = table.join(...)`) before the late filter: the copy
    runs in the late filter's cell, where the name means its last value, so the statement that
    made the value the step read is copied too, and the step reads that copy. Also the positions
    of the statements so added. Only a top-level `name = ...`; otherwise NoCopy."""
    end = (late.execution_count, late.node.lineno)
    bindings = sorted(((count, node.lineno), node) for count, tree in trees.items() if tree is not None
                      for node in tree.body)
    added: set[tuple[int, int]] = set()
    while True:
        found = _rebound_read(ordered, bindings, end)
        if found is None:
            return ordered, added
        name, here = found
        before = [(where, node) for where, node in bindings if where < here and name in _binds(node)]
        if not before:
            raise NoCopy(f"`{name}` is bound again between the pipeline's steps and the late filter")
        where, node = before[-1]
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name):
            raise NoCopy(f"`{name}` is bound again (line {where[1]} of execution [{where[0]}]) and was made "
                         "other than by a plain assignment")
        called = sorted({n.func.id for n in ast.walk(node.value) if isinstance(n, ast.Call)
                         and isinstance(n.func, ast.Name)} - _PURE_CALLS)
        if called:
            # run a second time in the copy: a function of the notebook's may do more than compute
            raise NoCopy(f"`{name}` is bound again and was made by a call of `{called[0]}`, which a copy would repeat")
        added.add(where)
        ordered = sorted([*ordered, _Statement(where[0], node, name)], key=lambda st: (st.execution_count, st.node.lineno))


# builtins a copied assignment may call again: they compute a value and do nothing else
_PURE_CALLS = {"len", "int", "float", "str", "bool", "list", "tuple", "dict", "set", "sorted", "range", "min", "max",
               "sum", "abs", "round"}


def _rebound_read(ordered: list[_Statement], bindings: list, end: tuple[int, int]) -> tuple[str, tuple[int, int]] | None:
    """A name a copied step reads, not from an earlier copied step, that some statement from that
    step up to the late filter binds again: (the name, the step's position); None when none is."""
    made: set[str] = set()
    for stmt in ordered:
        here = (stmt.execution_count, stmt.node.lineno)
        for name in sorted(_loads(stmt.node.value) - _inner(stmt.node.value) - made):
            if any(here <= where < end and name in _binds(node) for where, node in bindings):
                return name, here
        made.add(stmt.target)
    return None


def _holding_columns(trees: dict[int, ast.Module | None], read: set[str],
                     copied: set[str]) -> tuple[str, str, int, ast.stmt] | None:
    """A statement binding a name of `read` from a column of a DataFrame named in `copied`:
    (the name, the DataFrame's name, its execution, the statement), or None."""
    for execution_count, tree in sorted(trees.items()):
        for node in tree.body if tree is not None else ():
            bound = _binds(node) - _inner(node.value) if isinstance(node, ast.Assign) else set()
            if not bound & read:
                continue
            calls = {id(n.func) for n in ast.walk(node.value) if isinstance(n, ast.Call)}
            for n in ast.walk(node.value):
                base = n.value if isinstance(n, (ast.Subscript, ast.Attribute)) else None
                if not (isinstance(base, ast.Name) and base.id in copied):
                    continue
                if isinstance(n, ast.Attribute) and (id(n) in calls or n.attr in _NOT_COLUMNS):
                    continue
                return sorted(bound & read)[0], base.id, execution_count, node
    return None


def _inner(value: ast.AST) -> set[str]:
    """Names an expression binds for itself: a comprehension's variables, a lambda's parameters."""
    return _binds(value) | _parameters(value)


def _binds(node: ast.AST) -> set[str]:
    """Every name a statement may bind, in any block inside it."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
    return out


def _parameters(node: ast.AST) -> set[str]:
    return {a.arg for n in ast.walk(node) if isinstance(n, ast.Lambda)
            for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs)}


def _check_no_rebinding(trees: dict[int, ast.Module | None], ordered: list[_Statement], late: _Statement) -> None:
    """Each name a copied statement reads means, where the copy runs, what it meant where the
    statement ran: a name an earlier copied statement bound (it is renamed to that copy) is not
    bound by other code in between; any other name is not bound again at all between the
    statement and the late filter."""
    targets = {s.target for s in ordered}
    position = {(s.execution_count, s.node.lineno): s for s in ordered}
    end = (late.execution_count, late.node.lineno)
    binds: list[tuple[tuple[int, int], set[str], bool]] = []  # (where, names, copied?)
    for count in sorted(n for n in trees if ordered[0].execution_count <= n <= end[0]):
        tree = trees[count]
        if tree is None:
            raise NoCopy(f"the cell that ran as execution [{count}] cannot be read")
        binds += [((count, node.lineno), _binds(node), (count, node.lineno) in position) for node in tree.body]
    bound_by_copy: dict[str, tuple[int, int]] = {}
    for stmt in ordered:
        here = (stmt.execution_count, stmt.node.lineno)
        inner = _inner(stmt.node.value)  # a comprehension's, a lambda's
        if inner & targets:
            raise NoCopy("a step binds a name of the path inside its own expression")
        for name in sorted(_loads(stmt.node.value) - inner):
            if name in bound_by_copy:  # read as the earlier copy: no other binding in between
                since, until, others_only = bound_by_copy[name], here, True
            else:  # read as it is where the copy runs: bound by nothing from here on
                since, until, others_only = here, end, False
            for where, names, copied in binds:
                if since < where < until and name in names and not (others_only and copied):
                    raise NoCopy(f"`{name}` is bound again (line {where[1]} of execution [{where[0]}]) "
                                 "between the pipeline's steps and the late filter")
        bound_by_copy[stmt.target] = here


def _names_in(trees: dict[int, ast.Module | None]) -> set[str]:
    return {n.id for t in trees.values() if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def _fresh(name: str, taken: set[str]) -> str:
    """`<name>_pushed`, or with a number when that is taken."""
    base = f"{name}_{SUFFIX}"
    if base not in taken:
        return base
    k = 2
    while f"{base}_{k}" in taken:
        k += 1
    return f"{base}_{k}"


def _contains(stmt: _Statement, site: Site) -> bool:
    node = stmt.node
    return stmt.execution_count == site.execution_count and \
        (node.lineno, node.col_offset) <= (site.lineno, site.col_offset) and \
        (site.end_lineno, site.end_col_offset) <= (node.end_lineno, node.end_col_offset)
