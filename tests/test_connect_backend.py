"""The Spark Connect backend's parts that need no server: which APIs are traced, what a kernel
says about DataFrames no backend traces, and how a Connect fault reads."""

from __future__ import annotations

from magicpush_lab.capture.backends import Backends, untraced_kinds
from magicpush_lab.measure import connect_fault


def test_both_apis_are_traced_when_both_import():
    assert Backends().names() == ("classic", "connect")


def _instance(module: str):
    cls = type("DataFrame", (), {"__module__": module})
    return cls()


def test_a_dataframe_of_an_untraced_kind_is_named():
    kinds = untraced_kinds(Backends(), [_instance("pyspark.pandas.frame"), 3, "x"])
    assert len(kinds) == 1 and "pandas-on-Spark" in kinds[0] and "pyspark.pandas.frame.DataFrame" in kinds[0]


def test_a_traced_kind_or_another_value_says_nothing():
    assert untraced_kinds(Backends(), [1, [], _instance("mylib.frames")]) == []


def test_a_connect_fault_is_named_and_another_error_is_not():
    assert "cannot be reached" in connect_fault(ConnectionError("the Spark Connect server cannot be reached (x)"))
    assert connect_fault(RuntimeError("SparkConnectGrpcException: INVALID_HANDLE.SESSION_NOT_FOUND")) \
        .startswith("the Spark Connect session has expired")
    assert connect_fault(ValueError("UNAVAILABLE")) is None
