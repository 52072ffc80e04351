"""Who may call which route, and what a predicate may make a kernel run.

Authorization is jupyter_server's: each route names the resource and action it needs (running
code in a kernel is "execute" on "kernels"; replay also reads "contents"), and the server's
`Authorizer` decides, as it does for the server's own routes. A user the authorizer only lets
read gets 403 from every route that could run code.

A predicate reaches the kernel as IR and is built there with `pyspark.sql.functions.<name>`:
only the functions the engine itself writes into a predicate may be named (the contract's
SparkFunction allow-list); reflection, file metadata, impure functions and code-running
functions are refused before anything is sent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from jupyter_server.auth.authorizer import AllowAllAuthorizer, Authorizer
from tornado.httpclient import HTTPClientError

from tests.test_runtime import a_suggestion

pytest_plugins = ("pytest_jupyter.jupyter_server",)


# -- authorization ------------------------------------------------------------------------


class ReadOnly(Authorizer):
    """A user who may look but not change or run anything (a JupyterHub "read" role)."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return action == "read"


class NoKernelExecution(Authorizer):
    """Everything but running code in kernels, writing files and interrupting kernels: the
    authorizer of the report, under which replay still ran os.system."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return not ((resource == "kernels" and action in ("execute", "write")) or
                    (resource == "contents" and action == "write"))


class NoContentsRead(Authorizer):
    """May run code in kernels, may not read the files under the root."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return not (resource == "contents" and action == "read")


AUTHORIZERS = {"read-only": ReadOnly, "no-kernel-execution": NoKernelExecution, "no-contents-read": NoContentsRead}


@pytest.fixture
def authorizer() -> type[Authorizer]:
    return ReadOnly


@pytest.fixture
def jp_server_config(authorizer):
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}, "authorizer_class": authorizer}}


MARKER = "ran-code.txt"
NOTEBOOK = f"# %%\nimport os\nos.system('touch {MARKER}')\n"


@pytest.fixture
def root_with_a_notebook(jp_root_dir: Path) -> Path:
    (jp_root_dir / "nb.py").write_text(NOTEBOOK)
    return jp_root_dir


def bodies(kernel_id: str) -> dict[str, dict[str, Any]]:
    return {
        "optimize": {"trace": {"events": []}, "measure": False},
        "measure": {"kernel_id": kernel_id, "suggestions": [a_suggestion()]},
        "runtime": {"kernel_id": kernel_id, "suggestion": a_suggestion()},
        "replay": {"path": "nb.py", "measure": False},
    }


async def refused(jp_fetch, route: str, body: Any) -> dict[str, Any]:
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("magicpush-lab", route, method="POST", body=json.dumps(body), request_timeout=120)
    answer = json.loads(err.value.response.body)
    assert (err.value.code, answer["kind"]) == (403, "forbidden"), answer
    return answer


@pytest.mark.parametrize("route", ["optimize", "measure", "runtime", "replay"])
async def test_a_read_only_user_gets_403_from_every_route_that_could_run_code(jp_fetch, jp_serverapp,
                                                                              root_with_a_notebook, route):
    kernel_id = await jp_serverapp.kernel_manager.start_kernel()
    try:
        answer = await refused(jp_fetch, route, bodies(kernel_id)[route])
    finally:
        await jp_serverapp.kernel_manager.shutdown_kernel(kernel_id, now=True)
    assert "execute" in answer["error"] and "kernels" in answer["error"]
    assert not (root_with_a_notebook / MARKER).exists()


async def test_a_read_only_user_may_still_read_the_health_route(jp_fetch):
    response = await jp_fetch("magicpush-lab", "health")
    assert response.code == 200 and json.loads(response.body)["z3"] is True


@pytest.mark.parametrize("authorizer", [NoKernelExecution], ids=["no-kernel-execution"])
async def test_replay_cannot_run_code_for_a_user_who_may_not_execute_in_kernels(jp_fetch, jp_serverapp,
                                                                               root_with_a_notebook, authorizer):
    await refused(jp_fetch, "replay", {"path": "nb.py", "measure": False})
    await asyncio.sleep(1)
    assert not (root_with_a_notebook / MARKER).exists()
    assert jp_serverapp.kernel_manager.list_kernel_ids() == []


@pytest.mark.parametrize("authorizer", [NoContentsRead], ids=["no-contents-read"])
async def test_replay_needs_the_right_to_read_the_notebook(jp_fetch, jp_serverapp, root_with_a_notebook, authorizer):
    answer = await refused(jp_fetch, "replay", {"path": "nb.py", "measure": False})
    assert "contents" in answer["error"]
    assert jp_serverapp.kernel_manager.list_kernel_ids() == []
    assert not (root_with_a_notebook / MARKER).exists()


# -- the Spark functions a predicate may call ---------------------------------------------------

# Functions the engine writes into a predicate besides translate's deterministic Catalyst ones
# (the names PySpark gives them): symbolic/nan.py, search/formula.py, translate's NaNvl.
SYNTHESIZED = {"isnan", "contains", "startswith", "endswith", "length", "nanvl"}


def test_the_allow_list_is_exactly_what_the_engine_writes_into_predicates():
    from pyspark.sql import functions as F

    from magicpush_lab.translate.spark_plan import _PREDICATE_FUNCTIONS, _snake

    from magicpush_lab.server.validation import allowed_functions

    emitted = {_snake(cls) for cls in _PREDICATE_FUNCTIONS} | SYNTHESIZED
    buildable = {name for name in emitted if callable(getattr(F, name, None))}
    assert allowed_functions() == buildable


def test_every_allowed_function_is_one_the_kernel_can_build():
    from magicpush_lab.rewrite.pyspark_column import spark_function
    from magicpush_lab.server.validation import allowed_functions

    for name in sorted(allowed_functions()):
        spark_function(name)  # raises for a name PySpark has not


# family -> functions a predicate must never make a kernel call
FORBIDDEN = {
    "reflection": ["reflect", "java_method", "try_reflect"],
    "files": ["input_file_name", "input_file_block_start", "input_file_block_length"],
    "not-a-pure-value": ["rand", "randn", "uuid", "shuffle", "monotonically_increasing_id", "spark_partition_id",
                         "current_user", "session_user", "user", "version", "raise_error", "assert_true"],
    "running-code": ["udf", "pandas_udf", "call_udf", "call_function", "udtf", "expr", "broadcast"],
    "python-names": ["__class__", "_invoke_function", "col", "lit"],
}


def test_no_forbidden_function_is_on_the_allow_list():
    from magicpush_lab.server.validation import allowed_functions

    listed = {name for names in FORBIDDEN.values() for name in names}
    assert listed & allowed_functions() == set()


def calling(name: str, *args: Any) -> dict[str, Any]:
    return {"kind": "Cmp", "op": "=", "left": {"kind": "Func", "name": name, "args": list(args), "dtype": "string"},
            "right": {"kind": "Lit", "value": "x", "dtype": "string"}}


REFLECT_ARGS = ({"kind": "Lit", "value": "java.lang.Runtime", "dtype": "string"},
                {"kind": "Lit", "value": "getRuntime", "dtype": "string"})


@pytest.fixture
def plain_kernel(jp_serverapp):
    """A kernel the routes could send to: without the allow-list, the predicate would reach it."""
    from jupyter_core.utils import ensure_event_loop

    km = jp_serverapp.kernel_manager
    loop = ensure_event_loop(prefer_selector_loop=True)
    kernel_id = loop.run_until_complete(km.start_kernel())
    yield kernel_id
    loop.run_until_complete(km.shutdown_kernel(kernel_id, now=True))


@pytest.mark.parametrize("authorizer", [AllowAllAuthorizer], ids=["allow-all"])
@pytest.mark.parametrize("family", sorted(FORBIDDEN))
async def test_each_forbidden_family_is_refused_before_it_reaches_a_kernel(jp_fetch, plain_kernel, family,
                                                                           authorizer):
    for name in FORBIDDEN[family]:
        predicate = calling(name, *REFLECT_ARGS)
        as_alternative = a_suggestion(alternatives=[a_suggestion(predicate_ir=predicate)])
        requests = [
            ("measure", {"kernel_id": plain_kernel, "suggestions": [a_suggestion(predicate_ir=predicate)]}),
            ("measure", {"kernel_id": plain_kernel, "suggestions": [as_alternative]}),
            ("runtime", {"kernel_id": plain_kernel, "suggestion": a_suggestion(predicate_ir=predicate)}),
        ]
        for route, body in requests:
            with pytest.raises(HTTPClientError) as err:
                await jp_fetch("magicpush-lab", route, method="POST", body=json.dumps(body), request_timeout=60)
            answer = json.loads(err.value.response.body)
            assert (err.value.code, answer["kind"]) == (400, "invalid_field"), (name, route, answer)
            assert json.dumps(name) in answer["error"] and "predicate_ir" in answer["error"], answer


@pytest.mark.parametrize("kind", ["PyUdf", "Agg", "FoldBody"])
def test_python_udfs_and_aggregates_are_not_predicates_a_kernel_builds(kind):
    from magicpush_lab.server.validation import RequestError, check_predicate

    with pytest.raises(RequestError, match="not an expression a predicate may hold"):
        check_predicate({"kind": kind, "name": "f", "args": [], "dtype": "int", "source": "import os"}, "p")


class _Recorder:
    """A kernel manager that records whether anything was about to be sent to its kernel."""

    def __init__(self) -> None:
        self.asked = 0

    def __contains__(self, kernel_id: str) -> bool:
        return True

    def get_kernel(self, kernel_id: str) -> Any:
        self.asked += 1
        raise AssertionError("a refused predicate was about to be sent to the kernel")


def test_the_kernel_client_sends_no_forbidden_predicate_whatever_route_it_came_from():
    """optimize measures the suggestions the engine made from a client's trace: the kernel client
    itself refuses what the routes' schema would, so no route can get a forbidden call through."""
    from magicpush_lab.server.kernel_measure import MeasureError, measure_on_kernel, runtime_on_kernel

    km = _Recorder()
    reflect = calling("reflect", *REFLECT_ARGS)
    answers = asyncio.run(measure_on_kernel(km, "k", [{"source_event": 1, "predicate_ir": reflect},
                                                      {"source_event": 1, "predicate_ir": calling("upper"),
                                                       "alternatives": [reflect]}]))
    assert km.asked == 0
    assert all(a["error"].startswith("not sent to the kernel") and '"reflect"' in a["error"] for a in answers)
    with pytest.raises(MeasureError) as err:
        asyncio.run(runtime_on_kernel(km, "k", {"source_event": 1, "predicate_ir": reflect, "sink_event": 2}))
    assert err.value.kind == "invalid_field" and km.asked == 0
