"""Server configuration for the Galata browser tests (`jlpm start`)."""

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is the config object of `jupyter lab --config`

# CI containers run as root.
c.ServerApp.allow_root = True
