"""The replay route's work: a saved notebook replayed in a kernel of the server's own kernel
manager, optimized, measured there, and the kernel shut down.

Starting the kernel through the server's kernel manager makes it a kernel like the notebook's:
`/api/kernels` lists it, the culler and the server's shutdown see it, and cancelling the request
(the client went away) shuts it down at once. The replay runs on the event loop (it only waits
on the kernel); the optimization runs in the optimizer's thread, like optimize's.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any, Callable

from magicpush_lab.assist import Runner, optimize_replayed
from magicpush_lab.budget import Budget
from magicpush_lab.driver.kernels import shut_down_managed, start_managed
from magicpush_lab.driver.notebook import Document
from magicpush_lab.driver.replay import KernelReplay, remote_from_environment
from magicpush_lab.server.kernel_measure import kernel_measurer
from magicpush_lab.server.scheduler import in_thread
from magicpush_lab.suggestion import OptimizeResult

#: the kernel a notebook is replayed in: the server's Python, where magicpush_lab is installed
KERNEL_NAME = "python3"


def capped(run: Runner, budget: Budget, seconds_left: Callable[[], float | None]) -> Runner:
    """`run`, with the budget cut to what is left of the deadline when the optimization starts.

    >>> b = Budget(10.0)
    >>> capped(lambda optimize: optimize(), b, lambda: 2.5)(lambda: b.seconds)
    2.5
    """
    def cap_then(optimize: Callable[[], Any]) -> Any:
        def start() -> Any:
            left = seconds_left()
            if left is not None:
                budget.seconds = min(budget.seconds, left)
            return optimize()

        return run(start)

    return cap_then


async def replay_and_optimize_on_server(kernel_manager: Any, root: Path, document: Document, *, timeout: float,
                                        deadline: float, measure: bool, budget: Budget,
                                        run: Runner) -> OptimizeResult:
    """Replay `document` (a notebook under `root`) in a new kernel of `kernel_manager`, optimize its
    trace with `run` and measure on that kernel; the kernel is shut down however this ends,
    cancellation included. Raises driver.replay.ReplayError for a failing cell, the deadline or
    a dead kernel, and RuntimeError when no kernel starts."""
    # the server's kernels inherit its environment: a SPARK_REMOTE there is the server to watch
    replay = KernelReplay(document, timeout=timeout, deadline=deadline, remote=remote_from_environment())
    relative = document.path.parent.relative_to(root).as_posix()
    try:
        # the client going away while the kernel starts shuts it down once it has
        kernel_id = await start_managed(kernel_manager, KERNEL_NAME, "" if relative == "." else relative)
    except Exception as err:
        raise RuntimeError(f"cannot start a {KERNEL_NAME} kernel: {type(err).__name__}") from err
    try:
        await replay.run(kernel_manager.get_kernel(kernel_id))
        loop = asyncio.get_running_loop()
        measurer = kernel_measurer(kernel_manager, kernel_id, loop, replay.seconds_left) if measure else None
        optimize = functools.partial(optimize_replayed, replay, budget, measurer,
                                     run=capped(run, budget, replay.seconds_left))
        return await in_thread(optimize)
    finally:
        replay.close()
        await shut_down_managed(kernel_manager, kernel_id)
