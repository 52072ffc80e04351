"""Jupyter server extension: HTTP routes and request validation.

The server never runs notebook code itself: row counts are measured by sending
a silent request to the notebook's own kernel (see `kernel_measure`).
"""
