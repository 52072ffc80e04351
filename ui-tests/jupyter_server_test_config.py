"""Server configuration for the Galata browser tests (`jlpm start`)."""

import json
import os
import sys
import tempfile
from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 - `c` is the config object of `jupyter lab --config`

# CI containers run as root.
c.ServerApp.allow_root = True  # noqa: F821

# The kernels the tests start inherit this environment: their short-lived Spark drivers compile
# with C1 only, which halves a session's start-up on 2 cores (tests/conftest.py says more).
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1")

# A second kernel for tests/connect.spec.ts, whose PySpark sessions are Spark Connect ones:
# SPARK_API_MODE=connect makes a notebook's SparkSession.builder.master("local[2]") start a
# local Connect server in the kernel (on port 15002) and connect to it. A notebook picks it by
# its kernelspec's name; the default kernel, python3, stays as it is for the other tests.
CONNECT_KERNEL = "python3-spark-connect"
_data = Path(tempfile.mkdtemp(prefix="magicpush-ui-tests-"))
(_data / "kernels" / CONNECT_KERNEL).mkdir(parents=True)
(_data / "kernels" / CONNECT_KERNEL / "kernel.json").write_text(json.dumps({
    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
    "display_name": "Python 3 (Spark Connect)",
    "language": "python",
    "env": {"SPARK_API_MODE": "connect"},
}))
os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (os.environ.get("JUPYTER_PATH"), str(_data)) if p)
