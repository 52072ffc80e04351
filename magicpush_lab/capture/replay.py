"""Run a saved notebook in a fresh kernel with tracing on, and keep the kernel for measuring.

Notebooks are `.ipynb` files or percent-format scripts (`# %%` cell markers).

    with Replay("pipeline.ipynb", timeout=600) as r:
        r.trace            # the Trace of the whole run
        r.notebook_cells   # every cell's source in notebook order, markdown included
        r.order, r.notes   # the code cells in the order they ran, and why that order
        r.measure([{"source_event": 3, "predicate_ir": {...}}])
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import nbformat

from magicpush_lab.capture.trace import Trace

SUPPORTED = (".ipynb", ".py")
_MARKER = re.compile(r"^#\s?%%(?!%)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FRAME = re.compile(r"^\s*(Cell In\[\d*\]|File [^,]+|Input In \[\d+\]|<[^>]+>), line \d+")


class ReplayError(RuntimeError):
    """A cell failed (or the kernel died) while replaying a notebook."""

    def __init__(self, cell_index: int, ename: str, evalue: str, where: str | None = None,
                 path: str | None = None) -> None:
        self.cell_index = cell_index
        self.ename = ename
        self.evalue = evalue
        self.where = where
        self.path = path
        cell = "setup" if cell_index < 0 else f"cell {cell_index}"
        at = f" at {where}" if where else ""
        prefix = f"{path}: " if path else ""
        super().__init__(f"{prefix}{cell} failed{at}: {ename}: {evalue}")


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
            raise ValueError(f"{p}: not a readable notebook: {_first_line(str(err))}") from err
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


def _last_frame(traceback: Sequence[str] | str | None) -> str | None:
    if not traceback:
        return None
    text = traceback if isinstance(traceback, str) else "\n".join(traceback)
    frames = [m.group(0).strip() for m in (_FRAME.match(line) for line in _ANSI.sub("", text).splitlines()) if m]
    return frames[-1] if frames else None


class Replay:
    """Context manager: run the notebook at `path` in a new kernel with tracing, shut it down at exit."""

    def __init__(self, path: str | os.PathLike[str], timeout: float = 600, *, kernel_name: str = "python3",
                 progress: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.kernel_name = kernel_name
        self.progress = progress or (lambda msg: None)
        self.document: Document | None = None
        self.trace: Trace = Trace()
        self.order: list[int] = []  # notebook indices of the code cells, in the order they ran
        self.notes: list[str] = []  # how the order was chosen, when it is worth saying
        self._client: Any = None

    @property
    def notebook_cells(self) -> list[str]:
        return self.document.sources if self.document is not None else []

    @property
    def notebook_cell_ids(self) -> list[str | None]:
        return self.document.ids if self.document is not None else []

    def __enter__(self) -> "Replay":
        self.document = read_document(self.path)
        self.order, self.notes = execution_order(self.document.nb.cells)
        for note in self.notes:
            self.progress(f"{self.path.name}: {note}")
        try:
            self._start()
            self._run_cells()
            self.trace = with_cell_ids(self.fetch_trace(), self.order, self.document)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self) -> None:
        from nbclient import NotebookClient

        assert self.document is not None
        cwd = str(self.path.resolve().parent)
        # the client writes outputs and counts into the notebook it runs: run a copy, so the
        # document (and a rewrite written from it) keeps the user's own history
        self._client = NotebookClient(nbformat.from_dict(self.document.nb), timeout=int(self.timeout), kernel_name=self.kernel_name,
                                      resources={"metadata": {"path": cwd}}, allow_errors=False,
                                      shutdown_kernel="immediate")
        self._client.create_kernel_manager()
        self._client.start_new_kernel(cwd=cwd)
        self._client.start_new_kernel_client()
        reply = self._request("%load_ext magicpush_lab")
        if reply.get("status") != "ok":
            raise ReplayError(-1, reply.get("ename", "Error"), reply.get("evalue", "cannot load magicpush_lab"),
                              path=str(self.path))

    def _run_cells(self) -> None:
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

        assert self.document is not None
        cells = self._client.nb.cells
        for k, i in enumerate(self.order, 1):
            self.progress(f"{self.path.name}: running cell {k}/{len(self.order)} (#{i})")
            try:
                self._client.execute_cell(cells[i], i)
            except CellExecutionError as err:
                raise ReplayError(i, err.ename, _first_line(err.evalue), _last_frame(err.traceback),
                                  str(self.path)) from None
            except CellTimeoutError:
                raise ReplayError(i, "CellTimeoutError", f"the cell ran longer than {self.timeout}s",
                                  path=str(self.path)) from None
            except DeadKernelError as err:
                raise ReplayError(i, "DeadKernelError", str(err) or "the kernel died", path=str(self.path)) from None

    def _request(self, code: str, user_expressions: dict[str, str] | None = None) -> dict[str, Any]:
        """Run `code` (silently when it only carries expressions) and return the execute_reply content."""
        kc = self._client.kc
        msg_id = kc.execute(code, silent=not code, store_history=False, user_expressions=user_expressions or {},
                            allow_stdin=False)
        reply = self._client.wait_for_reply(msg_id)
        if reply is None:
            raise ReplayError(-1, "TimeoutError", "the kernel did not answer", path=str(self.path))
        return reply["content"]

    def _expression(self, expr: str, mime: str) -> Any:
        content = self._request("", {"r": expr})
        value = content.get("user_expressions", {}).get("r", {})
        if value.get("status") != "ok":
            raise ReplayError(-1, value.get("ename", "Error"), _first_line(value.get("evalue", "no value")),
                              path=str(self.path))
        data = value.get("data", {})
        if mime not in data:
            raise ReplayError(-1, "ValueError", f"the kernel answered without {mime}", path=str(self.path))
        return data[mime]

    def evaluate(self, expr: str) -> str:
        """The repr of a Python expression evaluated in the replayed kernel (text/plain)."""
        return str(self._expression(expr, "text/plain"))

    def fetch_trace(self) -> Trace:
        """Ask the kernel for its trace, the way the frontend does."""
        from magicpush_lab.protocol import TRACE_EXPRESSION, TRACE_MIME

        return Trace.from_json(self._expression(TRACE_EXPRESSION, TRACE_MIME))

    def measure(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Measure predicates on the replayed kernel's DataFrames (see kernel.measure_bundle)."""
        from magicpush_lab.protocol import MEASURE_MIME, measure_expression

        if not requests:
            return []
        return list(self._expression(measure_expression(requests), MEASURE_MIME))

    def close(self) -> None:
        if self._client is not None and self._client.km is not None:
            try:
                self._client._cleanup_kernel()
            except Exception:  # the kernel may already be gone
                pass
        self._client = None


def with_cell_ids(trace: Trace, order: Sequence[int], doc: Document) -> Trace:
    """The trace with each replayed execution labelled with its notebook cell's id.

    The client does not send cell ids with its execute requests, but it runs the cells
    in `order`, each storing history (only they do), so execution count k ran `order[k-1]`;
    an execution whose code is not that cell's keeps no id.
    """
    def labelled(cell: Any) -> Any:
        k = cell.execution_count
        if cell.cell_id is not None or not 1 <= k <= len(order):
            return cell
        nb_cell = doc.nb.cells[order[k - 1]]
        return replace(cell, cell_id=nb_cell.get("id")) if nb_cell.source == cell.source else cell

    return replace(trace, cells=tuple(labelled(c) for c in trace.cells))


def _first_line(text: str | None) -> str:
    text = _ANSI.sub("", text or "").strip()
    return text.splitlines()[0][:500] if text else ""
