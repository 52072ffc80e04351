"""Where the server's blocking work runs: one optimizer thread shared fairly between users, and a
thread per request for the waits around it.

Search and Z3 are CPU-bound: optimizations run one at a time, off the event loop, so that the
server keeps answering. Waiting optimizations are taken in turn by user (round robin), so that
one user's queue of requests never starves another's; each user may have only so many waiting,
and the server only so many in all: past that, a request is refused at once (429, `busy`) rather
than queued for longer than anyone will wait. A request whose client went away is dropped from
the queue before it starts. All threads are daemon threads: a server that stops is never held
up by an optimization nobody will read.

>>> q = OptimizerQueue(per_user=2, total=8)
>>> q.submit("ann", lambda: 6 * 7).result(timeout=10)
42
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import threading
from typing import Any, Callable, TypeVar

T = TypeVar("T")

#: waiting optimizations one user may have; the server may have in all
PER_USER = 8
TOTAL = 32


class Busy(Exception):
    """The optimizer's queue is full for this user (or for everyone)."""


class OptimizerQueue:
    """One worker thread running the submitted work, taking waiting users in turn."""

    def __init__(self, per_user: int = PER_USER, total: int = TOTAL) -> None:
        self.per_user = per_user
        self.total = total
        self._cond = threading.Condition()
        self._waiting: dict[str, collections.deque[tuple[concurrent.futures.Future[Any], Callable[[], Any]]]] = {}
        self._turns: collections.deque[str] = collections.deque()  # users with waiting work, next first
        self._thread: threading.Thread | None = None
        self.running: str | None = None  # the user whose work runs now

    def waiting(self, user: str | None = None) -> int:
        with self._cond:
            if user is not None:
                return len(self._waiting.get(user, ()))
            return sum(len(q) for q in self._waiting.values())

    def submit(self, user: str, work: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Queue `work` for `user`; Busy when the queue is full. Cancel the future to drop it."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._cond:
            mine = self._waiting.get(user)
            if mine is not None and len(mine) >= self.per_user:
                raise Busy(f"{len(mine)} optimizations of yours are already waiting; at most {self.per_user} may")
            if sum(len(q) for q in self._waiting.values()) >= self.total:
                raise Busy(f"{self.total} optimizations are already waiting for the optimizer")
            if mine is None:
                mine = self._waiting[user] = collections.deque()
                self._turns.append(user)
            mine.append((future, work))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="magicpush-optimize", daemon=True)
                self._thread.start()
            self._cond.notify()
        return future

    def _next(self) -> tuple[str, concurrent.futures.Future[Any], Callable[[], Any]]:
        with self._cond:
            while not self._turns:
                self._cond.wait()
            user = self._turns.popleft()
            mine = self._waiting[user]
            future, work = mine.popleft()
            if mine:
                self._turns.append(user)  # the user's next request waits for everyone else's turn
            else:
                del self._waiting[user]
            return user, future, work

    def _serve(self) -> None:
        while True:
            user, future, work = self._next()
            if not future.set_running_or_notify_cancel():
                continue  # its client went away while it waited
            self.running = user
            try:
                future.set_result(work())
            except BaseException as err:  # the request's thread reports it
                future.set_exception(err)
            finally:
                self.running = None


def in_thread(fn: Callable[..., T], *args: Any) -> "asyncio.Future[T]":
    """Run `fn(*args)` in a daemon thread of its own; the event loop's future of its result.
    (A pool's threads would be joined when the server exits, waiting for work nobody reads.)"""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        try:
            outcome = (True, fn(*args))
        except BaseException as err:  # handed to the awaiting handler
            outcome = (False, err)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is closed: the server stopped meanwhile
            pass

    threading.Thread(target=target, name="magicpush-request", daemon=True).start()
    return future
