"""pandas code after `toPandas()`: the statements that filter the collected frame, read as a
sub-plan over the Spark result's columns.

A notebook collects a Spark pipeline with `pdf = sdf.toPandas()` and filters it in pandas
afterwards, in the same cell or in later ones:

    pdf = scored.toPandas()
    pdf["score"] = pdf["c"] + 1
    top = pdf[pdf["score"] > 199000]

`read_tail(trace, inspection, inputs)` finds the statement that made `pdf`, follows the
statements that build one frame from the last (`pdf[...] = ...`, `top = pdf[mask]`, ...) up to
the first that filters, and reads them with the applyInPandas body reader
(translate/pandas_body.py), as if they were a function of the collected frame. What comes out:
the late filter's condition and the operators below it (a chain over a Source whose columns are
`inputs`, the Spark result's), in the IR's encoding of pandas semantics.

Every row of the collected frame must reach the user only through that filter, or a filter
moved into Spark would change what they see. So the reading refuses, naming the statement and
its cell, when code reads a frame from before the filter in any other way: a `pdf.head()` or a
`len(pdf)` shown, a second frame made from it, a call that may change it in place. Frames made
after the filter may be used in any way.

>>> cells = ['pdf = df.toPandas()', 'pdf["y"] = pdf["x"] * 2\\ntop = pdf[pdf["y"] > 10]\\ntop.head()']
>>> chain, late = statement_chain(cells, "pdf", 1, (X.Col("x", 1, "int"),))
>>> [ast.unparse(s.node) for s in chain.steps], chain.sink, str(late.condition)
(["pdf['y'] = pdf['x'] * 2", "top = pdf[pdf['y'] > 10]"], 'top', 'coalesce(y > 10, False)')
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import Iterator, Sequence

from magicpush_lab.capture.trace import Inspection, Site, Trace
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.translate.pandas_body import BodyNotRead, body_plan

# a cell magic makes the whole cell another language; a line magic or shell escape is one line
_LINE_ESCAPES = ("%", "!")


@dataclass(frozen=True)
class Statement:
    """A top-level statement of a cell execution: where it is, for notes."""

    node: ast.stmt  # as the body reader reads it (a query written as its mask)
    execution_count: int
    written: str = ""  # as the user wrote it

    @property
    def where(self) -> str:
        return f"cell [{self.execution_count}], line {self.node.lineno}"

    @property
    def code(self) -> str:
        text = " ".join((self.written or ast.unparse(self.node)).split())
        return text if len(text) <= 60 else text[:59] + "…"


@dataclass(frozen=True)
class Chain:
    """The statements from the collected frame to its first filter; `sink` is the name that
    holds the filtered frame; `steps[-1]` is the statement that filters."""

    frame: str
    steps: tuple[Statement, ...]
    sink: str


@dataclass(frozen=True)
class PandasTail:
    """The pandas filter after a `toPandas()`, read over the Spark result's columns."""

    event: int  # the DataFrame toPandas was called on
    site: Site  # the toPandas call
    frame: str  # the name toPandas' result was bound to
    sink: str  # the name of the filtered frame
    condition: X.Expr  # the late filter, over below.output
    below: P.Plan  # the pandas operators under the filter, down to a Source of the Spark columns
    filter_statement: Statement


class NotATail(ValueError):
    """The toPandas call is not followed by pandas code whose filter can be read; `quiet` when
    there is no filter to speak of (nothing filters the frame, or it is not bound to a name)."""

    def __init__(self, reason: str, quiet: bool = False) -> None:
        super().__init__(reason)
        self.quiet = quiet


class _QueryAsMask(ast.NodeTransformer):
    """`frame.query("a > 1 and b == 'x'")` as the mask `frame[(frame["a"] > 1) & (frame["b"] == 'x')]`,
    which the body reader reads: in a query a bare name is a column, `and`/`or`/`not` act
    element-wise, and a chained comparison is the conjunction of its links. A query that uses
    `@variable`, backticks or anything beyond names, literals, comparisons and arithmetic stays
    a call, which the reader refuses.

    >>> ast.unparse(_QueryAsMask().visit(ast.parse("top = pdf.query('1 < a <= 3 and not b')")))
    "top = pdf[(1 < pdf['a']) & (pdf['a'] <= 3) & ~pdf['b']]"
    """

    _SIMPLE = (ast.Expression, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Compare, ast.Name, ast.Constant,
               ast.And, ast.Or, ast.Not, ast.USub, ast.Add, ast.Sub, ast.Mult, ast.Load, ast.Eq, ast.NotEq,
               ast.Lt, ast.LtE, ast.Gt, ast.GtE)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "query" and len(node.args) == 1
                and not node.keywords and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            return node
        try:
            expr = ast.parse(node.args[0].value.strip(), mode="eval")
        except SyntaxError:
            return node
        if not all(isinstance(n, self._SIMPLE) for n in ast.walk(expr)):
            return node
        frame = node.func.value
        mask = self._mask(expr.body, frame)
        return ast.copy_location(ast.Subscript(frame, mask, ast.Load()), node)

    def _mask(self, e: ast.expr, frame: ast.expr) -> ast.expr:
        if isinstance(e, ast.Name):
            return ast.Subscript(frame, ast.Constant(e.id), ast.Load())
        if isinstance(e, ast.BoolOp):
            op = ast.BitAnd() if isinstance(e.op, ast.And) else ast.BitOr()
            parts = [self._mask(v, frame) for v in e.values]
            out = parts[0]
            for part in parts[1:]:
                out = ast.BinOp(out, op, part)
            return out
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return ast.UnaryOp(ast.Invert(), self._mask(e.operand, frame))
        if isinstance(e, ast.UnaryOp):
            return ast.UnaryOp(e.op, self._mask(e.operand, frame))
        if isinstance(e, ast.BinOp):
            return ast.BinOp(self._mask(e.left, frame), e.op, self._mask(e.right, frame))
        if isinstance(e, ast.Compare):
            terms = [self._mask(t, frame) for t in (e.left, *e.comparators)]
            links = [ast.Compare(terms[i], [op], [terms[i + 1]]) for i, op in enumerate(e.ops)]
            out = links[0]
            for link in links[1:]:
                out = ast.BinOp(out, ast.BitAnd(), link)
            return out
        return e


def cell_statements(source: str, execution_count: int) -> list[Statement]:
    """The top-level statements of a cell; line magics and shell escapes read as `pass` (they
    keep their line), a cell magic as no statements.

    >>> [ast.unparse(s.node) for s in cell_statements("%time x = 1\\ny = x", 3)]
    ['pass', 'y = x']
    """
    if source.lstrip().startswith("%%"):
        return []
    lines = [line[:len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(_LINE_ESCAPES) else line
             for line in source.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        written = ast.unparse(node)  # first: the transformer changes the node in place
        out.append(Statement(_QueryAsMask().visit(node), execution_count, written))
    return out


def _loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound(node: ast.stmt) -> set[str]:
    """Names a statement binds (not the ones it only sets an item or attribute of)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def _step_target(node: ast.stmt, current: str) -> str | None:
    """The frame name a chain step leaves its result in, or None when `node` is not a step:
    `NAME = <expr of current>`, `current[...] = ...`, `current.loc[mask, "c"] = ...`."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target = node.targets[0]
    if isinstance(target, ast.Name):
        return target.id
    base = target.value if isinstance(target, ast.Subscript) else None
    if isinstance(base, ast.Attribute) and base.attr == "loc":
        base = base.value
    if isinstance(base, ast.Name) and base.id == current:
        return current
    return None


def statement_chain(cells: Sequence[str], frame: str, after_line: int, inputs: tuple[X.Col, ...],
                    counts: Sequence[int] | None = None, first: Statement | None = None) -> tuple[Chain, P.Filter]:
    """The chain of statements from `frame` (bound at line `after_line` of `cells[0]`) to its
    first filter, over `cells` in the order they ran, and that filter read over `inputs`;
    NotATail when there is none, or code reads a frame from before that filter otherwise (see
    the module's docstring), or a step cannot be read. `first`, when given, is the chain's
    first statement (the one that collected the frame and goes on with it).

    The filter is found by reading the chain one step longer each time, so the chain's last
    step is the first statement whose reading has a filter in it."""
    counts = list(counts) if counts is not None else list(range(len(cells)))
    statements: Iterator[Statement] = itertools.chain([first] if first is not None else [], (
        s for i, (source, count) in enumerate(zip(cells, counts)) for s in cell_statements(source, count)
        if i > 0 or s.node.lineno > after_line))
    current = frame
    unfiltered = {frame}  # names bound to a frame holding every collected row
    steps: list[Statement] = []
    for s in statements:
        reads = _loaded(s.node) & unfiltered
        if not reads:
            unfiltered -= _bound(s.node)  # bound to something else now
            if current not in unfiltered:
                raise NotATail(f"`{current}` is bound to something else at {s.where} before any filter")
            continue
        target = _step_target(s.node, current)
        if target is None or reads != {current}:
            named = ", ".join(f"`{n}`" for n in sorted(reads))
            raise NotATail(f"`{s.code}` ({s.where}) reads {named}, which holds every collected row: a filter "
                           f"moved into Spark would change what it sees")
        steps.append(s)
        try:
            late = _first_filter(body_plan(_function(frame, steps, target), inputs))
        except BodyNotRead as err:
            raise NotATail(f"`{s.code}` ({s.where}): {err}") from None
        if late is not None:
            return Chain(frame, tuple(steps), target), late
        if target != current:
            unfiltered.add(target)
            current = target
    raise NotATail(f"the pandas code after toPandas() does not filter `{frame}`", quiet=True)


def _function(frame: str, steps: Sequence[Statement], result: str) -> str:
    body = "\n".join("    " + line for s in steps for line in ast.unparse(s.node).splitlines())
    return f"def pandas_tail({frame}):\n{body}\n    return {result}\n"


def _first_filter(plan: P.Plan) -> P.Filter | None:
    """The filter nearest the Source in a body chain."""
    found = None
    node = plan
    while node.children:
        if isinstance(node, P.Filter):
            found = node
        node = node.children[0]
    return found


#: the name a toPandas() result gets when the user's statement goes on with it (`top = df.toPandas().query(...)`)
COLLECTED = "collected_frame"


def toPandas_statement(source: str, site: Site) -> tuple[str, Statement | None] | None:
    """How the toPandas call at `site` is bound: `NAME = <...>.toPandas()` gives (NAME, None);
    `NAME = <...>.toPandas().query(...)` (the call at the bottom of the statement's chain of
    methods and indexing) gives COLLECTED and that statement with COLLECTED in place of the call,
    the chain's first step. None for any other use.

    >>> toPandas_statement("x = 1\\npdf = df.where('a').toPandas()", Site(1, 2, 6, 2, 30))
    ('pdf', None)
    >>> name, first = toPandas_statement("top = df.toPandas().query('k > 1')", Site(1, 1, 6, 1, 19))
    >>> name, first.code, ast.unparse(first.node)
    ('collected_frame', "top = df.toPandas().query('k > 1')", "top = collected_frame[collected_frame['k'] > 1]")
    """
    for s in cell_statements(source, site.execution_count):
        node = s.node
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        if _is_call_at(node.value, site):
            return node.targets[0].id, None
        below = node.value
        while isinstance(below, (ast.Attribute, ast.Subscript, ast.Call)):
            below = below.func if isinstance(below, ast.Call) else below.value
            if _is_call_at(below, site):
                node = _Replace(below, ast.Name(COLLECTED, ast.Load())).visit(node)
                return COLLECTED, Statement(node, s.execution_count, s.written)
    return None


class _Replace(ast.NodeTransformer):
    """Every occurrence of one node (a query's mask refers to its frame more than once)."""

    def __init__(self, old: ast.AST, new: ast.AST) -> None:
        self.old, self.new = old, new

    def visit(self, node: ast.AST) -> ast.AST:
        return self.new if node is self.old else super().visit(node)


def _is_call_at(node: ast.expr, site: Site) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "toPandas" \
        and (node.lineno, node.end_lineno, node.end_col_offset) == (site.lineno, site.end_lineno, site.end_col_offset)


def _function_reading(source: str, execution_count: int, frame: str) -> str:
    """Why a function defined before the toPandas() call may read the collected frame when it
    is called later (a call that does not name the frame), or "".

    >>> _function_reading("def peek():\\n    return pdf.head()", 2, "pdf")
    '`peek` (cell [2], line 1) reads `pdf`, which holds every collected row, when it is called'
    """
    for s in cell_statements(source, execution_count):
        for node in ast.walk(s.node):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and frame in _loaded(node):
                name = getattr(node, "name", "a lambda")
                return (f"`{name}` (cell [{execution_count}], line {node.lineno}) reads `{frame}`, which holds every"
                        f" collected row, when it is called")
    return ""


def _source(trace: Trace, execution_count: int) -> str | None:
    return next((c.source for c in trace.cells if c.execution_count == execution_count), None)


def to_pandas_calls(trace: Trace) -> list[Inspection]:
    """The traced `toPandas()` calls, the last run of each call site once."""
    found: dict[tuple, Inspection] = {}
    for i in trace.inspections:
        if i.action == "toPandas" and i.site is not None:
            found[(i.site.lineno, i.site.col_offset, _source(trace, i.site.execution_count))] = i
    return list(found.values())


def read_tail(trace: Trace, call: Inspection, inputs: tuple[X.Col, ...]) -> PandasTail:
    """The pandas filter after `call`, over `inputs` (the columns of the DataFrame it collected);
    NotATail with the reason when there is none that can be read."""
    site = call.site
    if site is None:
        raise NotATail("the toPandas() call has no place in the notebook", quiet=True)
    runs = sorted((c for c in trace.cells if c.execution_count >= site.execution_count),
                  key=lambda c: c.execution_count)
    if not runs or runs[0].execution_count != site.execution_count:
        raise NotATail("the cell of the toPandas() call was not traced", quiet=True)
    bound = toPandas_statement(runs[0].source, site)
    if bound is None:
        raise NotATail("toPandas() is not assigned to a name (`pdf = df.toPandas()`)", quiet=True)
    frame, first = bound
    for earlier in trace.cells:
        if earlier.execution_count < site.execution_count:
            why = _function_reading(earlier.source, earlier.execution_count, frame)
            if why:
                raise NotATail(why)
    chain, late = statement_chain([c.source for c in runs], frame, site.end_lineno, inputs,
                                  [c.execution_count for c in runs], first)
    return PandasTail(call.event, site, frame, chain.sink, late.condition, late.child, chain.steps[-1])
