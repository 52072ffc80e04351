"""Print docs/pyspark_coverage.md from magicpush_lab/translate/coverage.py, or write it with --write."""

from __future__ import annotations

import argparse
import pathlib
import sys

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "pyspark_coverage.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {DOC.name} instead of printing it")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(DOC.parent.parent))
    from magicpush_lab.translate.coverage import markdown, missing

    gaps = missing()
    if gaps:
        print(f"not in the table: {gaps}", file=sys.stderr)
    if args.write:
        DOC.write_text(markdown())
    else:
        print(markdown(), end="")
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
