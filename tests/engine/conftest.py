"""The engine's pipeline tests on both kinds of session.

A module that sets `SESSIONS = ("classic", "connect")` runs each of its tests twice: once on the
local classic session, once on a session of a stock Spark Connect server (tests/connect_support.py
starts one on a free port). The test is the same code: it builds its DataFrames on the session it
is given, the harness reads their plans with that session's backend (the JVM's analyzed plan,
or the Connect relations resolved against the server's schemas), and every pushing case compares
the original and rewritten output bags on that session.

A case the Connect reader cannot yet read as the classic one is listed in the module's
`CONNECT_GAPS` (test id -> why); it is expected to fail on Connect (strictly: once it passes, the
entry must go), so the list stays the true list of what Connect misses.

A Connect copy whose pipeline reads into the IR its classic run read ends there, passed
(connect_parity.py says why that is the part only Connect can get wrong); one that reads
otherwise, and every case of CONNECT_GAPS, runs to its end. `--connect-matrix=full` runs every
Connect copy to its end.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.connect_support import connect_mode, connect_server, connect_spark  # noqa: F401 - fixtures

from . import connect_parity

KINDS = ("classic", "connect")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    kinds = getattr(metafunc.module, "SESSIONS", ("classic",))
    if "spark" in metafunc.fixturenames and tuple(kinds) != ("classic",):
        metafunc.parametrize("spark", kinds, indirect=True, ids=[f"on_{k}" for k in kinds])


def pytest_configure(config: pytest.Config) -> None:
    # the option is tests/conftest.py's: pytest reads options only from the conftests it meets first
    connect_parity.FULL_MATRIX["on"] = config.getoption("--connect-matrix") == "full"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # the hook sees every item of the run (doctests too, which have no module attribute)
    for item in items:
        key = connect_case(item.name, getattr(item, "originalname", item.name))
        gaps = getattr(getattr(item, "module", None), "CONNECT_GAPS", {})
        if key is not None and key in gaps:
            item.add_marker(pytest.mark.xfail(reason=f"Spark Connect: {gaps[key]}", strict=True))
            parity = connect_parity.case_key(item.nodeid)
            if parity is not None:
                connect_parity.RUN_TO_THE_END.add(parity[0])


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    try:
        return (yield)
    except connect_parity.ReadsAsClassic:
        return True  # read as on classic: what the classic run checked holds for this reading


def connect_case(name: str, function: str) -> str | None:
    """The key of a test's Connect run in CONNECT_GAPS: its case's id, or the test function's
    name when it has no other parameter; None for a classic run.

    >>> connect_case("test_case[on_connect-a filter on v]", "test_case")
    'a filter on v'
    >>> connect_case("test_key[on_connect]", "test_key"), connect_case("test_case[on_classic-x]", "test_case")
    ('test_key', None)
    """
    if "[" not in name:
        return None
    inside = name[name.index("[") + 1:-1]
    if inside == "on_connect":
        return function
    for prefix, suffix in (("on_connect-", ""), ("", "-on_connect")):
        if inside.startswith(prefix) and inside.endswith(suffix) and (prefix or suffix):
            return inside[len(prefix):len(inside) - len(suffix)]
    return None


# module-scoped, so that a module's own module-scoped fixtures may ask for it too; pytest runs a
# module's tests on one kind of session, then on the other
@pytest.fixture(scope="module")
def spark(request: pytest.FixtureRequest, spark) -> Iterator:  # noqa: F811 - the session-wide classic one
    """The classic session, or (when the module runs on both) a Connect session, with
    `pyspark.sql.functions` building Connect Columns while that module's Connect tests run."""
    if getattr(request, "param", "classic") == "classic":
        yield spark
        return
    session = request.getfixturevalue("connect_spark")
    with connect_mode():
        yield session
