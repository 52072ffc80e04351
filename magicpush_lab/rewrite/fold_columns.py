"""A long chain of `withColumn` calls folded into `withColumns` calls, in the user's cells.

Each `withColumn` nests the plan one level deeper. A few hundred levels are more than Spark
takes: a Spark Connect server refuses a plan nested about 500 deep, and the classic driver's
analysis overflows its stack a few hundred levels deep (about 450 to 600, by the JVM's thread
stack). `withColumns` adds any number of columns in one level. translate/column_steps.py shows
where a run of calls computes the same as one `withColumns` (no call reads a column made or
replaced earlier in the run, no name repeats, every expression deterministic) and cuts the run
into such layers; here each layer of two calls or more is written as one `withColumns` from the
user's own argument text, keeping the order of the calls, which is the order of the columns.

Code written call by call is folded: a method chain (`df.withColumn(...).withColumn(...)`) or
consecutive statements `df = df.withColumn(...)` reassigning one name. So is a loop whose one
statement is `df = df.withColumn(...)`, into a dict comprehension, when its cell ran to the end
(every run of the loop is in the trace). A call run more than once in any other way is left as
it is: an edit of its code would change runs outside the fold.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from magicpush_lab.capture.trace import Site, Trace
from magicpush_lab.rewrite.assemble import cell_index, trace_cells
from magicpush_lab.rewrite.cellparse import bound_names, parse_cell
from magicpush_lab.suggestion import CellChange, Fold, OptimizeResult
from magicpush_lab.translate.column_steps import ColumnStep, chains, layers

#: a chain this long is offered the fold: far enough below the depths Spark refuses (about 450
#: to 600 levels) to warn before a notebook grows into them, long enough that a short chain,
#: which Spark takes, is never rewritten for nothing
MIN_CALLS = 100


def with_folds(trace: Trace, result: OptimizeResult, notebook_cells: Sequence[str] | None,
               cell_ids: Sequence[str | None] | None) -> OptimizeResult:
    """`result` with the folds of the trace's long `withColumn` chains; `notebook_cells` and
    `cell_ids` as pipeline.optimize_trace takes them. A fold that cannot be worked out is a
    note, never the optimization's failure."""
    cells = list(notebook_cells) if notebook_cells is not None else trace_cells(trace)
    try:
        found = folds(trace, cells, cell_index(trace, cells, cell_ids if notebook_cells is not None else None))
    except (RecursionError, MemoryError) as err:  # a cell's code nested too deep for Python's parser
        return replace(result, notes=(*result.notes, f"withColumn chains were not looked at ({type(err).__name__})"))
    return replace(result, folds=found) if found else result


def folds(trace: Trace, cells: Sequence[str], index_of: dict[int, int]) -> tuple[Fold, ...]:
    """One Fold per chain of at least MIN_CALLS consecutive `withColumn` calls whose code can be
    folded; `cells` are the notebook's sources and `index_of` maps an execution to its cell
    (rewrite/assemble.cell_index)."""
    out = []
    for run in chains(trace):
        if len(run) < MIN_CALLS:
            continue
        fold = _fold(trace, run, cells, index_of)
        if fold is not None:
            out.append(fold)
    return tuple(out)


def _fold(trace: Trace, run: tuple[ColumnStep, ...], cells: Sequence[str], index_of: dict[int, int]) -> Fold | None:
    by_cell: dict[int, list[tuple[ColumnStep, ...]]] = {}
    for layer in layers(run):
        for part in _by_site_cell(trace, layer):
            if len(part) > 1:
                site = trace.event(part[0].event).site
                if site is not None and site.execution_count in index_of:
                    by_cell.setdefault(index_of[site.execution_count], []).append(part)
    changes, folded, written = [], 0, 0
    for index, parts in sorted(by_cell.items()):
        edited = _edit_cell(trace, cells[index], parts, [c for i, c in enumerate(cells) if i != index])
        if edited is None:
            continue
        text, done = edited
        site = trace.event(parts[0][0].event).site  # every part's calls have one (_by_site_cell)
        changes.append(CellChange(index, cells[index], text, site.execution_count))
        folded += sum(len(p) for p in done)
        written += len(done)
    if not changes:
        return None
    depth = len(run) - folded + written
    last = run[-1].event
    reason = (f"{len(run)} withColumn calls nest the plan {len(run)} deep; Spark Connect refuses plans nested "
              f"about 500 deep and the classic driver overflows its stack a few hundred deep (about 450 to 600); "
              f"{written} withColumns call{'s' if written != 1 else ''} in place of {folded} of them "
              f"give{'s' if written == 1 else ''} the same "
              f"columns in the same order, {depth} deep")
    return Fold(pipeline=trace.variable_of(last), calls=len(run), folded=folded, with_columns=written,
                depth_after=depth, first_event=run[0].event, last_event=last, reason=reason, cells=tuple(changes))


def _by_site_cell(trace: Trace, layer: tuple[ColumnStep, ...]) -> list[tuple[ColumnStep, ...]]:
    """A layer cut where its calls pass from one cell execution to another, and where they pass
    into or out of code that ran more than once (a loop's body): such code's calls are a part of
    their own when the part holds every run of it, and left out otherwise (an edit of its code
    would change runs outside the fold)."""
    def code(site: Site) -> tuple[int, Site | None]:  # the execution, and the loop's call (None: code run once)
        return site.execution_count, site if len(trace.runs_of(site)) > 1 else None

    parts: list[list[ColumnStep]] = [[]]
    for step in layer:
        site = trace.event(step.event).site
        if site is None:
            parts.append([])
            continue
        current = parts[-1]
        if current and code(trace.event(current[-1].event).site) != code(site):
            parts.append([])
        parts[-1].append(step)
    return [tuple(p) for p in parts if p and _whole(trace, p)]


def _whole(trace: Trace, part: list[ColumnStep]) -> bool:
    """The part holds every run of the code it is made of: each call's code ran once, or the
    part is every run of one loop's call and no look at any of them."""
    sites = {trace.event(s.event).site for s in part}
    if len(sites) == len(part):
        return all(len(trace.runs_of(site)) == 1 for site in sites)
    return len(sites) == 1 and sorted(trace.runs_of(next(iter(sites)))) == [s.event for s in part]


@dataclass(frozen=True)
class _Text:
    """A cell's source with its syntax tree and offsets by ast positions."""

    source: str
    tree: ast.Module
    starts: tuple[int, ...]  # character offset of each line's start

    @staticmethod
    def of(source: str) -> _Text | None:
        tree = parse_cell(source)
        if tree is None:
            return None
        starts = [0]
        for line in source.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        return _Text(source, tree, tuple(starts))

    def offset(self, lineno: int, col_bytes: int) -> int:
        """Character offset of an ast position (1-based line, UTF-8 byte column)."""
        start = self.starts[lineno - 1]
        line = self.source[start:self.starts[lineno]] if lineno < len(self.starts) else self.source[start:]
        return start + len(line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def text(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.source[a:b]


def _edit_cell(trace: Trace, source: str, parts: list[tuple[ColumnStep, ...]],
               others: Sequence[str] = ()) -> tuple[str, list] | None:
    """The cell with each part written as one `withColumns`, and the parts that were; None when
    none can be. A part whose code is not a plain chain of calls is left as it is."""
    text = _Text.of(source)
    if text is None:
        return None
    calls: dict[tuple[int, int, int, int], ast.Call] = {}
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(text.tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        if isinstance(node, ast.Call):
            calls[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = node  # type: ignore[index]
    replacements: list[tuple[int, int, str]] = []
    done = []
    for part in parts:
        nodes = [_call_at(calls, trace.event(s.event).site) for s in part]
        if len(part) > 1 and nodes[0] is not None and nodes[0] is nodes[-1]:  # one call, run by a loop
            loop = _loop_fold(text, nodes[0], parents, trace.event(part[0].event).site, trace, others)
            if loop is not None:
                replacements.append(loop)
                done.append(part)
            continue
        if any(n is None for n in nodes) or not all(_linked(a, b, parents) for a, b in pairwise(nodes)):
            continue
        if _reads_a_step(nodes):
            continue
        first, last = nodes[0], nodes[-1]
        start, _ = text.span(first)
        _, end = text.span(last)
        indent = _indent(source, start)
        items = "".join(f"{indent}    {text.text(n.args[0])}: {text.text(n.args[1])},\n" for n in nodes)
        replacements.append((start, end, f"{text.text(first.func.value)}.withColumns({{\n{items}{indent}}})"))
        done.append(part)
    if not replacements:
        return None
    out = source
    # from the end: two parts of one method chain start at the same place, and the later part's
    # text begins with the earlier part's code as written, so the earlier one's span still holds
    for start, end, new in sorted(replacements, reverse=True):
        out = out[:start] + new + out[end:]
    return (out, done) if parse_cell(out) is not None else None


def _loop_fold(text: _Text, call: ast.Call, parents: dict[ast.AST, ast.AST], site: Site, trace: Trace,
               others: Sequence[str]) -> tuple[int, int, str] | None:
    """The loop `for T in I: X = X.withColumn(A, B)` as `X = X.withColumns({A: B for T in I})`:
    (start, end, text), or None when the two could differ. The loop is the cell's own statement
    and the cell's run raised nothing, so the loop ran to its end and every run is in the trace;
    A and B read no `X` (in the loop it is the chain's DataFrame so far, in the fold its input);
    and no code reads T after the loop (the comprehension does not leave T bound)."""
    statement, receiver = parents.get(call), call.func.value  # type: ignore[attr-defined]
    loop = parents.get(statement)
    if not (isinstance(receiver, ast.Name) and _assigns(statement, call, receiver.id) and isinstance(loop, ast.For)
            and loop.body == [statement] and not loop.orelse and parents.get(loop) is text.tree):
        return None
    ran = [c for c in trace.cells if c.execution_count == site.execution_count]
    if not ran or ran[-1].error is not None:
        return None
    argument_names = {x.id for a in call.args for x in ast.walk(a) if isinstance(x, ast.Name)}
    if receiver.id in argument_names or any(isinstance(x, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom))
                                            for a in call.args for x in ast.walk(a)):
        return None
    targets = {x.id for x in ast.walk(loop.target) if isinstance(x, ast.Name)}
    if not all(isinstance(x, (ast.Name, ast.Tuple, ast.List, ast.Load, ast.Store)) for x in ast.walk(loop.target)):
        return None
    after = text.tree.body[text.tree.body.index(loop) + 1:]
    if any(_reads(stmt, targets) for stmt in after) or any(_reads_unbound(other, targets) for other in others):
        return None
    start, end = text.span(loop)
    name, key, value = receiver.id, text.text(call.args[0]), text.text(call.args[1])
    return start, end, (f"{name} = {name}.withColumns({{{key}: {value} for {text.text(loop.target)} in "
                        f"{text.text(loop.iter)}}})")


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and x.id in names for x in ast.walk(node))


def _reads_unbound(source: str, names: set[str]) -> bool:
    """Another cell reads one of `names` without binding it itself: it may read the loop's."""
    tree = parse_cell(source)
    if tree is None:
        return True
    return _reads(tree, names - bound_names(tree))


def _call_at(calls: dict[tuple[int, int, int, int], ast.Call], site: Site | None) -> ast.Call | None:
    """The `X.withColumn(name, value)` call at `site`, plain: two positional arguments."""
    if site is None:
        return None
    node = calls.get((site.lineno, site.col_offset, site.end_lineno, site.end_col_offset))
    if (node is None or not isinstance(node.func, ast.Attribute) or node.func.attr != "withColumn"
            or len(node.args) != 2 or node.keywords or any(isinstance(a, ast.Starred) for a in node.args)):
        return None
    return node


def _linked(before: ast.Call, after: ast.Call, parents: dict[ast.AST, ast.AST]) -> bool:
    """`after` is called on `before`'s result with nothing in between: the next call of one
    method chain, or the next statement reassigning the name `before`'s statement assigned
    (`df = df.withColumn(...)` twice in a row)."""
    if after.func.value is before:  # type: ignore[attr-defined]
        return True
    receiver = after.func.value  # type: ignore[attr-defined]
    s1, s2 = parents.get(before), parents.get(after)
    if not (isinstance(receiver, ast.Name) and _assigns(s1, before, receiver.id) and _assigns(s2, after, receiver.id)):
        return False
    body = parents.get(s1)
    siblings = _body_holding(body, s1)
    return siblings is not None and parents.get(s2) is body and siblings.index(s1) + 1 < len(siblings) \
        and siblings[siblings.index(s1) + 1] is s2


def _reads_a_step(nodes: list[ast.Call]) -> bool:
    """Some call's arguments read the name its statements reassign, after its first statement:
    there the name holds a DataFrame of the chain, in the fold the chain's input (the plan does
    not show a Python value such as `len(df.columns)` made from it), so the part is not folded."""
    for i, (before, after) in enumerate(pairwise(nodes), 1):
        if after.func.value is before:  # type: ignore[attr-defined]
            continue
        name = after.func.value.id  # type: ignore[attr-defined]  # a statement link (_linked)
        return any(isinstance(x, ast.Name) and x.id == name for n in nodes[i:] for a in n.args for x in ast.walk(a))
    return False


def _assigns(statement: ast.AST | None, value: ast.AST, name: str) -> bool:
    return (isinstance(statement, ast.Assign) and statement.value is value and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name)


def _body_holding(parent: ast.AST | None, statement: ast.AST) -> list[ast.stmt] | None:
    """The statement list of `parent` that holds `statement` (a body, an else, a handler's...)."""
    if parent is None:
        return None
    for field in ("body", "orelse", "finalbody"):
        found = getattr(parent, field, None)
        if isinstance(found, list) and any(s is statement for s in found):
            return found
    return None


def _indent(source: str, offset: int) -> str:
    """The leading whitespace of the line holding `offset`."""
    line_start = source.rfind("\n", 0, offset) + 1
    line = source[line_start:offset]
    return line[: len(line) - len(line.lstrip())]
