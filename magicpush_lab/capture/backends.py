"""More than one PySpark API in one kernel: the classic (JVM) API and Spark Connect side by side.

A notebook may make a classic session, a Connect one (`SparkSession.builder.remote(...)`,
`SPARK_REMOTE`, `spark.api.mode=connect`), or both. `Backends` puts the available backends
behind the one interface the tracer uses (see classic.py): each DataFrame is handled by the
backend whose class it is, and each plan handle is read by the backend that took it.
"""

from __future__ import annotations

from typing import Any, Iterable

from magicpush_lab.capture.classic import ApiClasses, ClassicBackend
from magicpush_lab.capture.connect import ConnectBackend
from magicpush_lab.capture.plan_store import PlanStore


class Backends:
    """The backends whose API this PySpark installation has, in one."""

    name = "backends"

    def __init__(self, *members: Any) -> None:
        self.members = members or (ClassicBackend(), ConnectBackend())
        self._available: list[Any] | None = None

    def available(self) -> list[Any]:
        """The members whose classes import here (classic needs the JVM API, Connect the client)."""
        if self._available is None:
            found = []
            for member in self.members:
                try:
                    member.classes()
                except Exception:  # this PySpark lacks that API: nothing of it to trace
                    continue
                found.append(member)
            self._available = found
        return self._available

    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.available())

    def classes(self) -> ApiClasses:
        """The first available API's classes (what parts wrapping one API only, rdd.py, read)."""
        for member in self.available():
            return member.classes()
        raise ImportError("no PySpark DataFrame API can be imported")

    def all_classes(self) -> list[ApiClasses]:
        return [m.classes() for m in self.available()]

    def member_of(self, df: Any) -> Any | None:
        return next((m for m in self.available() if m.is_dataframe(df)), None)

    def is_dataframe(self, value: Any) -> bool:
        return self.member_of(value) is not None

    def is_grouping(self, value: Any) -> bool:
        return any(m.is_grouping(value) for m in self.available())

    def plan_handle(self, df: Any) -> Any:
        member = self.member_of(df)
        if member is None:
            raise TypeError(f"not a DataFrame of a traced API: {type(df).__name__}")
        return member, member.plan_handle(df)

    def plan_encoder(self, store: PlanStore) -> "_Encoders":
        return _Encoders(store)

    def columns(self, df: Any) -> tuple[tuple[str, str], ...]:
        member = self.member_of(df)
        if member is None:
            raise TypeError(f"not a DataFrame of a traced API: {type(df).__name__}")
        return member.columns(df)

    def grouped_inputs(self, grouped: Any) -> tuple[Any, ...]:
        member = next((m for m in self.available() if m.is_grouping(grouped)), None)
        if member is None:
            raise TypeError(f"not a grouping of a traced API: {type(grouped).__name__}")
        return member.grouped_inputs(grouped)


class _Encoders:
    """Each member's plan encoder over one store, made when a handle of that member is read."""

    def __init__(self, store: PlanStore) -> None:
        self.store = store
        self._by_member: dict[int, Any] = {}

    def encode(self, handle: Any) -> int:
        member, inner = handle
        encoder = self._by_member.get(id(member))
        if encoder is None:
            encoder = self._by_member[id(member)] = member.plan_encoder(self.store)
        return encoder.encode(inner)


def untraced_kinds(backend: Any, values: Iterable[Any]) -> list[str]:
    """Why DataFrames among `values` (a notebook's variables) are not traced, one line per kind:
    a DataFrame class of an API no backend here wraps (pandas-on-Spark, a vendor's own), or Spark
    Connect without its client installed. Empty when every DataFrame seen is traced."""
    from magicpush_lab.capture.connect import missing_client_reason

    kinds: dict[str, str] = {}
    for value in values:
        cls = type(value)
        module = getattr(cls, "__module__", "") or ""
        if not cls.__name__.endswith("DataFrame") or not module.startswith(("pyspark", "databricks")):
            continue
        try:
            traced = backend.is_dataframe(value)
        except Exception:
            traced = False
        if traced:
            continue
        name = f"{module}.{cls.__name__}"
        if module.startswith("pyspark.sql.connect"):
            kinds[name] = f"Spark Connect DataFrames ({name}) are not traced: " \
                          f"{missing_client_reason() or 'tracing was installed before the client could load'}"
        elif module.startswith("pyspark.pandas"):
            kinds[name] = f"pandas-on-Spark DataFrames ({name}) are traced through the Spark calls they make, " \
                          "and none was made since tracing began: run their cells again"
        else:
            kinds[name] = f"DataFrames of {name} are not traced: only classic and Spark Connect PySpark sessions are"
    return list(kinds.values())
