"""Talking to a Jupyter kernel from outside it: the one module that starts kernels for a replay,
sends execute requests, waits for their replies and interrupts a request no longer wanted.

Two kinds of callers drive kernels through here. A replay (replay.py) runs a saved notebook's
cells in a kernel started for it: its own (`own_kernel`, the CLI) or one of the Jupyter server's
kernel manager (`start_managed`, the replay route). The server's client of the notebook's kernel
(server/kernel_measure.py) asks a kernel the user is working in for the trace, row counts and
run times (`ask`).

Every request goes on the shell channel and only its reply is read, never the cells' outputs,
so a cell printing a lot costs the driving process nothing. A wait for a reply is bounded by a
time-out, and by the deadline of the whole run it belongs to, and checks every POLL_SECONDS
whether the kernel is still there: what counts as gone is the caller's to say (`reply_to`).

nbclient is not used: it collects every output of every cell from the iopub channel into the
notebook, has no deadline for a whole run, and has nothing for the server's asks (silent user
expressions to a kernel the user works in, one at a time, interrupted when cancelled).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections import defaultdict
from typing import Any, Awaitable, Callable

#: what a replayed kernel is started with: an in-memory history, so that kernels replaying at
#: the same time never wait on each other's history database
KERNEL_ARGUMENTS = ["--HistoryManager.hist_file=:memory:"]

#: seconds a fresh kernel may take to answer its first request
STARTUP_TIMEOUT = 60.0

#: how often a wait for a reply checks that the kernel is still there
POLL_SECONDS = 1.0

#: A ZMQ subscription takes effect a moment after it is made: a cancellable request waits this
#: long before it is sent, so the kernel's "busy" for it is not published to nobody.
SUBSCRIBE_SECONDS = 0.05


class NoReply(Exception):
    """No reply came within the request's time-out (`deadline` False) or before the deadline of
    the whole run it is part of."""

    def __init__(self, deadline: bool = False) -> None:
        super().__init__("deadline" if deadline else "timeout")
        self.deadline = deadline


class ChannelClosed(Exception):
    """The shell channel failed while a request waited for its reply (not merely nothing came)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(repr(error))
        self.error = error


class KernelGone(Exception):
    """The kernel died (or, for `ask`, was restarted) while a request waited for its reply."""


# -- the kernel's state --------------------------------------------------------------------------
async def maybe_await(value: Any) -> Any:
    """`value`, awaited when it is awaitable: kernel managers answer either way."""
    return await value if inspect.isawaitable(value) else value


async def is_alive(kernel: Any) -> bool:
    """Whether `kernel` (a kernel manager) says its kernel runs; False while it is torn down."""
    try:
        return bool(await maybe_await(kernel.is_alive()))
    except Exception:  # a kernel being torn down
        return False


async def kernel_process(kernel: Any) -> Any:
    """An identity of the kernel's process: None once it is dead; it changes when the
    kernel is restarted (a restarted kernel never answers the request sent to the old one)."""
    try:
        if not await maybe_await(kernel.is_alive()):
            return None
    except Exception:  # a kernel being torn down
        return None
    provisioner = getattr(kernel, "provisioner", None)
    return getattr(provisioner, "pid", None) if provisioner is not None else None


# -- starting and stopping -------------------------------------------------------------------------
def own_kernel(kernel_name: str) -> Any:
    """A kernel manager of this process's own for a `kernel_name` kernel, not started yet."""
    from jupyter_client.manager import AsyncKernelManager

    return AsyncKernelManager(kernel_name=kernel_name)


async def start_own(kernel: Any, cwd: str) -> None:
    """Start the kernel of `kernel` (from `own_kernel`) in `cwd`, with KERNEL_ARGUMENTS."""
    await kernel.start_kernel(cwd=cwd, extra_arguments=KERNEL_ARGUMENTS)


async def shut_down_own(kernel: Any) -> None:
    """Shut the kernel of `kernel` down now (it may already be gone: the caller decides what
    that means)."""
    await kernel.shutdown_kernel(now=True)


async def start_managed(kernel_manager: Any, kernel_name: str, path: str) -> str:
    """The id of a new `kernel_name` kernel of `kernel_manager` (the Jupyter server's), started
    in `path` (relative to the server's root) with KERNEL_ARGUMENTS. When the caller is cancelled
    while the kernel starts, it is shut down as soon as it has started."""
    starting = asyncio.ensure_future(kernel_manager.start_kernel(
        kernel_name=kernel_name, path=path, extra_arguments=KERNEL_ARGUMENTS))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        starting.add_done_callback(lambda done: _shut_down_started(kernel_manager, done))
        raise


async def shut_down_managed(kernel_manager: Any, kernel_id: str) -> None:
    """Shut the kernel down now if it still runs (the user, or the server's own shutdown, may
    have done it first)."""
    if kernel_id in kernel_manager:
        try:
            await kernel_manager.shutdown_kernel(kernel_id, now=True)
        except Exception:  # already going: the kernel manager finishes it
            pass


def _shut_down_started(kernel_manager: Any, done: "asyncio.Future[str]") -> None:
    if done.cancelled() or done.exception() is not None:
        return
    asyncio.ensure_future(shut_down_managed(kernel_manager, done.result()))


# -- requests and replies ----------------------------------------------------------------------
def open_client(kernel: Any, *, iopub: bool = False) -> Any:
    """A client of `kernel` with its shell channel started (and iopub, to follow the kernel's
    status); the caller stops its channels."""
    client = kernel.client()
    client.start_channels(shell=True, iopub=iopub, stdin=False, hb=False, control=False)
    return client


def execute(client: Any, code: str, *, store_history: bool,
            user_expressions: dict[str, str] | None = None) -> str:
    """Send `code` to run (silently when it is empty: only `user_expressions` are evaluated);
    the request's message id. The kernel never asks for input."""
    return client.execute(code, silent=not code, store_history=store_history,
                          user_expressions=user_expressions or {}, allow_stdin=False)


async def reply_to(client: Any, msg_id: str, *, ends: float | None, deadline: float | None = None,
                gone: Callable[[], Awaitable[bool]]) -> dict[str, Any]:
    """The content of the shell reply to request `msg_id`.

    `ends` (the request's time-out) and `deadline` (the whole run's) are `time.monotonic()`
    instants, None for no limit; past the deadline, then past `ends`, NoReply. While nothing
    comes, `gone()` is asked every POLL_SECONDS: True raises KernelGone. A failing channel
    raises ChannelClosed."""
    while True:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            raise NoReply(deadline=True)
        if ends is not None and now >= ends:
            raise NoReply(deadline=False)
        wait = min(x - now for x in (ends, deadline, now + POLL_SECONDS) if x is not None)
        try:
            msg = await client.get_shell_msg(timeout=max(wait, 0.01))
        except Exception as err:  # queue.Empty when nothing came; a closed channel
            if type(err).__name__ != "Empty":
                raise ChannelClosed(err) from None
            if await gone():
                raise KernelGone() from None
            continue
        if msg.get("parent_header", {}).get("msg_id") == msg_id:
            return msg["content"]


# -- asking a kernel someone works in ----------------------------------------------------------------
# One request at a time per kernel. The clients the server makes for a kernel share its
# session (and so their shell sockets' identity); with row counts still running when
# "Measure run time" was pressed, the timing request was answered with the row counts'
# reply. Serialising the requests makes that impossible, whatever the routing does.
_KERNEL_LOCKS: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

# Seconds a cancelled request may go on running after an interrupt before it is interrupted again.
REINTERRUPT_SECONDS = 3.0

# Interrupts still on their way after their request was cancelled (kept so they are not collected).
_STOPPING: set[asyncio.Future[Any]] = set()


async def ask(kernel_id: str, kernel: Any, user_expressions: dict[str, str], timeout: float,
              cancellable: bool = False) -> dict[str, Any]:
    """The reply content of `user_expressions` evaluated silently in the kernel, after any other
    request asked here of that kernel has been answered; NoReply past `timeout` seconds,
    KernelGone when the kernel dies or is restarted, ChannelClosed.

    Cancelling a `cancellable` ask (its client went away) interrupts the kernel once, and only
    while, the kernel runs this very request, so the Spark jobs it started are cancelled
    (measure.run_limited) and a cell of the user's is never interrupted; the kernel's next
    request from here waits until then."""
    lock = _KERNEL_LOCKS[kernel_id]
    await lock.acquire()
    client = open_client(kernel, iopub=cancellable)
    sent: list[str] = []
    handed_over = False
    try:
        if cancellable:
            await asyncio.sleep(SUBSCRIBE_SECONDS)
        return await _evaluate(client, kernel, user_expressions, timeout, sent.append)
    except asyncio.CancelledError:
        if cancellable and sent:
            stopping = asyncio.ensure_future(_interrupt_while_running(client, kernel, sent[0], timeout, lock))
            _STOPPING.add(stopping)
            stopping.add_done_callback(_STOPPING.discard)
            handed_over = True
        raise
    finally:
        if not handed_over:
            client.stop_channels()
            lock.release()


async def _evaluate(client: Any, kernel: Any, user_expressions: dict[str, str], timeout: float,
                    sent: Callable[[str], Any]) -> dict[str, Any]:
    """`ask`'s request and its reply. Once `timeout` has passed the answer is NoReply, whatever
    else the wait meets (a closed channel, a dead kernel)."""
    process = await kernel_process(kernel)
    msg_id = execute(client, "", store_history=False, user_expressions=user_expressions)
    sent(msg_id)
    ends = time.monotonic() + timeout

    async def gone() -> bool:
        return time.monotonic() < ends and await kernel_process(kernel) != process

    try:
        return await reply_to(client, msg_id, ends=ends, gone=gone)
    except ChannelClosed:
        if time.monotonic() >= ends:
            raise NoReply() from None
        raise


async def _interrupt_while_running(client: Any, kernel: Any, msg_id: str, timeout: float,
                                   lock: asyncio.Lock) -> None:
    """Interrupt `kernel` when it starts running request `msg_id` (at once if it already does),
    then wait until it has finished it; give up after `timeout` or when the kernel dies.

    An interrupt can be lost: ipykernel reports the request busy a moment before it lets SIGINT
    through, and one landing in between is ignored. So while the request still runs,
    REINTERRUPT_SECONDS after the last interrupt, it is interrupted again; its state is read
    just before, so a cell of the user's that follows it is not the one interrupted."""
    deadline = time.monotonic() + timeout
    state, interrupted_at = "queued", None
    try:
        while time.monotonic() < deadline:
            state = await _request_state(client, msg_id, state)
            if state == "done" or await kernel_process(kernel) is None:
                return
            if state == "running" and (interrupted_at is None
                                       or time.monotonic() - interrupted_at >= REINTERRUPT_SECONDS):
                await maybe_await(kernel.interrupt_kernel())
                interrupted_at = time.monotonic()
    finally:
        client.stop_channels()
        lock.release()


async def _request_state(client: Any, msg_id: str, state: str, wait: float = 0.2) -> str:
    """"queued", "running" or "done": request `msg_id` as the kernel's status messages read so
    far say. Every message already received is read before answering, so a request that ran and
    finished meanwhile is "done", never "running"."""
    while True:
        try:
            msg = await client.get_iopub_msg(timeout=wait)
        except Exception as err:  # queue.Empty: nothing more for now
            if type(err).__name__ != "Empty":
                return "done"  # the channel is gone: nothing left to stop
            return state
        wait = 0.01
        if msg.get("parent_header", {}).get("msg_id") == msg_id and msg.get("msg_type") == "status":
            state = "running" if msg["content"].get("execution_state") == "busy" else "done"
