"""Count what a pushed predicate does on the live data: rows of the source before and after it,
and whether Spark hands it to the source's file scan (`scan_filters`).

Counting runs in its own Spark job group on a worker thread, so a count that
takes too long can be cancelled; the numbers are then estimated on a sample of
the source and flagged `estimated`.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from typing import Any, Callable, Mapping

from magicpush_lab.capture.connect_probe import CONNECT_PROBE_SECONDS, reachable, refused_request_message
from magicpush_lab.ir import expr as X
from magicpush_lab.ir.expr import Expr, has_python_udf
from magicpush_lab.rewrite.pyspark_column import to_column

DEFAULT_TIME_LIMIT = 60.0
DEFAULT_SAMPLE_FRACTION = 0.01


class MeasureTimeout(TimeoutError):
    """Neither the exact count nor the sample finished in time."""


def is_connect(df: Any) -> bool:
    """A DataFrame of a Spark Connect session (no JVM in this process: no SparkContext, no _jdf)."""
    return type(df).__module__.startswith("pyspark.sql.connect")


class _JobGroup:
    """A classic session's jobs, cancelled by their job group."""

    def __init__(self, df: Any, group: str) -> None:
        self.sc, self.group = df.sparkSession.sparkContext, group

    def enter(self) -> None:
        # Job groups are per thread: set it in the thread that submits the jobs.
        self.sc.setJobGroup(self.group, "magicpush measurement", interruptOnCancel=True)

    def leave(self) -> None:
        pass

    def cancel(self) -> None:
        self.sc.cancelJobGroup(self.group)


class _OperationTag:
    """A Connect session's operations, tagged from the thread that starts them and interrupted
    by their tag on the server."""

    def __init__(self, df: Any, group: str) -> None:
        self.session, self.group = df.sparkSession, group

    def enter(self) -> None:
        self.session.addTag(self.group)

    def leave(self) -> None:
        self.session.removeTag(self.group)

    def cancel(self) -> None:
        self.session.interruptTag(self.group)


# gRPC status codes of a server that is not there any more, or of a session it no longer has
_UNREACHABLE = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN")
_SESSION_GONE = ("INVALID_HANDLE.SESSION_NOT_FOUND", "INVALID_HANDLE.SESSION_CLOSED", "SESSION_CHANGED")


def connect_fault(err: BaseException) -> str | None:
    """A clear message when `err` is a Spark Connect connection fault (server unreachable,
    connection dropped, session expired or closed), else None.

    >>> connect_fault(ValueError("x")) is None
    True
    >>> connect_fault(RuntimeError('<_InactiveRpcError of RPC that terminated with:\\n\\tstatus = '
    ...                            'StatusCode.UNAUTHENTICATED\\n\\tdetails = "Invalid authentication token"'))[:100]
    "the Spark Connect server refused the session's token (UNAUTHENTICATED: Invalid authentication token)"
    """
    text = f"{type(err).__name__}: {err}"
    if isinstance(err, ConnectionError) and "Spark Connect server" in str(err):
        return f"{err}: nothing was counted"
    if "UNAUTHENTICATED" in text:  # said in the gRPC status, lost from a first line
        details = re.search(r'details = "([^"]*)"', text)
        return f"{refused_request_message(details.group(1) if details else '')}: nothing was counted"
    if any(code in text for code in _SESSION_GONE):
        return "the Spark Connect session has expired or was closed on the server: start a new session"
    grpc_like = "grpc" in type(err).__module__.lower() or "SparkConnect" in type(err).__name__ \
        or "RpcError" in text or "StatusCode." in text
    if grpc_like and any(code in text for code in _UNREACHABLE):
        line = next((ln.strip() for ln in str(err).splitlines() if ln.strip()), "")
        return f"the Spark Connect server cannot be reached ({line[:200]}): nothing was counted"
    return None


def missing_function(err: BaseException) -> str | None:
    """The name of the function a Spark session said it does not have, else None.

    >>> missing_function(RuntimeError("[UNRESOLVED_ROUTINE] Cannot resolve routine `f1` on search path [x]."))
    'f1'
    >>> missing_function(ValueError("x")) is None
    True
    """
    match = re.search(r"UNRESOLVED_ROUTINE\][^`]*`([^`]+)`", str(err))
    return match.group(1) if match else None


def ensure_reachable(df: Any, timeout: float = CONNECT_PROBE_SECONDS) -> None:
    """Fail fast, with a clear ConnectionError, when `df`'s Spark Connect server does not answer:
    the client would otherwise retry a dead server for minutes. Nothing to check for a classic
    session."""
    if not is_connect(df):
        return
    reachable(df.sparkSession.client, timeout)


def _quietly(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except Exception:  # the session is gone: its work is too
        pass


#: Seconds a stopped measurement's caller waits for its thread before leaving it to the reaper.
STOP_WAIT_SECONDS = 1.0
#: The reaper's first pause between cancels, its longest (it doubles), and how long it goes on.
REAP_FIRST_PAUSE_SECONDS = 0.5
REAP_LONGEST_PAUSE_SECONDS = 4.0
REAP_FOR_SECONDS = 600.0


def _stop(done: threading.Event, jobs: Any, stop: threading.Event, name: str) -> None:
    """Cancel `jobs` now, and go on cancelling them in the background until `done` (the thread
    that runs them has ended): the caller (the kernel) is free again within about a second."""
    stop.set()
    _cancel_soon(jobs)
    if not done.wait(STOP_WAIT_SECONDS):
        threading.Thread(target=_reap, args=(done, jobs), name=f"{name}-reaper", daemon=True).start()


def _cancel_soon(jobs: Any) -> None:
    # in a thread of its own: a Connect client retries a server that went away
    threading.Thread(target=_quietly, args=(jobs.cancel,), daemon=True).start()


def _reap(done: threading.Event, jobs: Any) -> None:
    """Cancel `jobs` until `done`. A cancel reaches only the jobs already submitted, and a busy
    machine may take many seconds between the interrupt and the job's submission (planning, a
    cold JVM): a single cancel, or a few in a row, let such a job run on for hours."""
    deadline = time.monotonic() + REAP_FOR_SECONDS
    pause = REAP_FIRST_PAUSE_SECONDS
    while time.monotonic() < deadline and not done.wait(pause):
        _quietly(jobs.cancel)  # one at a time: this thread is the caller's stand-in
        pause = min(2 * pause, REAP_LONGEST_PAUSE_SECONDS)  # each cancel of no job logs a warning


# -- Spark's logs of the measurement's own jobs

#: The loggers that report the measurement's own jobs as failures when it cancels them (its time
#: limit, the kernel's interrupt) or when they fail: "Data source write support NoopBatchWrite is
#: aborting" and "Aborting commit" of a cancelled noop write, "Lost task ... TaskKilled", a killed
#: task's stack trace, "Failed to cancel job group" of the reaper's cancels that find no job. They
#: write to the JVM's stderr, which is the CLI's stderr and, in a notebook, the output of the
#: cell that ran %magicpush; none of it is the user's concern.
QUIET_LOGGERS = (
    "org.apache.spark.sql.execution.datasources.v2",  # NoopBatchWrite aborting, Aborting commit
    "org.apache.spark.scheduler.TaskSetManager",  # Lost task ... TaskKilled
    "org.apache.spark.scheduler.DAGScheduler",  # Failed to cancel job group
    "org.apache.spark.executor.Executor",  # Exception in task (a killed task's stack trace)
    "org.apache.spark.util.Utils",  # Aborting task (a write's stack trace)
    "org.apache.spark.TaskContextImpl",  # Error in TaskCompletionListener of a killed task
    "org.apache.spark.api.python",  # a Python worker stopped with its killed task
    "org.apache.spark.sql.execution.python",
    "org.apache.spark.storage.ShuffleBlockFetcherIterator",  # a killed task's shuffle read, cut short
)
#: How long the logs stay quiet, at most, after the measurement's thread has ended, while its
#: cancelled tasks report back; and how often that is looked at.
DRAIN_SECONDS = 60.0
DRAIN_POLL_SECONDS = 0.25


class QuietLogs:
    """QUIET_LOGGERS set to OFF while any measurement holds them, and set back to exactly what
    they were (a level of their own, or none: the level of the logger above them) when the last
    one lets go. Held and released by count, as measurements overlap: a stopped one's tasks can
    still be ending while the next one runs.

    A stopped measurement frees the kernel before its jobs have ended: a cell the user runs
    meanwhile finds these loggers quiet too, for the seconds its cancelled tasks take to end (at
    most DRAIN_SECONDS once the measurement's thread has; a task that does not heed its kill, a
    loop in the JVM alone, can log when it ends later).

    Only a classic session's JVM runs in this process and can be told. A Spark Connect session's
    jobs run in the server's JVM: their logs go to the server's own output, never this
    process's, and the client cannot set the server's log levels, so nothing is done there.
    """

    def __init__(self, loggers: tuple[str, ...] = QUIET_LOGGERS) -> None:
        self.loggers = loggers
        self._lock = threading.Condition()
        self._holders = 0
        self._saved: dict[str, str | None] = {}
        self._jvm: Any = None

    def hold(self, df: Any) -> Callable[[], None]:
        """Quiet the loggers for `df`'s session; the function returned lets go (once)."""
        if is_connect(df):
            return lambda: None
        with self._lock:
            if self._holders == 0:
                try:
                    jvm = df.sparkSession.sparkContext._jvm
                    self._saved = _silence(jvm, self.loggers)
                    self._jvm = jvm
                except Exception:  # another logging back end than log4j 2: its logs stay as they are
                    return lambda: None
            self._holders += 1
        released = threading.Event()

        def release() -> None:
            if released.is_set():
                return
            released.set()
            with self._lock:
                self._holders -= 1
                if self._holders == 0:
                    _quietly(lambda: _restore(self._jvm, self._saved))
                    self._jvm, self._saved = None, {}
                    self._lock.notify_all()

        return release

    def wait_restored(self, timeout: float) -> bool:
        """Whether no measurement holds the loggers, waiting up to `timeout` seconds for it."""
        with self._lock:
            return self._lock.wait_for(lambda: self._holders == 0, timeout)


def _silence(jvm: Any, names: tuple[str, ...]) -> dict[str, str | None]:
    """Set each logger to OFF; returns the level each had of its own (None: it had none)."""
    context = jvm.org.apache.logging.log4j.LogManager.getContext(False)
    config = context.getConfiguration()
    own = config.getLoggers()
    off = jvm.org.apache.logging.log4j.Level.OFF
    saved: dict[str, str | None] = {}
    for name in names:
        found = own.get(name)
        saved[name] = None if found is None else str(found.getLevel().name())
    try:
        for name in names:
            if saved[name] is None:
                config.addLogger(name, jvm.org.apache.logging.log4j.core.config.LoggerConfig(name, off, True))
            else:
                own.get(name).setLevel(off)
        context.updateLoggers()
    except Exception:  # never leave a logger quiet that will not be set back
        _restore(jvm, saved)
        raise
    return saved


def _restore(jvm: Any, saved: dict[str, str | None]) -> None:
    """Each logger back to the level `_silence` found; one that had none of its own is removed."""
    context = jvm.org.apache.logging.log4j.LogManager.getContext(False)
    config = context.getConfiguration()
    own = config.getLoggers()
    for name, level in saved.items():
        if level is None:
            config.removeLogger(name)
        elif own.get(name) is not None:
            own.get(name).setLevel(jvm.org.apache.logging.log4j.Level.toLevel(level))
    context.updateLoggers()


QUIET_LOGS = QuietLogs()


def _release_when_over(df: Any, group: str, done: threading.Event, release: Callable[[], None]) -> None:
    """Let go of the quiet logs once the measurement's thread has ended and the tasks of its
    jobs have reported back (a killed task says so after its job has ended), in a thread."""
    if is_connect(df):
        release()
        return

    def wait() -> None:
        try:
            ends = time.monotonic() + REAP_FOR_SECONDS + DRAIN_SECONDS
            done.wait(max(ends - time.monotonic(), 0.0))
            tracker = df.sparkSession.sparkContext.statusTracker()
            drain_ends = time.monotonic() + DRAIN_SECONDS
            # twice in a row: Spark's status lags its scheduler, and a job it has not heard of
            # yet would look finished
            calm = 0
            while calm < 2 and time.monotonic() < drain_ends:
                time.sleep(DRAIN_POLL_SECONDS)
                calm = calm + 1 if _tasks_over(tracker, group) else 0
        except Exception:  # the session stopped: nothing is left to log
            pass
        finally:
            release()

    threading.Thread(target=wait, name=f"{group}-logs", daemon=True).start()


def _tasks_over(tracker: Any, group: str) -> bool:
    """Whether every job of `group` has ended and no task of theirs still runs, as Spark's status
    says (it hears of a task's end after the scheduler has logged it)."""
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        if info is None:
            continue
        if info.status == "RUNNING":
            return False
        for stage in info.stageIds:
            stage_info = tracker.getStageInfo(stage)
            if stage_info is not None and stage_info.numActiveTasks > 0:
                return False
    return True


def run_limited(df: Any, work: Callable[[], tuple[int, int]], limit: float | None) -> tuple[int, int] | None:
    """Run `work` (Spark jobs) in a job group (a classic session) or under an operation tag (a
    Spark Connect session); None if it did not finish within `limit` seconds. An interrupt of
    the kernel (KeyboardInterrupt) cancels the jobs, then goes on up."""
    ensure_reachable(df)
    group = f"magicpush-measure-{uuid.uuid4().hex}"
    jobs = _OperationTag(df, group) if is_connect(df) else _JobGroup(df, group)
    stop = threading.Event()

    def tagged() -> tuple[int, int] | None:
        jobs.enter()
        try:
            return None if stop.is_set() else work()
        finally:
            jobs.leave()

    thread, done, out = _threaded(tagged, group)
    quiet = QUIET_LOGS.hold(df)
    try:
        # start() waits for the thread to run: an interrupt there, on a busy machine, would leave
        # the thread to submit its jobs with nobody left to cancel them
        thread.start()
        # An Event, not thread.join(): a join interrupted by KeyboardInterrupt marks the thread
        # as ended though it runs on (CPython 3.11's bpo-45274 handling), so is_alive() lies
        finished = _wait_watched(df, done, limit)
    except KeyboardInterrupt:
        # the kernel was interrupted (the sidebar's Cancel): the jobs must stop with it, not run
        # on in the thread while the kernel looks idle
        _stop(done, jobs, stop, group)
        _release_when_over(df, group, done, quiet)
        raise
    except ConnectionError:
        # the server went away under the count: a measure error now, not a count that looks slow
        # past its time limit; nothing is left on the server to cancel, and the client's thread
        # ends when the client gives up
        stop.set()
        _release_when_over(df, group, done, quiet)
        raise
    if not finished:
        _stop(done, jobs, stop, group)
        _release_when_over(df, group, done, quiet)
        return None
    if "error" in out:  # a failed job's other tasks are being killed, and say so
        _release_when_over(df, group, done, quiet)
    else:
        quiet()
    return _outcome(out)


def _wait_watched(df: Any, done: threading.Event, limit: float | None) -> bool:
    """done.wait(limit); for a Spark Connect session, the server is looked at every
    CONNECT_WATCH_SECONDS meanwhile, and a ConnectionError raised once it no longer answers
    (the client would retry it until the limit and beyond)."""
    if not is_connect(df):
        return done.wait(limit)
    deadline = None if limit is None else time.monotonic() + limit
    while True:
        left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        if done.wait(CONNECT_WATCH_SECONDS if left is None else min(CONNECT_WATCH_SECONDS, left)):
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        ensure_reachable(df)


def _threaded(fn: Callable[[], Any], name: str) -> tuple[threading.Thread, threading.Event, dict[str, Any]]:
    """A daemon thread (not started) that runs fn(), the Event set when it has ended, and the
    dict it leaves fn's "value" or "error" in (read by `_outcome`)."""
    out: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            out["value"] = fn()
        except BaseException as err:  # handed to the caller by _outcome
            out["error"] = err
        finally:
            done.set()

    return threading.Thread(target=target, name=name, daemon=True), done, out


def _outcome(out: dict[str, Any]) -> Any:
    if "error" in out:
        raise out["error"]
    return out["value"]


def measure(frames: Mapping[int, Any], source_event: int, predicate: Expr, *,
            time_limit: float | None = DEFAULT_TIME_LIMIT, sample_fraction: float = DEFAULT_SAMPLE_FRACTION,
            sample_time_limit: float | None = None) -> tuple[int, int, bool]:
    """(rows_before, rows_after, estimated) of filtering the source DataFrame of `source_event`.

    time_limit: seconds for the exact counts (None: no limit); past it, both counts
    are taken on `df.sample(sample_fraction)` and scaled up. sample_time_limit
    bounds that sample (default: time_limit); MeasureTimeout if it is exceeded too.
    Raises KeyError if the tracer no longer holds the DataFrame and ValueError for a
    predicate that calls a Python UDF (those are never run for measuring).
    """
    if has_python_udf(predicate):
        raise ValueError("the predicate calls a Python UDF; it is not measured")
    if source_event not in frames:
        raise KeyError(f"no live DataFrame for event {source_event}")
    df = frames[source_event]
    cond = to_column(predicate)

    def exact() -> tuple[int, int]:
        return df.count(), df.filter(cond).count()

    result = run_limited(df, exact, time_limit)
    if result is not None:
        return result[0], result[1], False
    if not 0 < sample_fraction <= 1:
        raise ValueError("sample_fraction must be in (0, 1]")
    sample = df.sample(fraction=sample_fraction, seed=17)

    def sampled() -> tuple[int, int]:
        # One pass over the sample: a NULL predicate counts as false, like filter().
        from pyspark.sql import functions as F

        row = sample.agg(F.count(F.lit(1)).alias("n"),
                         F.sum(F.when(cond, 1).otherwise(0)).alias("k")).collect()[0]
        return int(row["n"] or 0), int(row["k"] or 0)

    limit = time_limit if sample_time_limit is None else sample_time_limit
    result = run_limited(df, sampled, limit)
    if result is None:
        raise MeasureTimeout(f"counting took longer than {time_limit}s and the sample longer than {limit}s")
    return round(result[0] / sample_fraction), round(result[1] / sample_fraction), True


# -- does the predicate reach the scan?

_NOT_A_FILE_SCAN = "the source is not a file scan (in-memory data, range): there are no scan filters"


RANK_SAMPLE_ROWS = 10_000


def rows_kept_on_sample(frames: Mapping[int, Any], source_event: int, predicates: list[Expr], *,
                        sample_rows: int = RANK_SAMPLE_ROWS,
                        time_limit: float | None = DEFAULT_TIME_LIMIT) -> tuple[list[int], int]:
    """How many of the source's first `sample_rows` rows each predicate keeps, and how many
    rows the sample has: one Spark job, a count per predicate. Used to rank proved
    alternatives, all correct, by the rows they keep on this data.

    Raises MeasureTimeout past `time_limit`, KeyError without the source DataFrame.
    """
    from pyspark.sql import functions as F

    if source_event not in frames:
        raise KeyError(f"no live DataFrame for event {source_event}")
    df = frames[source_event]
    sample = df.limit(sample_rows)
    counts = [F.sum(F.when(to_column(p), 1).otherwise(0)).alias(f"kept_{i}") for i, p in enumerate(predicates)]

    def work() -> tuple[list[int], int]:
        row = sample.agg(F.count(F.lit(1)).alias("rows"), *counts).collect()[0]
        return [int(row[f"kept_{i}"] or 0) for i in range(len(predicates))], int(row["rows"])

    result = run_limited(df, work, time_limit)  # type: ignore[arg-type]
    if result is None:
        raise MeasureTimeout(f"ranking on a sample took over {time_limit} s")
    return result


def scan_filters(frames: Mapping[int, Any], source_event: int, predicate: Expr) -> dict[str, Any]:
    """Which conjuncts of `predicate` Spark hands to the source's file scan, from the physical
    plans of the source filtered by each conjunct (no job runs, so a Python UDF costs nothing).

    {"scan": "Parquet" | None, "pushed": [...], "partition_filters": [...],
     "conjuncts": [{"predicate", "reaches_scan"}], "all_pushed": bool, "note": str}

    A conjunct reaches the scan when filtering by it adds a filter to the scan's
    PushedFilters or PartitionFilters beyond the `IsNotNull` Spark infers from any
    null-intolerant expression (unless the conjunct is itself an IS NOT NULL). A Python
    UDF never does: Spark evaluates it after reading. KeyError if the tracer no longer
    holds the DataFrame.
    """
    if source_event not in frames:
        raise KeyError(f"no live DataFrame for event {source_event}")
    df = frames[source_event]
    ensure_reachable(df)
    base = _scans(df)
    formats = sorted({fmt for fmt, _, _ in base if fmt})
    pushed: list[str] = []
    partition: list[str] = []
    conjuncts = []
    for c in X.conjuncts(predicate):
        reaches = False
        if base and not has_python_udf(c):
            after = _scans(df.filter(to_column(c)))
            new_pushed = _added([f for _, p, _ in base for f in p], [f for _, p, _ in after for f in p])
            new_partition = _added([f for _, _, q in base for f in q], [f for _, _, q in after for f in q])
            reaches = reaches_scan(c, new_pushed, new_partition)
            if reaches:
                pushed += [f for f in new_pushed if f not in pushed]
                partition += [f for f in new_partition if f not in partition]
        conjuncts.append({"predicate": str(c), "reaches_scan": reaches})
    out: dict[str, Any] = {
        "scan": "/".join(formats) or ("file" if base else None),
        "pushed": pushed, "partition_filters": partition, "conjuncts": conjuncts,
        "all_pushed": bool(conjuncts) and all(c["reaches_scan"] for c in conjuncts),
    }
    if not base:
        out["note"] = _NOT_A_FILE_SCAN
    return out


def reaches_scan(conjunct: Expr, new_pushed: list[str], new_partition: list[str]) -> bool:
    """Whether the filters a conjunct added to the scan are the conjunct itself, not only the
    `IsNotNull` Spark infers from it.

    >>> from magicpush_lab.ir.expr import Cmp, Col, Func, IsNotNull, Lit
    >>> a = Col("amount", 1, "int")
    >>> reaches_scan(Cmp(">", a, Lit(100, "int")), ["IsNotNull(amount)", "GreaterThan(amount,100)"], [])
    True
    >>> reaches_scan(Cmp("=", Func("upper", (a,), "string"), Lit("X", "string")), ["IsNotNull(amount)"], [])
    False
    >>> reaches_scan(IsNotNull(a), ["IsNotNull(amount)"], [])
    True
    """
    if new_partition:
        return True
    if isinstance(conjunct, X.IsNotNull):
        return bool(new_pushed)
    return any(not f.startswith("IsNotNull(") for f in new_pushed)


def _added(before: list[str], after: list[str]) -> list[str]:
    """The items of `after` that `before` does not have (as bags)."""
    left = list(before)
    out = []
    for item in after:
        if item in left:
            left.remove(item)
        else:
            out.append(item)
    return out


#: Seconds between looks at the Spark Connect server while a call to it has not come back.
CONNECT_WATCH_SECONDS = 2.0
#: The longest a Spark Connect call outside the counts (reading a plan) may take.
CONNECT_CALL_SECONDS = 60.0


def watched_call(df: Any, fn: Callable[[], Any], seconds: float = CONNECT_CALL_SECONDS) -> Any:
    """fn(), a call to `df`'s Spark Connect server, given up with a ConnectionError as soon as the
    server stops answering and with a MeasureTimeout after `seconds`: the client retries a server
    that went away for minutes, and the kernel would wait with it. The call goes on in its own
    thread until the client gives up; nothing waits for it. A classic session's call runs here.

    >>> watched_call(object(), lambda: 42)
    42
    """
    if not is_connect(df):
        return fn()
    thread, done, out = _threaded(fn, "magicpush-connect-call")
    thread.start()
    deadline = time.monotonic() + seconds
    while not done.wait(min(CONNECT_WATCH_SECONDS, max(deadline - time.monotonic(), 0.0))):
        if time.monotonic() >= deadline:
            raise MeasureTimeout(f"the Spark Connect server did not answer within {seconds:g} s")
        ensure_reachable(df)
    return _outcome(out)


def _scans(df: Any) -> list[tuple[str, list[str], list[str]]]:
    """(format, pushed filters, partition filters) of each file scan in the physical plan."""
    if is_connect(df):
        return connect_scans(watched_call(df, lambda: df._explain_string(extended=False)))
    out = []
    stack = [df._jdf.queryExecution().sparkPlan()]
    while stack:
        node = stack.pop()
        found = _scan_of(node)
        if found is not None:
            out.append(found)
        children = node.children()
        stack.extend(children.apply(i) for i in range(children.size()))
    return out


def connect_scans(text: str) -> list[tuple[str, list[str], list[str]]]:
    """The file scans of a physical plan as a Connect session explains it (no JVM here to walk):
    one per `FileScan <format>` or `BatchScan` line.

    >>> connect_scans("+- FileScan parquet [a#1] Batched: true, DataFilters: [(a#1 > 5)], "
    ...               "Format: Parquet, PartitionFilters: [], PushedFilters: [IsNotNull(a), GreaterThan(a,5)]")
    [('Parquet', ['IsNotNull(a)', 'GreaterThan(a,5)'], [])]
    """
    out = []
    for line in text.splitlines():
        found = re.search(r"\b(FileScan|BatchScan) (\w+)", line)
        if found is None:
            continue
        fmt = re.search(r"Format: (\w+)", line)
        name = fmt.group(1) if fmt else found.group(2)
        out.append((name.capitalize() if name.islower() else name, filter_list(_listed(line, "PushedFilters")),
                    filter_list(_listed(line, "PartitionFilters"))))
    return out


def _scan_of(node: Any) -> tuple[str, list[str], list[str]] | None:
    name = node.getClass().getSimpleName()
    if name == "FileSourceScanExec":
        meta = node.metadata()

        def value(key: str) -> str:
            opt = meta.get(key)
            return opt.get() if opt.isDefined() else ""

        return value("Format"), filter_list(value("PushedFilters")), filter_list(value("PartitionFilters"))
    if name == "BatchScanExec":  # a DataSource V2 scan describes its filters in one line
        text = node.scan().description()
        fmt = re.search(r"Format: (\w+)", text)
        return ((fmt.group(1).capitalize() if fmt else _type_name(node.scan())),
                filter_list(_listed(text, "PushedFilters")), filter_list(_listed(text, "PartitionFilters")))
    return None


def _type_name(obj: Any) -> str:
    return obj.getClass().getSimpleName()


def _listed(text: str, key: str) -> str:
    start = text.find(f"{key}: [")
    if start < 0:
        return ""
    return _bracketed(text[start + len(key) + 2:])


def _bracketed(text: str) -> str:
    """The bracketed list at the start of `text`, brackets included."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if depth == 0:
            return text[:i + 1]
    return text


def filter_list(text: str) -> list[str]:
    """The items of a plan's `[f1, f2(a,b), ...]` list, expression ids dropped.

    >>> filter_list("[IsNotNull(amount), In(k, [1,2]), GreaterThan(amount,100)]")
    ['IsNotNull(amount)', 'In(k, [1,2])', 'GreaterThan(amount,100)']
    >>> filter_list("[isnotnull(part#5), (part#5 = 1)]"), filter_list("")
    (['isnotnull(part)', '(part = 1)'], [])
    """
    text = re.sub(r"#\d+L?", "", text.strip())
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    items, depth, current = [], 0, ""
    for ch in text:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current.strip())
    return items
