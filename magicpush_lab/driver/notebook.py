"""A saved notebook as the replay reads it and the CLI writes it back: `.ipynb` files and
percent-format scripts (`# %%` cell markers), and the order the cells ran in by their saved
execution counts.

    doc = read_document("pipeline.py")
    order, notes = execution_order(doc.nb.cells)   # the code cells to run, and why that order
    write_document(doc, {3: "df = df.filter(...)"}, "fast.py")
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import nbformat

from magicpush_lab.errortext import ANSI_CODES  # a terminal's colour codes, as kernels write them

SUPPORTED = (".ipynb", ".py")
_MARKER = re.compile(r"^#\s?%%(?!%)")


@dataclass
class PercentCell:
    """One cell of a percent script: its marker line (None for text before the first marker)."""

    marker: str | None
    source: str
    kind: str  # "code" | "markdown"
    lead: int = 0  # blank lines between the marker and the source, kept when writing back
    trail: int = 1  # blank lines after the source


@dataclass
class Document:
    """A notebook as read from disk, with enough kept to write it back in the same format."""

    path: Path
    nb: Any  # nbformat NotebookNode (built from the cells for a percent script)
    percent: list[PercentCell] | None = field(default=None)

    @property
    def sources(self) -> list[str]:
        return [c.source for c in self.nb.cells]

    @property
    def ids(self) -> list[str | None]:
        return [c.get("id") for c in self.nb.cells]


def _is_markdown_marker(line: str) -> bool:
    return "[markdown]" in line or "[md]" in line


def _markdown_text(lines: list[str]) -> str:
    out = []
    for line in lines:
        if line.startswith("# "):
            out.append(line[2:])
        elif line.startswith("#"):
            out.append(line[1:])
        else:
            out.append(line)
    return "\n".join(out)


def _trim(lines: list[str]) -> tuple[list[str], int, int]:
    """Lines without leading and trailing blank lines, and how many of each there were."""
    lead = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    lines = lines[lead:]
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end], lead, len(lines) - end


def parse_percent(text: str) -> list[PercentCell]:
    """Cells of a percent script; text before the first marker is a cell if it is not blank.

    >>> [(c.kind, c.source) for c in parse_percent("import x\\n# %% [markdown]\\n# Title\\n# %%\\ny = 1\\n\\n")]
    [('code', 'import x'), ('markdown', 'Title'), ('code', 'y = 1')]
    """
    cells: list[PercentCell] = []
    marker: str | None = None
    body: list[str] = []

    def flush() -> None:
        lines, lead, trail = _trim(body)
        if marker is None and not lines:
            return
        if marker is not None and _is_markdown_marker(marker):
            cells.append(PercentCell(marker, _markdown_text(lines), "markdown", lead, trail))
        else:
            cells.append(PercentCell(marker, "\n".join(lines), "code", lead, trail))

    for line in text.splitlines():
        if _MARKER.match(line):
            flush()
            marker, body = line, []
        else:
            body.append(line)
    flush()
    return cells


def write_percent(cells: Sequence[PercentCell], sources: Sequence[str]) -> str:
    """A percent script from cells, with code cells' sources replaced by `sources`."""
    parts = []
    for k, (cell, src) in enumerate(zip(cells, sources)):
        if cell.kind == "markdown":
            body = "\n".join(("# " + line) if line else "#" for line in src.splitlines())
        else:
            body = src
        head = "" if cell.marker is None else cell.marker + "\n" + "\n" * cell.lead
        # keep the blank lines the author put between cells (at least one before the next marker)
        tail = "\n" * (1 + (max(cell.trail, 1) if k < len(cells) - 1 else 0))
        parts.append(head + body + tail)
    return "".join(parts)


def read_document(path: str | os.PathLike[str]) -> Document:
    """Read a notebook; ValueError for an unsupported extension, OSError if unreadable."""
    p = Path(path)
    if p.suffix not in SUPPORTED:
        raise ValueError(f"{p}: unsupported file type {p.suffix or '(none)'}; use .ipynb or a percent-format .py")
    if p.suffix == ".ipynb":
        try:
            nb = nbformat.read(str(p), as_version=4)
            odd = [i for i, c in enumerate(nb.cells) if "cell_type" not in c or not isinstance(c.get("source"), str)]
            if odd:
                raise ValueError(f"cells {_listed(odd)} have no cell_type or source")
        except OSError:
            raise
        except Exception as err:  # nbformat raises schema, type and attribute errors on odd JSON
            raise ValueError(f"{p}: not a readable notebook: {first_line(str(err))}") from err
        return Document(p, nb)
    cells = parse_percent(p.read_text(encoding="utf-8"))
    nb = nbformat.v4.new_notebook()
    for c in cells:
        nb.cells.append(nbformat.v4.new_markdown_cell(c.source) if c.kind == "markdown"
                        else nbformat.v4.new_code_cell(c.source))
    return Document(p, nb, cells)


def execution_order(cells: Sequence[Any]) -> tuple[list[int], list[str]]:
    """The indices of the code cells to replay, in the order to replay them, and notes on the choice.

    A saved notebook records, per cell, the count of its last execution. When every
    non-empty code cell has one and no two share one, those counts are the user's
    history: the cells are replayed in that order, each once, its current source at
    its last count. Otherwise (a cell never run, counts cleared, a percent script)
    the cells run in notebook order.

    >>> from nbformat.v4 import new_code_cell as c, new_markdown_cell as m
    >>> execution_order([m("# T"), c("a = 1", execution_count=1), c("b = a", execution_count=4),
    ...                  c("a = 2", execution_count=2)])[0]
    [1, 3, 2]
    >>> execution_order([c("a = 1", execution_count=2), c("b = a")])[0]
    [0, 1]
    """
    code = [i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.strip()]
    counts = [cells[i].get("execution_count") for i in code]
    if all(n is None for n in counts):
        return code, []
    missing = [i for i, n in zip(code, counts) if n is None]
    if missing:
        counted = [i for _, i in sorted((n, i) for i, n in zip(code, counts) if n is not None)]
        if counted == sorted(counted):  # what was recorded agrees with notebook order: nothing lost
            return code, []
        return code, [f"cells {_listed(missing)} have no execution count (never run, or cleared): "
                      "replayed in notebook order, not in the recorded execution order"]
    if len(set(counts)) < len(counts):
        return code, ["several cells carry the same execution count (a kernel restart?): "
                      "replayed in notebook order, not in the recorded execution order"]
    order = [i for _, i in sorted(zip(counts, code))]
    notes = []
    if order != code:
        notes.append(f"replayed in the recorded execution order (cells {_listed(order)}), not in notebook order")
    gaps = sorted(set(range(1, max(counts) + 1)) - set(counts))
    if gaps:
        notes.append(f"executions {_listed(gaps)} have no cell in the notebook (a cell run more than once, "
                     "or one since deleted or edited): each cell is replayed once, its current source at "
                     "its last count")
    return order, notes


def _listed(numbers: Sequence[int], most: int = 12) -> str:
    shown = ", ".join(str(n) for n in numbers[:most])
    return shown + (", ..." if len(numbers) > most else "")


def write_document(doc: Document, changes: dict[int, str], out: str | os.PathLike[str]) -> None:
    """Write `doc` with the cells in `changes` (index -> new source) replaced, in its own format.

    For .ipynb, metadata and the outputs of untouched cells are kept; a rewritten
    cell's outputs are cleared, since they no longer match it, and so is its execution
    count unless the notebook replays out of notebook order: there the count carries
    the order the cell ran in (see `execution_order`), which the rewrite relies on.
    """
    if doc.percent is not None:
        sources = [changes.get(i, c.source) for i, c in enumerate(doc.percent)]
        Path(out).write_text(write_percent(doc.percent, sources), encoding="utf-8")
        return
    nb = nbformat.from_dict(doc.nb)
    order, _ = execution_order(nb.cells)
    in_notebook_order = order == sorted(order)
    for i, src in changes.items():
        cell = nb.cells[i]
        cell.source = src
        if cell.cell_type == "code":
            cell.outputs = []
            if in_notebook_order:
                cell.execution_count = None
    nbformat.write(nb, str(out))


def recorded_counts(cells: Sequence[Any], order: Sequence[int]) -> dict[int, int]:
    """Notebook index -> the execution count its saved prompt shows, for the cells replayed in
    `order`, when that order is the saved counts' (each has one, ascending); else nothing.

    >>> from nbformat.v4 import new_code_cell as c, new_markdown_cell as m
    >>> recorded_counts([m("# T"), c("a = 1", execution_count=3), c("b = a", execution_count=5)], [1, 2])
    {1: 3, 2: 5}
    >>> recorded_counts([c("a = 1", execution_count=3), c("b = a")], [0, 1])
    {}
    """
    counts = [cells[i].get("execution_count") for i in order]
    if any(n is None for n in counts) or any(a >= b for a, b in zip(counts, counts[1:])):
        return {}
    return dict(zip(order, counts))


def first_line(text: str | None) -> str:
    """The first line of a message, without colour codes, at most 500 characters."""
    text = ANSI_CODES.sub("", text or "").strip()
    return text.splitlines()[0][:500] if text else ""
