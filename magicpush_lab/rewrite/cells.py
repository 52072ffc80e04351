"""Turn edits (in terms of call sites) into new cell text.

Edits are located with Python's `ast` positions on the cell source and applied by
splicing text, so everything the edits do not touch (comments, layout, other
statements) stays exactly as the user wrote it.

>>> from magicpush_lab.capture.trace import Site
>>> from magicpush_lab.ir.expr import Cmp, Col, Lit
>>> from magicpush_lab.rewrite.edits import AddFilter
>>> cells = ["from pyspark.sql import functions as F", "sales = spark.read.parquet(p)  # raw"]
>>> edit = AddFilter(Site(2, 1, 8, 1, 29), Cmp(">", Col("v"), Lit(995, "int")))
>>> apply(cells, {2: 1}, [edit], "F")[1]
'sales = spark.read.parquet(p).filter(F.col("v") > 995)  # raw'
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

from magicpush_lab.capture.trace import Site
from magicpush_lab.rewrite.cellparse import mask_ipython, parse_cell
from magicpush_lab.ir.expr import TRUE, Expr
from magicpush_lab.rewrite.edits import AddFilter, CopiedStatement, Edit, OwnCopy, RemoveFilter
from magicpush_lab.rewrite.sql_text import NoSqlForm, filtered_sql, predicate_sql
from magicpush_lab.rewrite.pyspark_code import (
    FUNCTIONS_IMPORT, module_aliases, datetime_alias, to_pyspark, uses_datetime)

FILTER_METHODS = ("filter", "where")


class RewriteError(ValueError):
    """An edit cannot be applied to the cell as it is now (usually: the cell was edited since)."""


@dataclass(frozen=True)
class _Replace:
    start: int  # character offsets into the cell source
    end: int
    text: str


class _Cell:
    """A cell's source with its syntax tree, tokens and position conversions."""

    def __init__(self, source: str, label: str) -> None:
        self.source = source
        self.label = label
        tree = parse_cell(source)
        if tree is None:
            raise RewriteError(f"{label} is not valid Python")
        self.tree = tree
        self.lines = source.splitlines(keepends=True) or [""]
        self.line_starts = [0]
        for line in self.lines:
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self._tokens: list[tuple[int, int, int, str]] | None = None

    def offset(self, lineno: int, col_bytes: int) -> int:
        """Character offset of an ast position (1-based line, UTF-8 byte column)."""
        if lineno - 1 >= len(self.lines):
            return len(self.source)
        line = self.lines[lineno - 1]
        return self.line_starts[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def text(self, node: ast.AST) -> str:
        return self.source[self.start(node): self.end(node)]

    def tokens(self) -> list[tuple[int, int, int, str]]:
        """(type, start, end, string) of every token, with character offsets."""
        if self._tokens is None:
            toks = []
            masked = self.source if _parses_plain(self.source) else mask_ipython(self.source)
            try:
                for t in tokenize.generate_tokens(io.StringIO(masked).readline):
                    s = self.line_starts[t.start[0] - 1] + t.start[1] if t.start[0] <= len(self.lines) else len(masked)
                    e = self.line_starts[t.end[0] - 1] + t.end[1] if t.end[0] <= len(self.lines) else len(masked)
                    toks.append((t.type, s, e, t.string))
            except (tokenize.TokenError, IndentationError):
                pass
            self._tokens = toks
        return self._tokens

    def expressions_at(self, site: Site, line_shift: int) -> tuple[list[ast.expr], list[ast.expr]]:
        """Expression nodes whose span is the site's, and those that merely start where it starts."""
        exact, starting = [], []
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.expr):
                continue
            if (node.lineno, node.col_offset) != (site.lineno + line_shift, site.col_offset):
                continue
            starting.append(node)
            if (node.end_lineno, node.end_col_offset) == (site.end_lineno + line_shift, site.end_col_offset):
                exact.append(node)
        return exact, starting

    def dot_after(self, node: ast.AST) -> tuple[int, int] | None:
        """Offsets (end of the last `)` closing around `node`, the `.` or `[` that follows it)."""
        pos = self.end(node)
        after = pos
        for ttype, s, e, string in self.tokens():
            if s < pos:
                continue
            if ttype in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE) or (ttype == tokenize.OP and string == ")"):
                if string == ")":
                    after = e
                continue
            if ttype == tokenize.OP and string in (".", "["):
                return after, s
            return None
        return None


def _same_code(node: ast.AST, code: str) -> bool:
    try:
        other = ast.parse(code, mode="eval").body
    except SyntaxError:
        return False
    return ast.dump(node) == ast.dump(other)


def _filter_parts(node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """(receiver, condition) if `node` is `X.filter(c)`, `X.where(c)` or `X[c]` with a Column condition."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in FILTER_METHODS and len(node.args) == 1 and not node.keywords):
        return node.func.value, node.args[0]
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Constant, ast.List, ast.Tuple, ast.Slice)):
        return node.value, node.slice
    return None


def _is_filter_with(node: ast.AST, code: str) -> bool:
    parts = _filter_parts(node)
    return parts is not None and isinstance(node, ast.Call) and _same_code(parts[1], code)


def _receiver(node: ast.AST) -> ast.expr | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value
    if isinstance(node, ast.Subscript):
        return node.value
    return None


#: calls that make a grouping of a DataFrame (GroupedData, PandasCogroupedOps), not a DataFrame
GROUPING_CALLS = frozenset({"groupBy", "groupby", "rollup", "cube", "groupingSets", "pivot", "cogroup"})
#: attributes of a DataFrame that hold methods making DataFrames (`df.na.fill(0)`)
DATAFRAME_ACCESSORS = frozenset({"na", "stat"})


def _dataframe_receiver(node: ast.AST) -> ast.expr | None:
    """The DataFrame a method call at `node` is made on: its receiver, or, when the call is on a
    grouping or an accessor of a DataFrame (`df.groupBy(k).agg(...)`, `df.na.fill(0)`), the
    DataFrame below it. A filter goes only on a DataFrame: `df.groupBy(k).filter(c)` fails.

    >>> call = ast.parse('df.where(c).groupBy("k").pivot("p").agg(F.sum("v"))', mode="eval").body
    >>> ast.unparse(_dataframe_receiver(call))
    'df.where(c)'
    >>> ast.unparse(_dataframe_receiver(ast.parse("df.na.fill(0)", mode="eval").body))
    'df'
    """
    recv = _receiver(node)
    while True:
        if isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute) and recv.func.attr in GROUPING_CALLS:
            recv = recv.func.value
        elif isinstance(recv, ast.Attribute) and recv.attr in DATAFRAME_ACCESSORS:
            recv = recv.value
        else:
            return recv


def _parses_plain(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def _parses(source: str) -> bool:
    return parse_cell(source) is not None


def _add_filter(cell: _Cell, edit: AddFilter, code: str, shift: int) -> list[_Replace]:
    exact, starting = cell.expressions_at(edit.site, shift)
    insert = f".filter({code})"
    if edit.target == "call":
        if exact:
            node = exact[0]
            parent = cell.parents.get(node)
            grand = cell.parents.get(parent) if parent is not None else None
            if isinstance(parent, ast.Attribute) and grand is not None and _is_filter_with(grand, code):
                return []  # already pushed
            if isinstance(node, (ast.Call, ast.Subscript, ast.Attribute, ast.Name)):
                return [_Replace(cell.end(node), cell.end(node), insert)]
            return [_Replace(cell.start(node), cell.start(node), "("), _Replace(cell.end(node), cell.end(node), ")" + insert)]
        if any(_is_filter_with(n, code) for n in starting):
            return []
    elif edit.target == "pandas_on_spark":
        if exact:
            node = exact[0]
            insert = f".spark.apply(lambda sdf: sdf.filter({code}), index_col={edit.index_col})"
            if cell.source[cell.end(node):].startswith(insert):
                return []  # already pushed
            return [_Replace(cell.end(node), cell.end(node), insert)]
    elif edit.target == "receiver":
        if exact:
            recv = _dataframe_receiver(exact[0])
            if recv is None:
                raise RewriteError(f"{cell.label}: the expression at line {edit.site.lineno} is not a method call")
            if _is_filter_with(recv, code):
                return []
            where = cell.dot_after(recv)
            pos = where[0] if where else cell.end(recv)
            return [_Replace(pos, pos, insert)]
        if any((r := _dataframe_receiver(n)) is not None and _is_filter_with(r, code) for n in starting):
            return []
    elif edit.target == "sql":
        if exact:
            return _sql_filter(cell, exact[0], edit)
        if any(_sql_has_filter(n, edit) for n in starting):
            return []  # already pushed: the query's text grew by the filter, so its span did too
    else:
        raise RewriteError(f"unknown AddFilter target {edit.target!r}")
    raise _NotFound()


def _sql_filter(cell: _Cell, call: ast.expr, edit: AddFilter) -> list[_Replace]:
    """The SQL string of `spark.sql("...")` with the predicate where the query reads the view."""
    query = call.args[0] if isinstance(call, ast.Call) and call.args else None
    if not (isinstance(query, ast.Constant) and isinstance(query.value, str)):
        raise RewriteError(f"{cell.label}: the SQL at line {edit.site.lineno} is not written as one string")
    try:
        new = filtered_sql(query.value, edit.view or "", predicate_sql(edit.predicate))
    except NoSqlForm as err:
        raise RewriteError(f"{cell.label}: the SQL at line {edit.site.lineno}: {err}") from None
    written = cell.source[cell.start(query):cell.end(query)]
    return [_Replace(cell.start(query), cell.end(query), _string_like(written, new))]


def _sql_has_filter(node: ast.AST, edit: AddFilter) -> bool:
    """Whether `node` is a `spark.sql("...")` call whose SQL already filters by the edit's predicate."""
    query = node.args[0] if isinstance(node, ast.Call) and node.args else None
    if not (isinstance(query, ast.Constant) and isinstance(query.value, str)):
        return False
    try:
        return f"WHERE {predicate_sql(edit.predicate)}" in query.value
    except NoSqlForm:
        return False


def _string_like(written: str, value: str) -> str:
    """`value` as a Python string literal, in the quotes of `written` where it needs no escape.

    >>> print(_string_like('"SELECT 1"', "SELECT 'a'"), _string_like("'x'", "it's"))
    "SELECT 'a'" "it's"
    """
    for quote in ('"""', "'''", '"', "'"):
        if written.startswith(quote) and written.endswith(quote) and len(written) >= 2 * len(quote):
            plain = "\\" not in value and quote not in value and (len(quote) == 3 or "\n" not in value)
            if plain and not value.endswith(quote[0]):
                return quote + value + quote
            break
    return repr(value)


MOVED_NOTE = "# filter moved to the source: "


def _self_assignment(cell: _Cell, node: ast.expr, receiver: ast.expr) -> _Replace | None:
    """For `df = df.filter(c)` alone on its lines: the statement replaced by a comment that
    shows it, since removing only the call would leave `df = df`. Newlines are kept, so later
    positions in the cell do not move; `pass` goes in front when the block would be empty."""
    if not isinstance(receiver, ast.Name):
        return None
    stmt = next((n for n in ast.walk(cell.tree) if isinstance(n, ast.Assign) and n.value is node), None)
    if stmt is None or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name) \
            or stmt.targets[0].id != receiver.id:
        return None
    src, start, end = cell.source, cell.start(stmt), cell.end(stmt)
    line_start = src.rfind("\n", 0, start) + 1
    line_end = src.find("\n", end)
    after = src[end: len(src) if line_end < 0 else line_end].strip()
    if src[line_start:start].strip() or (after and not after.startswith("#")):
        return None  # another statement shares its lines (`a = 1; df = df.filter(c)`)
    code = cell.text(stmt)
    note = MOVED_NOTE + " ".join(code.split()) + "\n" * code.count("\n")
    for text in (note, "pass  " + note):
        if _parses(src[:start] + text + src[end:]):
            return _Replace(start, end, text)
    return None


def _remove_filter(cell: _Cell, edit: RemoveFilter, shift: int, added_rows: frozenset[int] = frozenset()) -> list[_Replace]:
    exact, starting = cell.expressions_at(edit.site, shift)
    if not exact:
        if starting:
            return []  # the filter is gone already
        row = edit.site.lineno + shift - 1
        if 0 <= row < len(cell.lines) and MOVED_NOTE in cell.lines[row]:
            return []  # its whole `df = df.filter(...)` statement is gone already
        raise _NotFound()
    node = exact[0]
    parts = _filter_parts(node)
    if parts is None:
        return []  # no longer a filter: nothing to remove
    whole = _self_assignment(cell, node, parts[0])
    if whole is not None:
        return [whole]
    where = cell.dot_after(parts[0])
    if where is None:
        raise RewriteError(f"{cell.label}: cannot find the filter call at line {edit.site.lineno}")
    dot, end = where[1], cell.end(node)
    src = cell.source
    line_start = src.rfind("\n", 0, dot) + 1
    line_end = src.find("\n", end)
    line_end = len(src) if line_end < 0 else line_end
    rest = src[end:line_end].strip()
    candidates = []
    if src[line_start:dot].strip() == "" and line_start > 0:
        if rest == "" or rest.startswith("#") or rest == "\\":
            candidates.append(_Replace(line_start, min(line_end + 1, len(src)), ""))
        candidates.append(_Replace(line_start - 1, end, ""))
    if rest == "" and "\n" not in src[dot:end] and _note_fits(cell, node, end, added_rows):
        # `big_earners = scored` alone would not say where its filter went
        candidates.append(_Replace(dot, end, "  " + MOVED_NOTE + " ".join(cell.text(parts[1]).split())))
    candidates.append(_Replace(dot, end, ""))
    for c in candidates:
        if _parses(src[: c.start] + c.text + src[c.end:]):
            return [c]
    return [candidates[-1]]


def _note_fits(cell: _Cell, node: ast.expr, end: int, added_rows: frozenset[int]) -> bool:
    """May the line of `end` take a "moved to the source" comment? Only when the statement
    holding `node` ends there (inside an open bracket, the comment would swallow what another
    edit joins onto the line), and when no filter is added in that statement (its new place
    is then in sight: `out = sales.filter(p).withColumn(...)` needs no note)."""
    stmt = next((n for n in ast.walk(cell.tree) if isinstance(n, ast.stmt) and not hasattr(n, "body")
                 and cell.start(n) <= cell.start(node) and cell.end(node) <= cell.end(n)), None)
    if stmt is None or "\n" in cell.source[end:cell.end(stmt)]:
        return False
    return not any(stmt.lineno <= row <= (stmt.end_lineno or stmt.lineno) for row in added_rows)


class _NotFound(Exception):
    pass


COPY_NOTE = "# this pipeline's own copy of its steps, filtered at the read (other code keeps every row):"


def _copied_steps(cell_sources: Sequence[str], cells_of_sites: Mapping[int, int], edit: OwnCopy,
                  write: Callable[[Expr], str], imports: Sequence[str]) -> str:
    """The text of an OwnCopy's statements: each as written, its target and its reads of
    earlier copies renamed, the source's read filtered (by the copy's predicate, or the
    statement's own in a copy of several reads); one after another, a note first."""
    out = [COPY_NOTE]
    for st in edit.statements:
        idx = cells_of_sites.get(st.span.execution_count)
        if idx is None or not 0 <= idx < len(cell_sources):
            raise RewriteError(f"the cell that ran as execution [{st.span.execution_count}] is not in the notebook")
        cell = _Cell(cell_sources[idx], f"cell {idx} (execution [{st.span.execution_count}])")
        out.append(_copied_statement(cell, st, write(st.predicate if st.predicate is not None else edit.predicate),
                                     imports))
    return "\n".join(out) + "\n"


def _copied_statement(cell: _Cell, st: CopiedStatement, code: str, imports: Sequence[str]) -> str:
    for shift in dict.fromkeys((0, _leading_import_lines(cell.source, imports))):
        # by where it starts: another edit of the same rewrite may have made it longer
        stmt = next((n for n in cell.tree.body if isinstance(n, ast.Assign)
                     and (n.lineno, n.col_offset) == (st.span.lineno + shift, st.span.col_offset)), None)
        if stmt is not None:
            break
    else:
        raise RewriteError(f"{cell.label}: no statement at line {st.span.lineno} matches the traced one; "
                           "was the cell edited after it ran?")
    renames = dict(st.renames)
    reps = [_Replace(cell.start(stmt.targets[0]), cell.end(stmt.targets[0]), st.target)]
    for node in ast.walk(stmt.value):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in renames:
            reps.append(_Replace(cell.start(node), cell.end(node), renames[node.id]))
    if st.filter_at is not None:
        read = replace(st.filter_at, lineno=st.filter_at.lineno + shift, end_lineno=st.filter_at.end_lineno + shift)
        reps += _add_filter(cell, AddFilter(read, TRUE, "call"), code, 0)
    start, end = cell.start(stmt), cell.end(stmt)
    inside = [_Replace(r.start - start, r.end - start, r.text) for r in reps if start <= r.start <= r.end <= end]
    if len(inside) != len(reps):
        raise RewriteError(f"{cell.label}: the statement at line {st.span.lineno} cannot be copied")
    return _splice(cell.source[start:end], inside, cell.label)


def _own_copy(cell: _Cell, edit: OwnCopy, text: str, shift: int) -> list[_Replace]:
    """The copy before the late filter's statement, and the late filter's receiver renamed."""
    exact, _ = cell.expressions_at(edit.site, shift)
    call = next((n for n in exact if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and isinstance(n.func.value, ast.Name)), None)
    if call is None:
        raise _NotFound()
    if call.func.value.id == edit.copy:
        return []  # applied already
    if call.func.value.id != edit.receiver:
        raise RewriteError(f"{cell.label}: the late filter no longer reads `{edit.receiver}`")
    stmt = next(n for n in cell.tree.body if n.lineno <= call.lineno <= n.end_lineno)
    at = cell.start(stmt)
    at -= stmt.col_offset  # the statement's line start: a top-level statement has no indentation
    # `spark_df.filter(spark_df.age > 3)`: the argument's columns are the receiver's, bound to its
    # plan; on the copy they must be the copy's, or Spark finds them missing from its input
    named = _arguments_reading(call, edit.receiver)
    return [_Replace(at, at, text), *(_Replace(cell.start(n), cell.end(n), edit.copy)
                                      for n in [call.func.value, *named])]


def _arguments_reading(call: ast.Call, name: str) -> list[ast.Name]:
    """The loads of `name` in the call's arguments, outside functions that bind it themselves."""
    found: list[ast.Name] = []
    stack: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue  # its own scope: a parameter may be called the same
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _splice(source: str, reps: list[_Replace], label: str) -> str:
    # From the end backwards so earlier offsets stay valid; at one offset the
    # deletion goes first, then the insertion lands where the deleted text began.
    ordered = sorted(reps, key=lambda r: (r.start, r.end), reverse=True)
    for a, b in zip(ordered, ordered[1:]):
        if b.end > a.start and not (b.start == b.end == a.start):
            raise RewriteError(f"{label}: two edits overlap")
    for r in ordered:
        source = source[: r.start] + r.text + source[r.end:]
    return source


def _leading_import_lines(source: str, imports: Sequence[str]) -> int:
    n = 0
    for line in source.splitlines():
        if line.strip() in imports:
            n += 1
        else:
            break
    return n


def _cell_edits(cell: _Cell, edits: Sequence[Edit], alias: str, dt: str, imports: Sequence[str],
                copies: Mapping[OwnCopy, str] | None = None) -> str:
    # A cell we rewrote before may start with the import lines we added; its sites then sit lower.
    shifts = [0]
    k = _leading_import_lines(cell.source, imports)
    if k:
        shifts.append(k)
    last: Exception | None = None
    for shift in shifts:
        try:
            reps: list[_Replace] = []
            added_rows = frozenset(e.site.lineno + shift for e in edits if isinstance(e, AddFilter))
            for e in edits:
                if isinstance(e, AddFilter):
                    reps += _add_filter(cell, e, to_pyspark(e.predicate, alias, dt), shift)
                elif isinstance(e, RemoveFilter):
                    reps += _remove_filter(cell, e, shift, added_rows)
                elif isinstance(e, OwnCopy):
                    reps += _own_copy(cell, e, copies[e], shift)
                else:
                    raise RewriteError(f"unknown edit {e!r}")
            return _splice(cell.source, reps, cell.label)
        except _NotFound as err:
            last = err
    site = next(e.site for e in edits)
    raise RewriteError(
        f"{cell.label}: no expression at line {site.lineno}, column {site.col_offset} matches the traced call; "
        "was the cell edited after it ran?") from last


def apply(cell_sources: Sequence[str], cells_of_sites: Mapping[int, int], edits: Sequence[Edit],
          alias: str) -> dict[int, str]:
    """Rewritten sources of the cells the edits touch, by index into `cell_sources`.

    cells_of_sites maps an execution count (Site.execution_count) to the index of
    the cell it ran. Cells whose text does not change are left out, which makes a
    second application of the same edits return {}.
    """
    by_cell: dict[int, list[Edit]] = {}
    for e in edits:
        idx = cells_of_sites.get(e.site.execution_count)
        if idx is None or not 0 <= idx < len(cell_sources):
            raise RewriteError(f"the cell that ran as execution [{e.site.execution_count}] is not in the notebook")
        by_cell.setdefault(idx, []).append(e)
    needs_dt = any(isinstance(e, (AddFilter, OwnCopy)) and uses_datetime(e.predicate) for e in edits)
    dt, dt_import = datetime_alias(cell_sources)
    f_import = FUNCTIONS_IMPORT.format(alias=alias)
    # Import lines a previous application may have put at the top of a cell.
    ours = [f_import, "import datetime", f"import datetime as {dt}"]
    out: dict[int, str] = {}
    # the other edits first: a pipeline's own copy is then written from the cells as they
    # become, so it carries the filters the same rewrite puts on the way (a joint rewrite)
    for phase in (False, True):
        sources = [out.get(i, src) for i, src in enumerate(cell_sources)]
        copies = {e: _copied_steps(sources, cells_of_sites, e, lambda p: to_pyspark(p, alias, dt), ours)
                  for e in edits if phase and isinstance(e, OwnCopy)}
        for idx, cell_edits in sorted(by_cell.items()):
            mine = [e for e in cell_edits if isinstance(e, OwnCopy) == phase]
            if not mine:
                continue
            cell = _Cell(sources[idx], f"cell {idx} (execution [{cell_edits[0].site.execution_count}])")
            new = _cell_edits(cell, mine, alias, dt, ours, copies)
            if new != cell_sources[idx]:
                out[idx] = new
    if not out:
        return out
    first = min(out)
    earlier = [cell_sources[i] for i in range(first + 1)]
    adds = []
    if not _imports_alias(earlier, alias):
        adds.append(f_import)
    if needs_dt and (dt_import is not None or not _imports_module(earlier, "datetime", dt)):
        adds.append(dt_import or f"import datetime as {dt}")
    if adds:
        out[first] = _add_import_lines(out[first], adds)
    return out


def _imports_alias(sources: Sequence[str], alias: str) -> bool:
    return _imports_module(sources, "pyspark.sql.functions", alias)


def _imports_module(sources: Sequence[str], module: str, alias: str) -> bool:
    for src in sources:
        tree = parse_cell(src)
        if tree is not None and alias in module_aliases(tree, module):
            return True
    return False


def _add_import_lines(source: str, lines: Sequence[str]) -> str:
    """Put import lines at the top of a cell, after a cell magic line if there is one."""
    block = "".join(line + "\n" for line in lines)
    if source.startswith("%%"):
        head, sep, tail = source.partition("\n")
        return head + sep + block + tail
    return block + source


def binding_name(cell_source: str, site: Site) -> str | None:
    """The variable the statement holding the call at `site` assigns, if it assigns one name.

    >>> binding_name("x = 1\\nsales = spark.read.parquet(p)\\n", Site(1, 2, 8, 2, 29))
    'sales'
    """
    tree = parse_cell(cell_source)
    if tree is None:
        return None
    best: ast.stmt | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        if (node.lineno, node.col_offset) <= (site.lineno, site.col_offset) and \
                (site.end_lineno, site.end_col_offset) <= (node.end_lineno, node.end_col_offset):
            if best is None or (node.lineno, node.col_offset) >= (best.lineno, best.col_offset):
                best = node
    if isinstance(best, ast.Assign) and isinstance(best.targets[0], ast.Name):
        return best.targets[0].id
    if isinstance(best, ast.AnnAssign) and isinstance(best.target, ast.Name) and best.value is not None:
        return best.target.id
    return None
