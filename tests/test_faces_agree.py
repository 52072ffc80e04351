"""Every face runs one optimize-and-measure sequence (magicpush_lab/assist.py): for one notebook,
the CLI's replay, `%magicpush` and the sidebar's optimize route return the same suggestion,
ranked the same way among its proved alternatives on the notebook's own rows.

The search rarely ends with several incomparable proved predicates for one source: for a
row-to-row operator the conjunction of two proved supersets is proved as well and pushed
instead. To have alternatives reach the faces, the test makes the search propose the late
filter's two conjuncts one by one and lets the conjunction's proof time out, as a busy solver
would; the proofs of the two alternatives, the rewrite, the row counts and the ranking are real.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from jupyter_core.utils import ensure_event_loop

from magicpush_lab.cli import main
from magicpush_lab.ir import expr as X
from magicpush_lab.ir import plan as P
from magicpush_lab.kernel.extension import _loaded, magicpush_result
from magicpush_lab.protocol import TRACE_EXPRESSION, TRACE_MIME
from magicpush_lab.pushdown import alternatives, walk
from magicpush_lab.verify.verdict import SUPERSET
from tests.cells import run_cells

pytest_plugins = ("pytest_jupyter.jupyter_server",)

SETUP = ("from pyspark.sql import SparkSession\n"
         "spark = (SparkSession.builder.master('local[2]').config('spark.ui.enabled', 'false')\n"
         "         .config('spark.sql.shuffle.partitions', '2').getOrCreate())\n"
         "DATA = 'faces.parquet'")
CELLS = [
    "from pyspark.sql import functions as F",
    # a > 900 keeps 198 of the 2,000 rows, b > 990 keeps 18: the data ranks b's filter first
    "spark.range(0, 2000).selectExpr('CAST(id % 1000 AS INT) AS a', 'CAST((id * 7) % 1000 AS INT) AS b')"
    ".write.mode('overwrite').parquet(DATA)",
    "df = spark.read.parquet(DATA)",
    "@F.udf('int')\ndef opaque(a, b):\n    return hash((a, b)) % 3\n\n"
    "scored = df.withColumn('s', opaque(F.col('a'), F.col('b')))",
    "out = scored.filter((F.col('s') >= 0) & (F.col('a') > 900) & (F.col('b') > 990))\nout.count()",
]


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


@pytest.fixture
def two_alternatives(monkeypatch):
    """The search proposes the late filter's conjuncts on the source one by one, and the proof of
    their conjunction times out."""
    original = walk.proposals

    def one_by_one(node, pred, cands, budget):
        if isinstance(node, P.Project) and isinstance(node.child, P.Source) and cands:
            parts = X.conjuncts(cands[0].predicates[0])
            yield from ((SUPERSET, (g,)) for g in parts)
            return
        yield from original(node, pred, cands, budget)

    proved = alternatives._proved

    def conjunction_times_out(node, pred, g, budget):
        if isinstance(g[0], X.And) and len(X.conjuncts(g[0])) > 1:
            return None
        return proved(node, pred, g, budget)

    monkeypatch.setattr(walk, "proposals", one_by_one)
    monkeypatch.setattr(alternatives, "_proved", conjunction_times_out)


def _ranked(suggestions: list[dict[str, Any]]) -> list[tuple]:
    return [(s["source"], s["predicate"], s["kind"], tuple(a["predicate"] for a in s["alternatives"]), s["ranked"],
             s["rows_before"], s["rows_after"]) for s in suggestions]


def _cli(tmp_path: Path) -> list[tuple]:
    script = tmp_path / "faces.py"
    script.write_text("\n".join(f"# %%\n{src}\n" for src in [SETUP, *CELLS]))
    out = io.StringIO()
    assert main(["optimize", str(script), "--json", "--timeout", "300"], stdout=out) == 0
    return _ranked(json.loads(out.getvalue())["suggestions"])


def _magic(shell, tmp_path: Path) -> list[tuple]:
    ip, _ = shell
    ip.user_ns["DATA"] = str(tmp_path / "magic.parquet")
    run_cells(ip, CELLS)
    magicpush_result(ip, "")
    result = _loaded[id(ip)].last[0]
    return _ranked([s.to_json() for s in result.suggestions])


async def _route(jp_fetch, km, tmp_path: Path) -> list[tuple]:
    kernel_id = await km.start_kernel()
    client = km.get_kernel(kernel_id).client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        for code in ("%load_ext magicpush_lab", SETUP.replace("'faces.parquet'", repr(str(tmp_path / "route.parquet"))),
                     *CELLS):
            reply = await client.execute_interactive(code, timeout=180, output_hook=lambda msg: None)
            assert reply["content"]["status"] == "ok", reply["content"]
        reply = await client.execute_interactive("", user_expressions={"t": TRACE_EXPRESSION}, timeout=60,
                                                 output_hook=lambda msg: None)
        trace = reply["content"]["user_expressions"]["t"]["data"][TRACE_MIME]
        cells = [{"source": src, "cell_type": "code", "id": None} for src in CELLS]
        body = json.dumps({"trace": trace, "notebook": {"path": None, "cells": cells}, "kernel_id": kernel_id,
                           "measure": True})
        response = await jp_fetch("magicpush-lab", "optimize", method="POST", body=body, request_timeout=300)
        return _ranked(json.loads(response.body)["suggestions"])
    finally:
        client.stop_channels()
        await km.shutdown_kernel(kernel_id, now=True)


# about a minute (a replay, a kernel and a server): slow tier. In CI each face's ranking is
# tested on its own, and all three rank through assist.with_measurements
# (tests/test_suggestion_value.py)
@pytest.mark.slow
def test_the_cli_the_magic_and_the_sidebar_route_rank_alternatives_alike(two_alternatives, shell, tmp_path, jp_fetch,
                                                                         jp_serverapp):
    cli = _cli(tmp_path)
    magic = _magic(shell, tmp_path)
    loop = ensure_event_loop(prefer_selector_loop=True)
    route = loop.run_until_complete(_route(jp_fetch, jp_serverapp.kernel_manager, tmp_path))
    [(source, predicate, kind, others, ranked, before, after)] = cli
    # the search proposed a's filter first; counted on the notebook's rows, b's keeps fewer
    assert (source, kind, before, after) == ("df", SUPERSET, 2000, 18)
    assert "990" in predicate and len(others) == 1 and "900" in others[0]
    assert ranked == "keeps 18 rows of the first 2,000 rows; the alternative keeps 198"
    assert magic == cli
    assert route == cli
