"""The statement that made a DataFrame the tracer did not see being made.

A library's function (one making its DataFrame in the JVM) makes a DataFrame outside tracing; the
trace ties it to the traced DataFrame its plan is built on (translate/dataflow.with_view_inputs)
but has no call site for it. Without one, no filter can be written on its way: where it ran, and
under which condition, would be unknown. Often one statement can be named: in the cell of the one
traced call that read it, the last top-level `name = ...` before that call's statement (and not
before the statement that made its input, when that is in the same cell) binding the name the
call is made on, holding no traced call of its own, with only simple statements from there to
the reading one. That statement's value is then the step's site.

>>> from magicpush_lab.capture.trace import Cell, Event, Site, Trace
>>> cell = "df = df.withColumn('a', F.lit(1))\\ndf = library_step(df)\\nout = df.withColumn('b', F.lit(2))"
>>> trace = Trace(events=(Event(0, "withColumn", (), "", Site(1, 1, 5, 1, 33)), Event(1, "unknown", (0,), ""),
...                       Event(2, "withColumn", (1,), "", Site(1, 3, 6, 3, 34))), cells=(Cell(1, cell),))
>>> with_untraced_sites(trace).event(1).site
Site(execution_count=1, lineno=2, col_offset=5, end_lineno=2, end_col_offset=21)
"""

from __future__ import annotations

import ast
from dataclasses import replace

from magicpush_lab.capture.trace import Site, Trace
from magicpush_lab.rewrite.cellparse import parse_cell

_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Import, ast.ImportFrom, ast.Pass)


def with_untraced_sites(trace: Trace) -> Trace:
    """`trace` with each untraced step tied to one input given its statement's site, where one
    statement can be named (module docstring); the others keep none."""
    if not any(e.op == "unknown" and e.site is None and len(e.inputs) == 1 for e in trace.events):
        return trace
    users = trace.consumers()
    cells = {c.execution_count: c.source for c in trace.cells}
    traced = [e.site for e in trace.events if e.site is not None]
    events = []
    for e in trace.events:
        readers = users.get(e.id, ())
        if e.op == "unknown" and e.site is None and len(e.inputs) == 1 and len(readers) == 1:
            read, made = trace.event(readers[0]).site, trace.event(e.inputs[0]).site
            tree = parse_cell(cells[read.execution_count]) if read is not None and read.execution_count in cells else None
            span = _making_statement(tree, read, made, traced) if tree is not None else None
            if span is not None:
                e = replace(e, site=Site(read.execution_count, *span))
        events.append(e)
    return replace(trace, events=tuple(events))


def _within(site: Site | None, count: int, node: ast.AST) -> bool:
    return site is not None and site.execution_count == count and \
        (node.lineno, node.col_offset) <= (site.lineno, site.col_offset) and \
        (site.end_lineno, site.end_col_offset) <= (node.end_lineno, node.end_col_offset)


def _making_statement(tree: ast.Module, read: Site, made: Site | None,
                      traced: list[Site]) -> tuple[int, int, int, int] | None:
    """The value span of the statement that made the untraced DataFrame `read` reads, or None."""
    count = read.execution_count
    at = next((i for i, n in enumerate(tree.body) if _within(read, count, n)), None)
    if at is None:
        return None
    call = next((n for n in ast.walk(tree.body[at]) if isinstance(n, ast.Call) and (
        n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) == (
        read.lineno, read.col_offset, read.end_lineno, read.end_col_offset)), None)
    if call is None or not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)):
        return None
    name = call.func.value.id
    start = next((i for i, n in enumerate(tree.body[:at]) if _within(made, count, n)), 0)
    binding = [i for i in range(start, at) if isinstance(tree.body[i], ast.Assign) and len(tree.body[i].targets) == 1
               and isinstance(tree.body[i].targets[0], ast.Name) and tree.body[i].targets[0].id == name]
    if not binding or not all(isinstance(n, _SIMPLE) for n in tree.body[binding[-1]:at]):
        return None
    node = tree.body[binding[-1]]
    if any(_within(s, count, node) and s != made for s in traced):
        return None  # a traced step of its own, not the untraced one
    return node.value.lineno, node.value.col_offset, node.value.end_lineno, node.value.end_col_offset
