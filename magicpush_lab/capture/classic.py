"""The classic PySpark backend: what tracing needs to know about `pyspark.sql.classic`.

A backend names the classes whose methods are wrapped and reads what translation needs from one
of its DataFrames (a handle on Spark's analyzed plan, read later into a PlanStore; the result's
columns). Everything else in capture/ is
the same for every backend, so a second one (Spark Connect) plugs in beside this one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from magicpush_lab.capture.classic_plan import PlanEncoder
from magicpush_lab.capture.plan_store import PlanStore


@dataclass(frozen=True)
class ApiClasses:
    """The classes of one PySpark API whose methods tracing wraps (None: this PySpark lacks it)."""

    dataframe: type
    grouped: type
    cogrouped: type | None
    reader: type
    session: type
    udf: type


class ClassicBackend:
    """DataFrames of a classic (JVM) SparkSession, read through py4j."""

    name = "classic"

    def classes(self) -> ApiClasses:
        return _classic_classes()

    def is_grouping(self, value: Any) -> bool:
        """A GroupedData or cogrouped ops: what grouped steps are called on."""
        classes = self.classes()
        return isinstance(value, classes.grouped) or (classes.cogrouped is not None
                                                      and isinstance(value, classes.cogrouped))

    def is_dataframe(self, value: Any) -> bool:
        return isinstance(value, self.classes().dataframe)

    def plan_handle(self, df: Any) -> Any:
        """A reference to `df`'s analyzed plan in the JVM: taken when the call is recorded (no
        serialising, no job), read when the trace is pulled."""
        return df._jdf.queryExecution().analyzed()

    def plan_encoder(self, store: PlanStore) -> PlanEncoder:
        """What reads plan handles into `store`, each JVM plan node once."""
        from pyspark import SparkContext

        if SparkContext._jvm is None:
            raise RuntimeError("no SparkContext: the plans' JVM is gone")
        return PlanEncoder(store, SparkContext._jvm)

    def columns(self, df: Any) -> tuple[tuple[str, str], ...]:
        return tuple((f.name, f.dataType.simpleString()) for f in df.schema.fields)

    def grouped_inputs(self, grouped: Any) -> tuple[Any, ...]:
        """The DataFrames a GroupedData (or cogrouped ops) reads."""
        if hasattr(grouped, "_gd1"):
            return grouped._gd1._df, grouped._gd2._df
        return (grouped._df,)


@functools.lru_cache(maxsize=1)
def _classic_classes() -> ApiClasses:
    from pyspark.sql.classic.dataframe import DataFrame
    from pyspark.sql.group import GroupedData
    from pyspark.sql.readwriter import DataFrameReader
    from pyspark.sql.session import SparkSession
    from pyspark.sql.udf import UserDefinedFunction

    try:
        from pyspark.sql.pandas.group_ops import PandasCogroupedOps
    except ImportError:  # no pandas support in this PySpark: nothing to wrap
        PandasCogroupedOps = None
    return ApiClasses(DataFrame, GroupedData, PandasCogroupedOps, DataFrameReader, SparkSession, UserDefinedFunction)
