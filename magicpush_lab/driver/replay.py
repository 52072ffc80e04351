"""Run a saved notebook in a fresh kernel with tracing on, and keep the kernel for measuring.

Notebooks are `.ipynb` files or percent-format scripts (`# %%` cell markers), read by
notebook.py.

    with Replay("pipeline.ipynb", timeout=600) as r:
        r.trace            # the Trace of the whole run
        r.notebook_cells   # every cell's source in notebook order, markdown included
        r.order, r.notes   # the code cells in the order they ran, and why that order
        r.measure([{"source_event": 3, "predicate_ir": {...}}])
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from magicpush_lab.capture.connect_probe import ConnectTarget, parse_target, server_gone_message, watch
from magicpush_lab.capture.trace import Trace
from magicpush_lab.cellref import cell_ref
from magicpush_lab.driver.kernels import (STARTUP_TIMEOUT, ChannelClosed, KernelGone, NoReply, execute, is_alive,
                                          maybe_await, open_client, own_kernel, reply_to, shut_down_own, start_own)
from magicpush_lab.errortext import error_line, redacted
from magicpush_lab.driver.notebook import (ANSI_CODES, Document, execution_order, first_line, read_document,
                                           recorded_counts)

_FRAME = re.compile(r"^\s*(Cell In\[\d*\]|File [^,]+|Input In \[\d+\]|<[^>]+>), line \d+")


# Spark's console progress bar draws "[Stage 3:>  (0 + 2) / 2]" on the JVM's stderr without a line
# end, and a replay kernel's stderr is the CLI's: the CLI's progress lines ran into it. A replay
# kernel is this tool's own, so its Spark goes without the bar; set before the notebook's cells
# start Spark, through spark-submit's arguments (which PySpark reads when it launches the JVM),
# ahead of any the environment gives, so that the notebook's own settings (later arguments, its
# builder's config) still win. Nothing is bound in the notebook's namespace.
_NO_CONSOLE_PROGRESS = ('__import__("os").environ["PYSPARK_SUBMIT_ARGS"] = "--conf spark.ui.showConsoleProgress=false " '
                        '+ __import__("os").environ.get("PYSPARK_SUBMIT_ARGS", "pyspark-shell")')


class ServerGone(Exception):
    """The Spark Connect server of the replay stopped answering while a cell waited on it."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer for {seconds:.0f} s")
        self.seconds = seconds


def _target(url: str | None) -> ConnectTarget | None:
    """The Connect server at `url` when it is one (a `local[2]` remote starts its own), else None."""
    try:
        return parse_target(url) if url and url.startswith("sc://") else None
    except ValueError:
        return None


def remote_from_environment() -> str | None:
    """The Spark Connect URL a replay kernel's sessions will use, as the kernel inherits it:
    `magicpush optimize --remote`'s (MAGICPUSH_REMOTE), else SPARK_REMOTE's."""
    return os.environ.get("MAGICPUSH_REMOTE") or os.environ.get("SPARK_REMOTE") or None


class ReplayError(RuntimeError):
    """A cell failed (or the kernel died) while replaying a notebook."""

    def __init__(self, cell_index: int, ename: str, evalue: str, where: str | None = None,
                 path: str | None = None, cell: str | None = None) -> None:
        self.cell_index = cell_index  # notebook position, markdown counted; -1 for set-up
        self.ename = ename
        self.evalue = evalue
        self.where = where
        self.path = path
        # how the user finds the cell (cellref.cell_ref): "cell [3]", as its prompt shows
        self.cell = cell or ("setup" if cell_index < 0 else cell_ref(cell_index, None))
        cell = self.cell
        at = f" at {where}" if where else ""
        prefix = f"{path}: " if path else ""
        super().__init__(f"{prefix}{cell} failed{at}: {ename}: {evalue}{_hint(ename, evalue)}")


def _hint(ename: str, evalue: str) -> str:
    """What a user can do about a failure whose own message does not say it.

    >>> _hint("PySparkRuntimeError", "[JAVA_GATEWAY_EXITED] Java gateway process exited before sending its port number.")
    ' (Spark could not start its JVM: it needs Java 17 or newer on PATH, or JAVA_HOME set)'
    >>> _hint("ValueError", "bad value")
    ''
    """
    if "JAVA_GATEWAY_EXITED" in f"{ename} {evalue}":
        return " (Spark could not start its JVM: it needs Java 17 or newer on PATH, or JAVA_HOME set)"
    return ""


def _last_frame(traceback: Sequence[str] | str | None) -> str | None:
    """Where a cell failed: the innermost frame in the notebook's own code, else the innermost
    frame by its file's name alone (a library's directory says nothing about the notebook).

    >>> _last_frame(["Cell In[2], line 3", "File /usr/lib/python3/site-packages/pandas/frame.py:12, in f",
    ...              "File /usr/lib/python3/site-packages/pandas/frame.py, line 12"])
    'Cell In[2], line 3'
    >>> _last_frame("File /srv/lib/helpers.py, line 9")
    'File helpers.py, line 9'
    """
    if not traceback:
        return None
    text = traceback if isinstance(traceback, str) else "\n".join(traceback)
    frames = [m.group(0).strip() for m in (_FRAME.match(line) for line in ANSI_CODES.sub("", text).splitlines()) if m]
    if not frames:
        return None
    own = [f for f in frames if not f.startswith("File ")]
    if own:
        return own[-1]
    where, _, line = frames[-1].rpartition(", line ")
    return f"File {os.path.basename(where[len('File '):])}, line {line}"


class KernelReplay:
    """Replay a notebook in a kernel someone else starts and stops, asynchronously: the CLI's
    `Replay` drives it with a kernel of its own, the Jupyter server with a kernel of its kernel
    manager (so the replay's kernel is listed, culled and shut down like any other).

    Talks to the kernel on its shell channel only: the outputs of the cells are never read, so a
    cell printing a lot costs the replaying process nothing. Every wait is bounded by the cell's
    `timeout` and by the `deadline` (seconds) of the whole replay, and checks that the kernel
    is alive; cancelling the task running it stops it at once. With a `remote` Spark Connect
    URL, a cell's wait also checks that the server still takes connections: once it has not
    for a few seconds, the cell is interrupted and the replay fails with ConnectServerGone,
    instead of the cell waiting out its time limit on a client that retries.
    """

    def __init__(self, document: Document, *, timeout: float | None = 600, deadline: float | None = None,
                 progress: Callable[[str], None] | None = None, remote: str | None = None) -> None:
        self.document = document
        # the Spark Connect server the notebook's sessions use, watched while each cell runs
        self.remote = _target(remote)
        self._watch = watch(self.remote) if self.remote is not None else None
        self.path = document.path
        self.timeout = timeout
        self.deadline = deadline
        self.progress = progress or (lambda msg: None)
        self.order, self.notes = execution_order(document.nb.cells)
        # the counts the saved notebook's prompts show, when the replay follows them: the
        # replayed executions are renumbered to them, so that every message names the cell the
        # user sees as "[3]"
        self.counts = recorded_counts(document.nb.cells, self.order)
        if not self.counts and any(document.nb.cells[i].get("execution_count") is not None for i in self.order):
            # the saved prompts show other counts than the messages will: say which these are
            self.notes.append("cells are named by the count this replay gave them ([1] the first cell run), "
                              "as running all cells in a fresh kernel would number them")
        self._ran: list[int] = []  # notebook indices of the cells executed, in order
        self.trace: Trace = Trace()
        self._ends = time.monotonic() + deadline if deadline is not None else None
        self._kernel: Any = None
        self._client: Any = None

    def seconds_left(self) -> float | None:
        """Seconds until the replay's deadline (None: no deadline)."""
        return None if self._ends is None else max(0.0, self._ends - time.monotonic())

    async def run(self, kernel: Any) -> None:
        """Replay the notebook in `kernel` (a started kernel manager) and read its trace; raises
        ReplayError for a failing cell, a timeout, the deadline or a kernel that died."""
        for note in self.notes:
            self.progress(f"{self.path.name}: {note}")
        self._kernel = kernel
        self._client = open_client(kernel)
        await self._ready()
        await self._look_at_server()  # as it is before the cells: only a server seen up can go away
        reply = await self._execute(f"{_NO_CONSOLE_PROGRESS}\n%load_ext magicpush_lab", -1, store_history=False)
        if reply.get("status") != "ok":
            ename = reply.get("ename", "Error")
            raise ReplayError(-1, ename, error_line(ename, reply.get("evalue", "cannot load magicpush_lab")),
                              path=str(self.path))
        await self._run_cells()
        trace = Trace.from_json(await self.expression(_trace_expression(), _trace_mime()))
        self.trace = renumbered(with_cell_ids(trace, self.order, self.document), self._renumbering())

    def cell_name(self, index: int) -> str:
        """How messages name notebook cell `index`: "cell [3]" as its saved prompt shows when the
        replay follows the saved counts, else as the replay counted it (the trace's notes say
        the same), else by its place ("the notebook's 4th cell")."""
        if index < 0:
            return "setup"
        count = self.counts.get(index)
        if count is None and not self.counts and index in self._ran:
            count = self._ran.index(index) + 1
        return cell_ref(index, count, "script" if self.document.percent is not None else "notebook")

    def _renumbering(self) -> dict[int, int]:
        """The replay kernel's execution count k (the k-th cell it ran) -> the saved count."""
        return {k: self.counts[i] for k, i in enumerate(self._ran, 1) if i in self.counts}

    def _where(self, where: str | None) -> str | None:
        """A traceback frame in the user's terms: "Cell In[2], line 3" names the replay kernel's
        2nd execution, which is the cell the user knows as cell [5], say."""
        found = re.match(r"Cell In\[(\d+)\], (line \d+)", where or "")
        k = int(found.group(1)) if found else 0
        if found and k == len(self._ran):  # the failing cell itself
            return found.group(2)
        if found and 1 <= k < len(self._ran):
            return f"{self.cell_name(self._ran[k - 1])}, {found.group(2)}"
        return where

    async def _ready(self) -> None:
        msg_id = self._client.kernel_info()
        try:
            await self._reply(msg_id, STARTUP_TIMEOUT)
        except NoReply as err:
            raise self._expired(err, -1, STARTUP_TIMEOUT) from None
        except (ChannelClosed, KernelGone):
            raise ReplayError(-1, "DeadKernelError", "the kernel died while starting", path=str(self.path)) from None

    async def _run_cells(self) -> None:
        cells = self.document.nb.cells
        for k, i in enumerate(self.order, 1):
            cell = cells[i]
            tags = cell.get("metadata", {}).get("tags", [])
            if "skip-execution" in tags:
                continue
            self._ran.append(i)
            self.progress(f"{self.path.name}: running {self.cell_name(i)} ({k} of {len(self.order)})")
            reply = await self._execute(cell.source, i, store_history=True)
            if reply.get("status") == "error" and "raises-exception" not in tags:
                ename = reply.get("ename", "Error")
                raise ReplayError(i, ename, error_line(ename, reply.get("evalue")),
                                  self._where(_last_frame(reply.get("traceback"))), str(self.path),
                                  self.cell_name(i))
            if reply.get("status") == "aborted":
                raise ReplayError(i, "Aborted", "the kernel aborted the cell", path=str(self.path),
                                  cell=self.cell_name(i))

    async def _execute(self, code: str, index: int, *, store_history: bool,
                       user_expressions: dict[str, str] | None = None) -> dict[str, Any]:
        msg_id = execute(self._client, code, store_history=store_history, user_expressions=user_expressions)
        try:
            # a cell's wait also watches the Connect server; the tool's own requests (the trace,
            # the counts) find a lost server themselves and say so in their answers
            return await self._reply(msg_id, self.timeout, watched=index >= 0)
        except NoReply as err:
            raise self._expired(err, index, self.timeout) from None
        except (ChannelClosed, KernelGone):
            raise ReplayError(index, "DeadKernelError", "the kernel died", path=str(self.path),
                              cell=self.cell_name(index)) from None
        except ServerGone as gone:
            await self._interrupt()
            assert self.remote is not None
            raise ReplayError(index, "ConnectServerGone", server_gone_message(self.remote, gone.seconds),
                              path=str(self.path), cell=self.cell_name(index)) from None

    async def _look_at_server(self) -> float | None:
        """Seconds the Connect server has not answered, once that is long enough to call it gone
        (connect_probe.watch); None while it answers, or when there is none to watch. The look
        (a connection, at most a second) runs off the event loop."""
        if self._watch is None:
            return None
        import asyncio

        return await asyncio.to_thread(self._watch)

    async def _interrupt(self) -> None:
        """Interrupt the cell that waits on a lost server: the kernel is free again for whoever
        runs it next (the replay's own kernel is shut down anyway)."""
        try:
            await maybe_await(self._kernel.interrupt_kernel())
        except Exception:  # a kernel going away: nothing left to interrupt
            pass

    def _expired(self, err: NoReply, index: int, timeout: float | None) -> ReplayError:
        if err.deadline:
            return ReplayError(index, "DeadlineExceeded", f"the replay ran longer than its deadline of "
                               f"{self.deadline:g} s", path=str(self.path), cell=self.cell_name(index))
        return ReplayError(index, "CellTimeoutError", f"the cell ran longer than {timeout:g}s", path=str(self.path),
                           cell=self.cell_name(index))

    async def _reply(self, msg_id: str, timeout: float | None, watched: bool = False) -> dict[str, Any]:
        """The content of the shell reply to `msg_id` within `timeout` and the replay's deadline
        (driver.kernels.reply_to); the kernel is gone when it is no longer alive. `watched`: a
        Connect server that stops answering meanwhile raises ServerGone."""
        ends = time.monotonic() + timeout if timeout is not None else None

        async def gone() -> bool:
            if watched:
                seconds = await self._look_at_server()
                if seconds is not None:
                    raise ServerGone(seconds)
            return await self._dead()

        return await reply_to(self._client, msg_id, ends=ends, deadline=self._ends, gone=gone)

    async def _dead(self) -> bool:
        return not await is_alive(self._kernel)

    async def expression(self, expr: str, mime: str) -> Any:
        """The `mime` data of a Python expression evaluated silently in the kernel."""
        content = await self._execute("", -1, store_history=False, user_expressions={"r": expr})
        value = content.get("user_expressions", {}).get("r", {})
        if value.get("status") != "ok":
            ename = value.get("ename", "Error")
            raise ReplayError(-1, ename, error_line(ename, value.get("evalue", "no value")), path=str(self.path))
        data = value.get("data", {})
        if mime not in data:
            raise ReplayError(-1, "ValueError", f"the kernel answered without {mime}", path=str(self.path))
        return data[mime]

    async def measure(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Measure predicates on the replayed kernel's DataFrames (see kernel.measure_bundle)."""
        from magicpush_lab.protocol import MEASURE_MIME, measure_expression

        if not requests:
            return []
        return list(await self.expression(measure_expression(requests), MEASURE_MIME))

    def close(self) -> None:
        """Stop talking to the kernel (whoever started it shuts it down)."""
        if self._client is not None:
            try:
                self._client.stop_channels()
            except Exception:  # already closed with its kernel
                pass
        self._client = None


def _trace_expression() -> str:
    from magicpush_lab.protocol import TRACE_EXPRESSION

    return TRACE_EXPRESSION


def _trace_mime() -> str:
    from magicpush_lab.protocol import TRACE_MIME

    return TRACE_MIME


class Replay:
    """Context manager: run the notebook at `path` in a new kernel with tracing, shut it down at exit.

    The kernel is this process's own (the CLI's); the Jupyter server replays with `KernelReplay`
    in a kernel of its kernel manager instead.
    """

    def __init__(self, path: str | os.PathLike[str], timeout: float = 600, *, kernel_name: str = "python3",
                 progress: Callable[[str], None] | None = None, deadline: float | None = None,
                 remote: str | None = None) -> None:
        self.path = Path(path)
        # the kernel inherits this process's environment, and with it the server its sessions use
        self.remote = remote if remote is not None else remote_from_environment()
        self.timeout = timeout
        self.deadline = deadline
        self.kernel_name = kernel_name
        self.progress = progress or (lambda msg: None)
        self.document: Document | None = None
        self.trace: Trace = Trace()
        self.order: list[int] = []  # notebook indices of the code cells, in the order they ran
        self.notes: list[str] = []  # how the order was chosen, when it is worth saying
        self._client: KernelReplay | None = None
        self._km: Any = None

    @property
    def notebook_cells(self) -> list[str]:
        return self.document.sources if self.document is not None else []

    @property
    def notebook_cell_ids(self) -> list[str | None]:
        return self.document.ids if self.document is not None else []

    def __enter__(self) -> "Replay":
        from jupyter_core.utils import run_sync

        self.document = read_document(self.path)
        self._client = KernelReplay(self.document, timeout=self.timeout, deadline=self.deadline,
                                    progress=self.progress, remote=self.remote)
        self.order, self.notes = self._client.order, self._client.notes
        try:
            run_sync(self._run)()
            self.trace = self._client.trace
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def _run(self) -> None:
        assert self._client is not None
        self._km = own_kernel(self.kernel_name)
        try:
            await start_own(self._km, str(self.path.resolve().parent))
        except Exception as err:
            raise RuntimeError(f"cannot start a {self.kernel_name} kernel: {redacted(first_line(str(err)))}") from err
        await self._client.run(self._km)

    @staticmethod
    def _sync(awaitable: Any) -> Any:
        """Wait for `awaitable` on this thread's event loop, the one the kernel's client uses."""
        from jupyter_core.utils import run_sync

        async def wait() -> Any:
            return await awaitable

        return run_sync(wait)()

    def evaluate(self, expr: str) -> str:
        """The repr of a Python expression evaluated in the replayed kernel (text/plain)."""
        assert self._client is not None, "the replay has ended"
        return str(self._sync(self._client.expression(expr, "text/plain")))

    def fetch_trace(self) -> Trace:
        """Ask the kernel for its trace, the way the frontend does."""
        assert self._client is not None, "the replay has ended"
        return Trace.from_json(self._sync(self._client.expression(_trace_expression(), _trace_mime())))

    def measure(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Measure predicates on the replayed kernel's DataFrames (see kernel.measure_bundle)."""
        assert self._client is not None, "the replay has ended"
        return self._sync(self._client.measure(requests))

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._km is not None:
            try:
                self._sync(shut_down_own(self._km))
            except Exception:  # the kernel may already be gone
                pass
        self._client = None
        self._km = None


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


def renumbered(trace: Trace, counts: dict[int, int]) -> Trace:
    """The trace with each execution count k written as `counts[k]` (others kept): the cells,
    and the sites of its events and inspections."""
    if not counts:
        return trace

    def site(s: Any) -> Any:
        return replace(s, execution_count=counts.get(s.execution_count, s.execution_count)) if s is not None else s

    return replace(trace,
                   cells=tuple(replace(c, execution_count=counts.get(c.execution_count, c.execution_count))
                               for c in trace.cells),
                   events=tuple(replace(e, site=site(e.site)) for e in trace.events),
                   inspections=tuple(replace(i, site=site(i.site)) for i in trace.inspections))
