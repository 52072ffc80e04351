"""`magicpush optimize`: replay notebooks, find proved pushdowns, measure them, optionally rewrite.

Exit codes: 0 every notebook was processed and every suggestion measured; 1 every
notebook was processed but some suggestion could not be measured (see the notes);
2 some notebook could not be processed (missing or unsupported file, a failing
cell, a dead kernel, an optimizer error, a Spark Connect server that cannot be reached,
refuses the token or stops answering during the replay) or the command line was wrong.

A Spark Connect token (the URL's `;token=`, or SPARK_CONNECT_AUTHENTICATE_TOKEN) is never
printed: every line and JSON object goes out with it masked as `***`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from magicpush_lab.budget import DEFAULT_SECONDS
from magicpush_lab.rewrite.merge import merged

EXIT_OK, EXIT_UNMEASURED, EXIT_FAILED = 0, 1, 2

#: the environment variable PySpark's builder takes a Spark Connect URL from
SPARK_REMOTE = "SPARK_REMOTE"

DESCRIPTION = """Replay each notebook (.ipynb or percent-format .py) in a fresh kernel with tracing on,
find predicates that can be pushed down to its sources (proved with Z3), count the rows
they remove, and print the suggestions."""

EPILOG = """output: a block per suggestion, per notebook; with --json one JSON object per notebook per line on stdout
({"notebook", "suggestions", "optimizer_seconds", "notes", "measure_errors", ...}, or
{"notebook", "error"} when the notebook failed). Progress goes to stderr.

exit codes: 0 all notebooks processed and all suggestions measured; 1 all notebooks processed,
some suggestion could not be measured; 2 some notebook could not be processed (missing or
unsupported file, failing cell, dead kernel, optimizer error, a Spark Connect server that cannot
be reached, refuses the token or stops answering) or bad arguments."""


class _Failure(Exception):
    """A notebook that could not be processed; the message names the file (and cell)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="magicpush", description="Proved predicate pushdown for PySpark notebooks.")
    sub = p.add_subparsers(dest="command", required=True)
    o = sub.add_parser("optimize", description=DESCRIPTION, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    o.add_argument("paths", nargs="+", metavar="PATH", help="notebooks to optimize")
    o.add_argument("--json", action="store_true", help="print one JSON object per notebook per line")
    o.add_argument("--no-measure", action="store_true", help="do not count rows before/after each filter")
    o.add_argument("--apply", action="store_true", help="write the notebooks with every suggestion applied")
    o.add_argument("-o", "--output", metavar="OUT",
                   help="with --apply: output file (one PATH) or directory (required for several PATHs)")
    o.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                   help="per-cell time limit while replaying (default 600)")
    o.add_argument("--budget", type=float, default=DEFAULT_SECONDS, metavar="SECONDS",
                   help=f"optimizer time budget per notebook (default {DEFAULT_SECONDS:g})")
    o.add_argument("--all-pipelines", action="store_true",
                   help="optimize every pipeline of the notebook (every sink), not only the longest")
    o.add_argument("--kernel", default="python3", help="Jupyter kernel to replay in (default python3)")
    o.add_argument("--remote", metavar="sc://HOST:PORT",
                   help="replay on this Spark Connect server: every session the notebook's builder makes "
                        "connects there, a master it sets is dropped (default: the notebook's own builder, "
                        "and SPARK_REMOTE when it is set); a token goes in the URL (sc://HOST:PORT/;token=...) "
                        "or in SPARK_CONNECT_AUTHENTICATE_TOKEN, and means TLS unless HOST is localhost")
    return p


def _progress(msg: str) -> None:
    _emit(msg, sys.stderr)


def _emit(text: str, stream: TextIO) -> None:
    """Print `text` to `stream`, with no Spark Connect token in it (`_scrubbed`). A reader that
    has gone (`magicpush optimize nb.ipynb | head`) is no failure: what is left to print goes
    nowhere, and the run does its work (--apply writes its files) and ends with the exit code it
    would have had."""
    try:
        print(_scrubbed(text), file=stream, flush=True)
    except BrokenPipeError:
        _to_devnull(stream)


def _scrubbed(text: str) -> str:
    """`text` without the Spark Connect tokens of this run (--remote's, SPARK_REMOTE's, the
    environment's SPARK_CONNECT_AUTHENTICATE_TOKEN): every sc:// URL's token parameter, and any
    other place a token's value appears (a server's or the client's error may quote it), as
    `***`. Tokens shorter than 4 characters are masked only as URL parameters: replacing such
    a string everywhere would garble the output."""
    from magicpush_lab.capture.connect_probe import shown_url, tokens_in_use
    from magicpush_lab.kernel.extension import REMOTE_VARIABLE

    text = shown_url(text)
    for token in tokens_in_use([os.environ.get(REMOTE_VARIABLE), os.environ.get(SPARK_REMOTE)]):
        if len(token) >= 4:
            text = text.replace(token, "***")
    return text


def _remote_url(args: argparse.Namespace) -> str | None:
    """The Spark Connect server the replays will use: --remote, else SPARK_REMOTE when it is a
    Connect URL (the notebook's builder connects there), else none."""
    if args.remote is not None:
        return args.remote
    env = os.environ.get(SPARK_REMOTE, "")
    return env if env.startswith("sc://") else None


def _server_problem(url: str) -> str | None:
    """Why the Connect server at `url` cannot serve the replays (unreachable, no TLS where the
    client will speak it, a refused or missing token), found within seconds; None when it can.
    Asked once, before any kernel starts: the replay would otherwise wait out the cell's time
    limit with no word of why."""
    from magicpush_lab.capture.connect_probe import check_server, shown_url

    _progress(f"checking the Spark Connect server at {shown_url(url)}")
    return check_server(url)


def _to_devnull(stream: TextIO) -> None:
    """Point `stream`'s file descriptor at the null device: Python flushes the stream again at
    exit, and a descriptor still on the closed pipe would print the error then."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a StringIO): nothing to redirect
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _output_path(path: Path, out: str, many: bool) -> Path:
    target = Path(out)
    if many or target.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return target / path.name
    return target


def cell_changes(result: Any) -> tuple[dict[int, str], list[str]]:
    """index -> rewritten source over all suggestions, the most valuable first. A pipeline with
    several suggestions is rewritten by its joint rewrite (`result.together`), as proved; when
    that holds a filter counted to remove no rows, by its most valuable suggestion alone
    instead (each is proved alone). A suggestion that removes no rows is not applied. A cell
    two rewrites change gets both where they change different lines (rewrite/merge.py), else
    the first one's text, and the later rewrite is reported as skipped."""
    from magicpush_lab.suggestion import removes_nothing

    joint = {t.pipeline: t for t in getattr(result, "together", ())}
    rewrites: list[tuple[str, Any]] = []
    skipped: list[str] = []
    done: set[Any] = set()
    for s in result.suggestions:  # in the result's order: the most valuable first
        t = joint.get(s.pipeline)
        if removes_nothing(s):
            skipped.append(f"not applied (no benefit: it removes no rows): filter on {s.source}")
        elif t is not None and not t.no_benefit:
            if t.pipeline not in done:
                rewrites.append((f"the {t.suggestions} filters of pipeline {t.pipeline}", t.cells))
        elif t is not None and t.pipeline in done:
            skipped.append(f"not applied (pipeline {t.pipeline} has a more valuable filter applied, and "
                           f"its joint rewrite holds a filter that removes no rows): filter on {s.source}")
        else:
            rewrites.append((f"filter on {s.source}", s.cells))
        if t is not None:
            done.add(t.pipeline)
    # a long withColumn chain's fold (rewrite/fold_columns.py): after the filters, where it changes other lines
    rewrites += [(f"the fold of {f.folded} withColumn calls", f.cells) for f in getattr(result, "folds", ())]
    changes: dict[int, str] = {}
    for what, cells in rewrites:
        texts = {c.index: merged(c.original, changes[c.index], c.rewritten) if c.index in changes else c.rewritten
                 for c in cells}
        if any(t is None for t in texts.values()):
            skipped.append(f"not applied (it changes lines of a cell another suggestion changed): {what}")
            continue
        changes.update(texts)  # type: ignore[arg-type]
    return changes, skipped


def optimize_one(path: Path, args: argparse.Namespace) -> Any:
    """Replay, optimize and measure one notebook (assist.replay_and_optimize); returns the
    OptimizeResult, and writes the rewritten notebook with --apply."""
    from magicpush_lab.assist import replay_and_optimize
    from magicpush_lab.budget import Budget
    from magicpush_lab.driver.notebook import write_document
    from magicpush_lab.driver.replay import ReplayError

    if not path.exists():
        raise _Failure(f"{path}: no such file")
    try:
        replayed = replay_and_optimize(path, Budget(args.budget), timeout=args.timeout, measure=not args.no_measure,
                                       all_pipelines=args.all_pipelines, kernel_name=args.kernel,
                                       progress=_progress)
    except (ValueError, OSError) as err:  # not a notebook
        raise _Failure(str(err)) from None
    except ReplayError as err:
        raise _Failure(str(err)) from None
    except NotImplementedError as err:
        raise _Failure(f"{path}: the optimizer is not available: {err}") from None
    except RuntimeError as err:  # kernel start-up problems surface as RuntimeError
        raise _Failure(f"{path}: {err}") from None
    except Exception as err:
        raise _Failure(f"{path}: the optimizer failed: {type(err).__name__}: {err}") from None
    result = replayed.result
    if args.apply:
        changes, skipped = cell_changes(result)
        for msg in skipped:
            _progress(f"{path.name}: {msg}")
        target = _output_path(path, args.output, len(args.paths) > 1)
        write_document(replayed.document, changes, target)
        _progress(f"{path.name}: wrote {target} ({len(changes)} cell(s) rewritten)")
    return result


def _unmeasured(result: Any, measure: bool) -> bool:
    return measure and any(s.rows_before is None for s in result.suggestions)


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    try:
        args = _parser().parse_args(argv)
    except BrokenPipeError:  # --help into a reader that has gone: argparse prints only help to stdout
        _to_devnull(sys.stdout)
        return EXIT_OK
    except SystemExit as exit_:
        return EXIT_OK if exit_.code == 0 else EXIT_FAILED
    if args.apply and not args.output:
        _emit("magicpush: --apply needs -o OUT", sys.stderr)
        return EXIT_FAILED
    if args.apply and len(args.paths) > 1 and Path(args.output).is_file():
        _emit("magicpush: with several notebooks, -o must be a directory", sys.stderr)
        return EXIT_FAILED
    if args.remote is not None:
        if not args.remote.startswith("sc://"):
            _emit("magicpush: --remote takes a Spark Connect URL, sc://HOST:PORT", sys.stderr)
            return EXIT_FAILED
    from magicpush_lab.kernel.extension import REMOTE_VARIABLE

    previous = os.environ.get(REMOTE_VARIABLE)
    if args.remote is not None:
        # the replay kernels inherit it; their tracing makes the notebook's builder connect there
        os.environ[REMOTE_VARIABLE] = args.remote
    try:
        remote = _remote_url(args)
        problem = _server_problem(remote) if remote is not None else None
        if problem is not None:
            return _fail_all(args, problem, out)
        return _optimize_all(args, out)
    finally:
        if previous is None:
            os.environ.pop(REMOTE_VARIABLE, None)
        else:
            os.environ[REMOTE_VARIABLE] = previous


def _fail_all(args: Any, message: str, out: TextIO) -> int:
    """Every notebook failed for one reason that is no notebook's (the Connect server)."""
    for raw in args.paths:
        _emit(f"magicpush: {raw}: {message}", sys.stderr)
        if args.json:
            _emit(json.dumps({"notebook": raw, "error": f"{raw}: {message}"}), out)
    return EXIT_FAILED


def _optimize_all(args: Any, out: TextIO) -> int:
    from magicpush_lab.kernel.report import render

    code = EXIT_OK
    for raw in args.paths:
        path = Path(raw)
        try:
            result = optimize_one(path, args)
        except _Failure as err:
            _emit(f"magicpush: {err}", sys.stderr)
            if args.json:
                _emit(json.dumps({"notebook": raw, "error": str(err)}), out)
            code = EXIT_FAILED
            continue
        if _unmeasured(result, not args.no_measure):
            code = max(code, EXIT_UNMEASURED)
        if args.json:
            _emit(json.dumps(result.to_json(notebook=raw)), out)
        else:
            _emit(f"== {raw}\n{render(result)['text/plain']}", out)
            if result.suggestions and not args.apply:
                _emit(rewrite_preview(result, raw), out)
    return code


def rewrite_preview(result: Any, path: str) -> str:
    """The cells every suggestion rewrites, as a diff of each, and the command that writes them.
    Cells are named as their prompts show them (cellref.cell_ref).

    >>> from magicpush_lab.suggestion import CellChange, OptimizeResult, Suggestion
    >>> change = CellChange(2, "df = spark.read.parquet(p)", "df = spark.read.parquet(p).filter(c)", 1)
    >>> s = Suggestion("df", "c", "superset", (), (change,), 0, {}, pipeline="out")
    >>> print(rewrite_preview(OptimizeResult((s,), 0.1), "nb.ipynb"))
    the rewritten cells:
    --- cell [1]
    +++ cell [1], rewritten
    -df = spark.read.parquet(p)
    +df = spark.read.parquet(p).filter(c)
    to write them: magicpush optimize nb.ipynb --apply -o OUT.ipynb
    """
    import difflib

    from magicpush_lab.cellref import cell_ref

    changes, skipped = cell_changes(result)
    originals = {c.index: c for s in result.suggestions for c in s.cells}
    lines = ["the rewritten cells:"]
    for index in sorted(changes):
        name = cell_ref(index, originals[index].execution_count)
        diff = difflib.unified_diff(originals[index].original.splitlines(), changes[index].splitlines(),
                                    name, f"{name}, rewritten", n=1, lineterm="")
        lines += [line for line in diff if not line.startswith("@@")]
    lines += skipped
    lines.append(f"to write them: magicpush optimize {path} --apply -o OUT.ipynb")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
