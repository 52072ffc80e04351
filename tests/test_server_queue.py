"""The optimizer's queue: one thread, shared fairly between users, each request with its whole
time budget once its turn comes, a full queue refused at once, and a request whose client went
away dropped before it starts."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

from tests import test_server
from tests.test_server import NOTEBOOK_CELLS, assert_udf_pushdown

pytest_plugins = ("pytest_jupyter.jupyter_server",)

# the notebook pipeline of tests/test_server.py, traced in the test process (module-scoped)
traced_pipeline = test_server.traced_pipeline


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


class Blocker:
    """Work that holds the optimizer thread until released (a long optimization of another user)."""

    def __init__(self) -> None:
        self.running = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> str:
        self.running.set()
        self.release.wait(60)
        return "blocked"


def occupy(queue: Any, user: str = "someone-else") -> Blocker:
    blocker = Blocker()
    queue.submit(user, blocker)
    assert blocker.running.wait(10)
    return blocker


# -- the queue itself ------------------------------------------------------------------------------


def test_waiting_users_are_served_in_turn_not_in_arrival_order():
    from magicpush_lab.server.scheduler import OptimizerQueue

    queue = OptimizerQueue(per_user=8, total=32)
    blocker = occupy(queue)
    ran: list[str] = []
    futures = [queue.submit(user, lambda tag=tag: ran.append(tag))
               for user, tag in [("ann", "ann-1"), ("ann", "ann-2"), ("ann", "ann-3"), ("bob", "bob-1"),
                                 ("cy", "cy-1"), ("bob", "bob-2")]]
    blocker.release.set()
    for future in futures:
        future.result(timeout=10)
    # one of each user's in turn: bob's first request does not wait behind all of ann's
    assert ran == ["ann-1", "bob-1", "cy-1", "ann-2", "bob-2", "ann-3"]


def test_a_full_queue_is_refused_at_once():
    from magicpush_lab.server.scheduler import Busy, OptimizerQueue

    queue = OptimizerQueue(per_user=2, total=3)
    blocker = occupy(queue)
    queue.submit("ann", lambda: None)
    queue.submit("ann", lambda: None)
    with pytest.raises(Busy, match="2 optimizations of yours"):
        queue.submit("ann", lambda: None)
    queue.submit("bob", lambda: None)
    with pytest.raises(Busy, match="3 optimizations are already waiting"):
        queue.submit("cy", lambda: None)
    blocker.release.set()


def test_work_whose_client_went_away_never_starts():
    from magicpush_lab.server.scheduler import OptimizerQueue

    queue = OptimizerQueue()
    blocker = occupy(queue)
    ran = threading.Event()
    dropped = queue.submit("ann", ran.set)
    dropped.cancel()
    after = queue.submit("ann", lambda: "next")
    blocker.release.set()
    assert after.result(timeout=10) == "next" and not ran.is_set()


def test_the_optimizer_thread_never_holds_up_the_interpreters_exit():
    from magicpush_lab.server.scheduler import OptimizerQueue

    queue = OptimizerQueue()
    blocker = occupy(queue)
    assert queue._thread is not None and queue._thread.daemon
    blocker.release.set()


# -- through the route -------------------------------------------------------------------------------


def optimize_body(trace: dict[str, Any], budget: float) -> str:
    return json.dumps({"trace": trace, "notebook": {"path": "scores.ipynb", "cells": NOTEBOOK_CELLS},
                       "measure": False, "time_budget": budget})


async def test_five_small_requests_queued_behind_a_long_one_each_still_find_their_suggestion(
        jp_fetch, traced_pipeline):
    """Each budget counts from when its optimization starts, not from when its request arrived:
    the fifth waits for the long one and the four before it, longer than its own budget."""
    from magicpush_lab.server import routes

    blocker = occupy(routes.OPTIMIZER)
    budget = 6.0
    arrived = time.monotonic()
    requests = [asyncio.ensure_future(jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=300,
                                               body=optimize_body(traced_pipeline, budget))) for _ in range(5)]
    await asyncio.sleep(budget + 2)  # every request's budget would be spent by now, had it started on arrival
    blocker.release.set()
    results = [json.loads(r.body) for r in await asyncio.gather(*requests)]
    assert time.monotonic() - arrived > budget
    for result in results:
        assert_udf_pushdown(result)


async def test_a_request_past_the_queue_limit_gets_429_at_once(jp_fetch, traced_pipeline, monkeypatch):
    """(Requests authenticated by a bare token are each their own anonymous user to the server's
    identity provider: the server-wide limit is the one they meet.)"""
    from magicpush_lab.server import routes
    from magicpush_lab.server.scheduler import OptimizerQueue

    queue = OptimizerQueue(per_user=1, total=1)
    monkeypatch.setattr(routes, "OPTIMIZER", queue)
    blocker = occupy(queue)
    first = asyncio.ensure_future(jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=300,
                                           body=optimize_body(traced_pipeline, 20)))
    ends = time.monotonic() + 20
    while queue.waiting() == 0:
        assert time.monotonic() < ends
        await asyncio.sleep(0.1)
    started = time.monotonic()
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=60,
                       body=optimize_body(traced_pipeline, 20))
    blocker.release.set()
    reply = json.loads(err.value.response.body)
    assert (err.value.code, reply["kind"]) == (429, "busy"), reply
    assert time.monotonic() - started < 5
    assert_udf_pushdown(json.loads((await first).body))


async def test_a_request_whose_client_went_away_leaves_the_queue_before_it_starts(jp_fetch, traced_pipeline,
                                                                                  monkeypatch):
    from magicpush_lab.server import routes

    reads: list[int] = []
    read_trace = routes._read_trace

    def counted(trace_json: dict[str, Any]) -> Any:
        read = read_trace(trace_json)

        def read_and_count() -> Any:
            reads.append(1)
            return read()

        return read_and_count

    monkeypatch.setattr(routes, "_read_trace", counted)
    blocker = occupy(routes.OPTIMIZER)
    with pytest.raises(HTTPClientError) as err:  # gives up after 2 s, closing the connection
        await jp_fetch("magicpush-lab", "optimize", method="POST", request_timeout=2,
                       body=optimize_body(traced_pipeline, 30))
    assert err.value.code == 599
    await asyncio.sleep(0.5)
    blocker.release.set()
    done = routes.OPTIMIZER.submit("someone-else", lambda: "after")
    assert done.result(timeout=30) == "after"
    assert reads == [] and routes.OPTIMIZER.waiting() == 0
