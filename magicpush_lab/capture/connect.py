"""The Spark Connect backend: what tracing needs to know about `pyspark.sql.connect`.

A Connect DataFrame is a client-side plan (`df._plan`, a tree of the client's LogicalPlan objects,
each with a plan id) and the session it is sent to; nothing runs until an action. Recording
keeps that pair as the plan's handle: no proto is built, no request is sent. When the trace is
pulled, connect_plan/ builds each plan's Connect relation once, asks the server for the
schemas it needs, and writes the plan into the PlanStore in the form the engine reads.

Everything here is client side and uses only the public protocol: it works against any Connect
server (a local one, a cluster's, a vendor's), with no server plugin and no JVM in the kernel.
"""

from __future__ import annotations

import functools
from typing import Any

from magicpush_lab.capture.classic import ApiClasses, ClassicBackend
from magicpush_lab.capture.plan_store import PlanStore


class ConnectBackend:
    """DataFrames of a Spark Connect session, read through the Connect client."""

    name = "connect"

    def classes(self) -> ApiClasses:
        found = connect_classes()
        if found is None:
            raise ImportError("the Spark Connect client is not installed (pip install 'pyspark[connect]')")
        return found

    def available(self) -> bool:
        return connect_classes() is not None

    def is_grouping(self, value: Any) -> bool:
        classes = connect_classes()
        return classes is not None and (isinstance(value, classes.grouped) or (
            classes.cogrouped is not None and isinstance(value, classes.cogrouped)))

    def is_dataframe(self, value: Any) -> bool:
        classes = connect_classes()
        return classes is not None and isinstance(value, classes.dataframe)

    def plan_handle(self, df: Any) -> Any:
        """The client-side plan and its session: two references, read when the trace is pulled."""
        return ConnectHandle(df._plan, df._session)

    def plan_encoder(self, store: PlanStore) -> Any:
        from magicpush_lab.capture.connect_plan.encoder import ConnectPlanEncoder

        return ConnectPlanEncoder(store)

    # read through the DataFrame API's public surface, which both kinds of session share
    columns = ClassicBackend.columns
    grouped_inputs = ClassicBackend.grouped_inputs


class ConnectHandle:
    """A Connect DataFrame's plan as recorded: the client's plan object and its session."""

    __slots__ = ("plan", "session")

    def __init__(self, plan: Any, session: Any) -> None:
        self.plan, self.session = plan, session


@functools.lru_cache(maxsize=1)
def connect_classes() -> ApiClasses | None:
    """The Connect client's classes; None when the client (or one of its dependencies: grpcio,
    grpcio-status, googleapis-common-protos, zstandard) is not installed."""
    try:
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.group import GroupedData, PandasCogroupedOps
        from pyspark.sql.connect.readwriter import DataFrameReader
        from pyspark.sql.connect.session import SparkSession
        from pyspark.sql.connect.udf import UserDefinedFunction
    except Exception:  # ImportError, or a dependency's own error on import
        return None
    return ApiClasses(DataFrame, GroupedData, PandasCogroupedOps, DataFrameReader, SparkSession, UserDefinedFunction)


def missing_client_reason() -> str | None:
    """Why Connect DataFrames cannot be traced in this kernel, or None when they can."""
    try:
        import pyspark.sql.connect.dataframe  # noqa: F401
    except Exception as err:
        return f"the Spark Connect client cannot be imported ({type(err).__name__}: {err})"
    return None
