"""Parsing notebook cells that may hold IPython syntax, keeping every position of the Python lines.

>>> tree = parse_cell("%matplotlib inline\\nx = 1\\n")
>>> tree.body[1].targets[0].id, tree.body[1].lineno
('x', 2)
"""

from __future__ import annotations

import ast
import re

# A line IPython rewrites before Python sees it: magics, shell escapes, `x = !cmd`, `obj?`.
_IPYTHON_LINE = re.compile(r"^\s*(%|!|[A-Za-z_][A-Za-z0-9_.]*\s*=\s*[%!])|^[^#]*\?\s*$")


def mask_ipython(source: str) -> str:
    """Replace IPython-only lines by `pass` at the same indentation; other lines keep their positions.

    >>> mask_ipython("%%time\\ny = 2")
    'pass\\ny = 2'
    """
    out = []
    for line in source.split("\n"):
        if _IPYTHON_LINE.match(line):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "pass")
        else:
            out.append(line)
    return "\n".join(out)


def parse_cell(source: str) -> ast.Module | None:
    """The cell's syntax tree, or None when it is not Python even after masking IPython lines."""
    try:
        return ast.parse(source)
    except SyntaxError:
        pass
    try:
        return ast.parse(mask_ipython(source))
    except SyntaxError:
        return None


def bound_names(tree: ast.Module) -> set[str]:
    """Names a cell binds at any level: imports, assignments, defs, classes.

    >>> sorted(bound_names(ast.parse("import a.b as c\\nfrom x import y\\nz = 1\\ndef f(): pass")))
    ['c', 'f', 'y', 'z']
    """
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                names.add(a.asname or a.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names
