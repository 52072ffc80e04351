"""The corpus on disk: one directory per pipeline, read and checked without Spark.

    corpus/<name>/pipeline.py    the notebook, percent format (cells split at `# %%` lines)
    corpus/<name>/data.py        tables(rows, seed) -> {table: pandas.DataFrame}
    corpus/<name>/expected.toml  origin, what, sink, and per table the hand-derived best predicate

README.md beside this file is the format's reference; `validate` checks a directory against it
(`python -m benchmarks.reach --validate`).

>>> [(c.source, c.markdown) for c in split_cells("import os\\n# %%\\nx = 1\\n# %% [markdown]\\n# Notes\\n")]
[('import os', False), ('x = 1', False), ('# Notes', True)]
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import tomllib

CORPUS = Path(__file__).parent / "corpus"
FILES = ("pipeline.py", "data.py", "expected.toml")
KINDS = ("equivalent", "superset")
_CELL_MARK = re.compile(r"^# %%(?P<rest>.*)$")
_READ = re.compile(r"""spark\.read\.parquet\(\s*f["']\{DATA\}/(?P<table>[A-Za-z0-9_]+)["']\s*\)""")


@dataclass(frozen=True)
class Cell:
    source: str
    markdown: bool = False


@dataclass(frozen=True)
class Source:
    """One table the pipeline reads, and what may move to its read."""

    table: str
    best: str = ""  # PySpark Column code over F / F.col; "" when nothing may move there
    kind: str = ""  # "equivalent" or "superset" (only with a best)
    why: str = ""
    trap_best: str = ""  # the obvious but wrong predicate here, which the data must show wrong


@dataclass(frozen=True)
class Pipeline:
    name: str
    directory: Path
    cells: tuple[Cell, ...]
    origin: str
    what: str
    sink: str  # the variable holding the pipeline's final DataFrame (Spark or pandas)
    measure: str  # the Spark DataFrame whose reads are counted: the sink, or what it collected
    late_input: str  # the variable the late filter is applied to ("" when not named)
    sources: tuple[Source, ...]
    nothing_may_move: bool = False
    trap: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def code_cells(self) -> list[str]:
        return [c.source for c in self.cells if not c.markdown]

    @property
    def reducible(self) -> bool:
        """Some table's read can hand on fewer rows than the original pipeline needs."""
        return any(s.best for s in self.sources)

    @property
    def traps(self) -> dict[str, str]:
        return {s.table: s.trap_best for s in self.sources if s.trap_best}

    @property
    def tables(self) -> list[str]:
        return [s.table for s in self.sources]

    @property
    def bests(self) -> dict[str, str]:
        return {s.table: s.best for s in self.sources if s.best}

    @property
    def data_path(self) -> Path:
        return data_file(self.directory)

    def data_module(self) -> ModuleType:
        return _load_module(self.data_path, f"reach_corpus_{self.name}_data")


def data_file(directory: Path) -> Path:
    """The pipeline's data.py: its own, or that of the directory its expected.toml names as
    `data` (variants of one fold family share their family's tables)."""
    own = directory / "data.py"
    if own.is_file() or not (directory / "expected.toml").is_file():
        return own
    shared = tomllib.loads((directory / "expected.toml").read_text()).get("data")
    return directory.parent / shared / "data.py" if isinstance(shared, str) else own


def split_cells(text: str) -> list[Cell]:
    """A percent-format script's cells, in order: code before the first marker is a cell of
    its own; a cell marked `[markdown]` keeps its comment lines as they are."""
    cells: list[Cell] = []
    lines: list[str] = []
    markdown = False

    def close() -> None:
        source = "\n".join(lines).strip("\n")
        if source.strip():
            cells.append(Cell(source, markdown))

    for line in text.splitlines():
        mark = _CELL_MARK.match(line)
        if mark is None:
            lines.append(line)
            continue
        close()
        lines, markdown = [], "[markdown]" in mark.group("rest")
    close()
    return cells


def names(root: Path = CORPUS) -> list[str]:
    """The corpus's pipelines, by directory name (every directory counts, complete or not)."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def load(name: str, root: Path = CORPUS) -> Pipeline:
    """Read one pipeline's directory; raises ValueError with every problem `validate` finds."""
    problems = validate(name, root)
    if problems:
        raise ValueError(f"{name}: " + "; ".join(problems))
    return _read(root / name)


def _read(directory: Path) -> Pipeline:
    spec = tomllib.loads((directory / "expected.toml").read_text())
    sources = tuple(Source(table, str(s.get("best", "")).strip(), str(s.get("kind", "")), str(s.get("why", "")),
                           str(s.get("trap_best", "")).strip())
                    for table, s in spec.get("sources", {}).items())
    known = {"origin", "what", "sink", "measure", "late_input", "sources", "nothing_may_move", "trap"}
    return Pipeline(
        name=directory.name, directory=directory,
        cells=tuple(split_cells((directory / "pipeline.py").read_text())),
        origin=spec["origin"], what=spec["what"], sink=spec["sink"],
        measure=spec.get("measure", spec["sink"]), late_input=spec.get("late_input", ""),
        sources=sources, nothing_may_move=bool(spec.get("nothing_may_move", False)),
        trap=spec.get("trap", ""), extra={k: v for k, v in spec.items() if k not in known})


def read_tables(cells: list[str]) -> list[str]:
    """The tables the notebook reads, as `spark.read.parquet(f"{DATA}/<table>")` names them."""
    return sorted({m.group("table") for c in cells for m in _READ.finditer(c)})


def validate(name: str, root: Path = CORPUS) -> list[str]:
    """Everything wrong with one pipeline's directory, as sentences (empty: it is well formed).
    Checks the files, the keys and their types, that each `best` parses as a Python
    expression, and that the tables in expected.toml are the ones the notebook reads."""
    directory = root / name
    missing = [f for f in FILES if not (data_file(directory) if f == "data.py" else directory / f).is_file()]
    if missing:
        return [f"missing {', '.join(missing)}"]
    try:
        spec = tomllib.loads((directory / "expected.toml").read_text())
    except tomllib.TOMLDecodeError as err:
        return [f"expected.toml: {err}"]
    problems = _spec_problems(spec)
    cells = [c.source for c in split_cells((directory / "pipeline.py").read_text()) if not c.markdown]
    problems += _pipeline_problems(cells, spec)
    problems += _data_problems(data_file(directory))
    return problems


def _spec_problems(spec: dict) -> list[str]:
    problems = [f"expected.toml: `{key}` is missing or not a non-empty string"
                for key in ("origin", "what", "sink")
                if not isinstance(spec.get(key), str) or not spec[key].strip()]
    sources = spec.get("sources")
    if not isinstance(sources, dict) or not sources:
        return problems + ["expected.toml: no [sources.<table>] section"]
    any_best = False
    for table, s in sources.items():
        at = f"expected.toml [sources.{table}]"
        best = str(s.get("best", "")).strip()
        if not isinstance(s.get("why"), str) or not s["why"].strip():
            problems.append(f"{at}: `why` is missing")
        for key in ("best", "trap_best"):
            code = str(s.get(key, "")).strip()
            try:
                if code:
                    ast.parse(code, mode="eval")
            except SyntaxError as err:
                problems.append(f"{at}: `{key}` is not a Python expression ({err.msg})")
        if not best:
            continue
        any_best = True
        if s.get("kind") not in KINDS:
            problems.append(f"{at}: `kind` must be one of {', '.join(KINDS)}")
    moves_nothing = spec.get("nothing_may_move", False)
    if moves_nothing and any_best:
        problems.append("expected.toml: `nothing_may_move = true` but a table has a `best`")
    if moves_nothing and not str(spec.get("trap", "")).strip():
        problems.append("expected.toml: `nothing_may_move = true` needs `trap` (why the obvious pushdown is wrong)")
    if not moves_nothing and not any_best:
        problems.append("expected.toml: no table has a `best`; say `nothing_may_move = true` and give the `trap`")
    return problems


def _pipeline_problems(cells: list[str], spec: dict) -> list[str]:
    if not cells:
        return ["pipeline.py: no code cell"]
    problems = []
    for i, cell in enumerate(cells):
        try:
            ast.parse(cell)
        except SyntaxError as err:
            problems.append(f"pipeline.py code cell {i + 1}: {err.msg} (line {err.lineno})")
    if "REACH_DATA" not in cells[0] or "SparkSession" not in cells[0]:
        problems.append("pipeline.py: the first cell must make `spark` and set "
                        'DATA = os.environ.get("REACH_DATA", ...)')
    read = read_tables(cells)
    declared = sorted(spec.get("sources", {}) or {})
    if read != declared:
        problems.append(f"the notebook reads {read or 'no table'} but expected.toml has sources {declared}")
    for key in ("sink", "measure", "late_input"):
        var = spec.get(key)
        if isinstance(var, str) and var and not any(re.search(rf"^\s*{re.escape(var)}\s*=", c, re.MULTILINE) for c in cells):
            problems.append(f"pipeline.py never assigns `{var}` (expected.toml `{key}`)")
    return problems


def _data_problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    tables = funcs.get("tables")
    if tables is None or [a.arg for a in tables.args.args] != ["rows", "seed"]:
        return ["data.py: needs `def tables(rows, seed)`"]
    return []


def _load_module(path: Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
