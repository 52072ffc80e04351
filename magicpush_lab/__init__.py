"""MagicPush Lab: proved predicate pushdown for PySpark notebook pipelines."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "magicpush-lab"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "magicpush_lab"}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    """Register the HTTP routes of the server extension."""
    from magicpush_lab.server.routes import setup_handlers

    setup_handlers(server_app.web_app)
    server_app.log.info("magicpush_lab server extension loaded")


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext magicpush_lab`: start tracing PySpark calls and register `%magicpush`."""
    from magicpush_lab.kernel.extension import load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from magicpush_lab.kernel.extension import unload

    unload(ipython)
