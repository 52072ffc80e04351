"""Jupyter kernels driven from outside them: saved notebooks replayed with tracing in a fresh
kernel (`replay`), the notebook files they come from and go back to (`notebook`), and the one
module the CLI and the server talk to kernels through (`kernels`).

Nothing here runs in the user's kernel (that is `capture`, `kernel`, `measure` and `runtime`):
the CLI and the Jupyter server use it to start kernels, run cells and ask them for the trace,
row counts and run times.
"""
