"""The replay route's kernels: bounded by a deadline, stopped when the client goes away, listed
and shut down by the server like any other kernel, and never holding the server up.

The probe of issue 22 found replays without an overall limit or a cancel: two abandoned
`sleep(600)` replays kept the replay threads busy (a third request waited 80 s), their kernels
were invisible to `/api/kernels` and the culler, and a running replay delayed the server's
shutdown by 85 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tornado.httpclient import HTTPClientError

pytest_plugins = ("pytest_jupyter.jupyter_server",)

SLOW = "# %%\nimport time\n\n# %%\ntime.sleep(600)\n"
QUICK = "# %%\nx = 1\n\n# %%\ny = x + 1\n"
#: the server started by a test imports this checkout's package, installed or not
REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}


@pytest.fixture
def root(jp_root_dir: Path) -> Path:
    (jp_root_dir / "slow.py").write_text(SLOW)
    (jp_root_dir / "quick.py").write_text(QUICK)
    return jp_root_dir


def replay(jp_fetch, path: str, client_timeout: float, **fields: Any) -> "asyncio.Future[Any]":
    """A replay request; its client gives up (closing the connection) after `client_timeout` s."""
    body = json.dumps({"path": path, "measure": False, **fields})
    return asyncio.ensure_future(jp_fetch("magicpush-lab", "replay", method="POST", body=body,
                                          request_timeout=client_timeout))


async def wait_for(condition: Any, seconds: float, what: str) -> Any:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        value = condition()
        if value:
            return value
        await asyncio.sleep(0.2)
    raise AssertionError(f"waited {seconds:g} s for {what}")


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead
    except OSError:
        return False


def descendants(pid: int) -> dict[int, str]:
    """Every process below `pid`, with its command line (read from /proc, no psutil)."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parents[int(entry)] = int(stat.read().split(")")[-1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmd:
                commands[int(entry)] = cmd.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, p in parents.items():
            if p == parent and child not in found:
                found[child] = commands.get(child, "")
                todo.append(child)
    return found


async def test_a_replay_past_its_deadline_is_422_and_its_kernel_is_gone(jp_fetch, jp_serverapp, root):
    started = time.monotonic()
    with pytest.raises(HTTPClientError) as err:
        await replay(jp_fetch, "slow.py", 120, timeout=600, deadline=4)
    reply = json.loads(err.value.response.body)
    assert (err.value.code, reply["kind"], reply["ename"]) == (422, "replay_failed", "DeadlineExceeded"), reply
    assert reply["cell_index"] == 1 and "deadline of 4 s" in reply["evalue"]
    assert time.monotonic() - started < 30
    assert jp_serverapp.kernel_manager.list_kernel_ids() == []


def test_the_deadline_has_a_default_and_a_maximum():
    from magicpush_lab.server.validation import DEFAULT_REPLAY_DEADLINE, RequestError, parse_replay_request

    assert parse_replay_request(b'{"path": "a.py"}').deadline == DEFAULT_REPLAY_DEADLINE
    with pytest.raises(RequestError, match="'deadline' must be between 1 and 7200"):
        parse_replay_request(b'{"path": "a.py", "deadline": 7201}')


async def test_a_running_replay_is_a_kernel_the_server_lists_and_its_client_leaving_stops_it(
        jp_fetch, jp_serverapp, root):
    km = jp_serverapp.kernel_manager
    request = replay(jp_fetch, "slow.py", 6, timeout=600)
    kernel_id = await wait_for(lambda: next(iter(km.list_kernel_ids()), None), 60, "the replay's kernel")
    listed = json.loads((await jp_fetch("api", "kernels")).body)
    assert [k["id"] for k in listed] == [kernel_id]
    pid = km.get_kernel(kernel_id).provisioner.pid
    await wait_for(lambda: km.get_kernel(kernel_id).execution_state == "busy", 30, "the slow cell to run")
    with pytest.raises(HTTPClientError) as err:  # the client gives up after 6 s and closes the connection
        await request
    assert err.value.code == 599
    await wait_for(lambda: km.list_kernel_ids() == [], 20, "the abandoned replay's kernel to shut down")
    await wait_for(lambda: not pid_alive(pid), 20, "the kernel's process to end")
    assert json.loads((await jp_fetch("api", "kernels")).body) == []


async def test_abandoned_replays_do_not_hold_up_the_next_one(jp_fetch, jp_serverapp, root):
    km = jp_serverapp.kernel_manager
    abandoned = [replay(jp_fetch, "slow.py", 8, timeout=600) for _ in range(2)]
    await wait_for(lambda: len(km.list_kernel_ids()) == 2, 60, "both slow replays' kernels")
    for request in abandoned:
        with pytest.raises(HTTPClientError):
            await request
    started = time.monotonic()
    response = await replay(jp_fetch, "quick.py", 120, timeout=60)
    assert response.code == 200 and json.loads(response.body)["notebook"] == "quick.py"
    assert time.monotonic() - started < 30
    await wait_for(lambda: km.list_kernel_ids() == [], 20, "every replay's kernel to shut down")


# -- the server's own shutdown ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(port: int, token: str, method: str, path: str, body: Any = None, timeout: float = 10) -> Any:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


@pytest.mark.kernel
def test_a_running_replay_does_not_delay_the_servers_shutdown(tmp_path):
    (tmp_path / "slow.py").write_text(SLOW)
    port, token = _free_port(), "magicpush-shutdown-test"
    # a configuration of its own: the extension enabled, nothing of the machine's own settings
    config = tmp_path / "config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"magicpush_lab": True}}}))
    log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}",
         "--ServerApp.open_browser=False", "--ServerApp.allow_root=True"],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(config), "PYTHONPATH": os.pathsep.join(
            p for p in (str(REPOSITORY), os.environ.get("PYTHONPATH")) if p)})
    try:
        ends = time.monotonic() + 90
        while True:
            try:
                _call(port, token, "GET", "/magicpush-lab/health")
                break
            except OSError:
                if time.monotonic() > ends or server.poll() is not None:
                    raise AssertionError((tmp_path / "server.log").read_text()[-3000:]) from None
                time.sleep(0.5)
        client = threading.Thread(target=lambda: _ignore(_call, port, token, "POST", "/magicpush-lab/replay",
                                                         {"path": "slow.py", "measure": False}, 300), daemon=True)
        client.start()
        ends = time.monotonic() + 60
        while not _call(port, token, "GET", "/api/kernels"):
            assert time.monotonic() < ends, "the replay's kernel never showed in /api/kernels"
            time.sleep(0.5)
        time.sleep(2)  # the slow cell is running
        kernels = {pid: cmd for pid, cmd in descendants(server.pid).items() if "ipykernel" in cmd}
        assert kernels, descendants(server.pid)
        started = time.monotonic()
        _ignore(_call, port, token, "POST", "/api/shutdown")
        server.wait(timeout=60)
        took = time.monotonic() - started
        assert took < 20, f"the server took {took:.0f} s to stop"
        for pid in kernels:
            ends = time.monotonic() + 10
            while pid_alive(pid) and time.monotonic() < ends:
                time.sleep(0.2)
            assert not pid_alive(pid), f"kernel process {pid} outlived the server"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGKILL)
            server.wait()
        log.close()


def _ignore(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except Exception:  # the server went away mid-request: expected here
        pass
