"""Whether a Spark Connect server answers, asked before a request that would otherwise hang, and
what to tell the user when it does not: every message about reaching a Connect server is here.

How the PySpark client connects (pyspark/sql/connect/client/core.py, `DefaultChannelBuilder`):
the URL is `sc://host:port/;param=value;...`; its `token` parameter, else the environment's
SPARK_CONNECT_AUTHENTICATE_TOKEN, is sent as a bearer token. A token turns TLS on, as does
`use_ssl=true`; only for the host spelled `localhost` (and no `use_ssl`) does a token go over
gRPC's local credentials, without TLS. So `sc://127.0.0.1:15002/;token=...` speaks TLS, and a
server without TLS (the stock one) never completes the handshake: the client retries and a cell
waits as long as it is let. A server requires a token when it is started with
`spark.connect.authenticate.token` or SPARK_CONNECT_AUTHENTICATE_TOKEN set; it refuses any other
with UNAUTHENTICATED.

No message here ever holds a token: URLs are shown through `shown_url`.
"""

from __future__ import annotations

import re
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

#: seconds a Spark Connect server has to answer before it counts as unreachable
CONNECT_PROBE_SECONDS = 5.0

#: the environment variable the PySpark client reads its token from when the URL has none
TOKEN_VARIABLE = "SPARK_CONNECT_AUTHENTICATE_TOKEN"

DEFAULT_PORT = 15002

_TOKEN_PARAM = re.compile(r"(?i)(;\s*token\s*=)[^;\s'\"]*")


@dataclass(frozen=True)
class ConnectTarget:
    """A Connect URL as the PySpark client reads it: where it connects and how."""

    url: str
    host: str
    port: int
    token: str | None  # the URL's, else the environment's
    use_ssl: bool  # the URL's `use_ssl=true`

    @property
    def tls(self) -> bool:
        """Whether the client speaks TLS to the server: `use_ssl`, or a token to any host but
        `localhost` (there a token goes over gRPC's local credentials)."""
        return self.use_ssl or (self.token is not None and self.host != "localhost")

    @property
    def shown(self) -> str:
        """The URL as messages show it: its token replaced by `***`."""
        return shown_url(self.url)


def shown_url(url: str) -> str:
    """`url` with its token parameter's value replaced by `***`.

    >>> shown_url("sc://db.example:15002/;user_id=ann;token=abc123;use_ssl=true")
    'sc://db.example:15002/;user_id=ann;token=***;use_ssl=true'
    """
    return _TOKEN_PARAM.sub(r"\1***", url)


def tokens_in_use(urls: list[str | None], environ: dict[str, str] | None = None) -> list[str]:
    """The tokens the client may send: each Connect URL's in `urls`, and the environment's
    (the process's when `environ` is None), to be kept out of everything shown.

    >>> tokens_in_use(["sc://h:1/;token=abc", None, "local[2]"], {TOKEN_VARIABLE: "xyz"})
    ['abc', 'xyz']
    """
    import os

    env = os.environ if environ is None else environ
    found: list[str] = []
    for url in urls:
        try:
            token = parse_target(url, {}).token if url else None
        except ValueError:
            continue
        if token and token not in found:
            found.append(token)
    token = env.get(TOKEN_VARIABLE)
    if token and token not in found:
        found.append(token)
    return found


def parse_target(url: str, environ: dict[str, str] | None = None) -> ConnectTarget:
    """The target of a Connect URL `sc://host[:port][/;param=value...]`, its token from the URL or
    else from `environ` (the process's environment when None); ValueError for another URL.

    >>> t = parse_target("sc://127.0.0.1:15003/;token=abc", {})
    >>> (t.host, t.port, t.token, t.tls)
    ('127.0.0.1', 15003, 'abc', True)
    >>> parse_target("sc://localhost", {TOKEN_VARIABLE: "xyz"}).tls  # a token over local credentials
    False
    """
    import os

    if not url.startswith("sc://"):
        raise ValueError(f"a Spark Connect URL starts with sc://, not {shown_url(url)!r}")
    rest = url[len("sc://"):]
    where, _, params_text = rest.partition("/")
    params = dict(_param(p) for p in params_text.split(";") if "=" in p)
    host, port = _host_port(where)
    env = os.environ if environ is None else environ
    token = params.get("token") or env.get(TOKEN_VARIABLE) or None
    return ConnectTarget(url, host, port, token, params.get("use_ssl", "").lower() == "true")


def _param(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    return key.strip(), value.strip()


def _host_port(where: str) -> tuple[str, int]:
    """("host", port) of `host[:port]` or `[v6]:port`; the client's default port when none."""
    if where.startswith("["):
        host, _, tail = where[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else ""
    else:
        host, _, port_text = where.partition(":")
    if not host:
        raise ValueError("a Spark Connect URL names a host: sc://HOST:PORT")
    try:
        return host, int(port_text) if port_text else DEFAULT_PORT
    except ValueError:
        raise ValueError(f"the port of a Spark Connect URL is a number, not {port_text!r}") from None


def target_of_client(client: Any) -> ConnectTarget | None:
    """The target a PySpark Connect client talks to, read from its channel builder; None when
    the builder is of a kind that does not say."""
    builder = getattr(client, "_builder", None)
    try:
        host = builder.host.strip("[]")
        port = int(builder.endpoint.rsplit(":", 1)[1])
        url = builder.url.geturl()
        return ConnectTarget(url, host, port, builder.token, bool(builder.use_ssl))
    except Exception:  # a custom channel builder: nothing to read
        return None


# -- the messages ----------------------------------------------------------------------------------
_TLS_FIXES = ("connect to the host spelled `localhost` (through an SSH tunnel to the server's machine, "
              "`ssh -L {port}:localhost:{port} HOST`, when it is elsewhere), where a token goes without TLS; "
              "or turn TLS on in front of the server (a proxy that ends TLS, or the server's own)")


def unreachable_message(target: ConnectTarget, why: str) -> str:
    return (f"the Spark Connect server cannot be reached at {target.shown} ({why}): check the host and port, "
            "and that the server runs")


def tls_mismatch_message(target: ConnectTarget) -> str:
    if target.use_ssl:
        return (f"the Spark Connect server at {target.shown} does not answer TLS: the URL asks for it "
                "(use_ssl=true), and the server speaks without it. To fix it: drop use_ssl=true, or turn TLS "
                "on in front of the server (a proxy that ends TLS, or the server's own)")
    return (f"the Spark Connect server at {target.shown} does not answer TLS: a token makes the PySpark client "
            "use TLS for any host but `localhost`, and the server speaks without it. To fix it: "
            + _TLS_FIXES.format(port=target.port))


def refused_token_message(target: ConnectTarget, details: str) -> str:
    if target.token is None:
        return (f"the Spark Connect server at {target.shown} requires a token (UNAUTHENTICATED: {details}): "
                f"add it to the URL (sc://HOST:PORT/;token=...) or set {TOKEN_VARIABLE}")
    return (f"the Spark Connect server at {target.shown} refused the token (UNAUTHENTICATED: {details}): "
            f"check the URL's token parameter or {TOKEN_VARIABLE}")


def refused_request_message(details: str) -> str:
    """A request of a session already made was refused for its token (the server was restarted
    with another one, or the token was changed under the session)."""
    said = f": {shown_url(details)}" if details else ""
    return (f"the Spark Connect server refused the session's token (UNAUTHENTICATED{said}): check the URL's "
            f"token parameter or {TOKEN_VARIABLE}, and start a new session")


def server_gone_message(target: ConnectTarget, seconds: float) -> str:
    return (f"the Spark Connect server at {target.shown} stopped answering while the cell ran (no connection "
            f"for {seconds:.0f} s): the cell was interrupted; start the server again and rerun")


# -- asking the server -----------------------------------------------------------------------------
def accepts_connections(target: ConnectTarget, timeout: float = CONNECT_PROBE_SECONDS) -> str | None:
    """None when a TCP connection to the target opens within `timeout`, else why not. Cheap: what
    a watch while a cell runs asks every second."""
    try:
        with socket.create_connection((target.host, target.port), timeout=timeout):
            return None
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as err:
        return err.strerror or type(err).__name__


def answers_tls(target: ConnectTarget, timeout: float = CONNECT_PROBE_SECONDS) -> bool:
    """Whether the server completes a TLS handshake (its certificate unchecked: this asks only
    whether it speaks TLS at all; nothing is sent over it)."""
    import ssl

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        with socket.create_connection((target.host, target.port), timeout=timeout) as raw, \
                context.wrap_socket(raw, server_hostname=target.host):
            return True
    except (OSError, ValueError):  # ssl.SSLError is an OSError: a plain server answers garbage or hangs up
        return False


def check_server(url: str, timeout: float = CONNECT_PROBE_SECONDS, environ: dict[str, str] | None = None) -> str | None:
    """None when the Connect server at `url` can be reached the way the PySpark client will reach
    it and accepts its token (or needs none); else the message that says what is wrong and how
    to fix it. Within about `timeout` seconds per step: a connection, a TLS handshake when the
    client will speak TLS, one request with the client's own channel."""
    try:
        target = parse_target(url, environ)
    except ValueError as err:
        return str(err)
    down = accepts_connections(target, timeout)
    if down is not None:
        return unreachable_message(target, down)
    if target.tls and not answers_tls(target, timeout):
        return tls_mismatch_message(target)
    return _request_refused(target, timeout)


def _request_refused(target: ConnectTarget, timeout: float) -> str | None:
    """The message when one request on the client's channel to `target` is refused (a wrong or
    missing token) or never answered; None when it is answered. The request releases a session
    id nobody has: the server checks the token first and then has nothing to do."""
    try:
        import grpc
        from pyspark.sql.connect.client.core import DefaultChannelBuilder
        from pyspark.sql.connect.proto import base_pb2, base_pb2_grpc
    except ImportError:  # no Connect client here: the replay kernel's own will say what is missing
        return None

    builder = DefaultChannelBuilder(_with_token(target))
    channel = builder.toChannel()
    try:
        request = base_pb2.ReleaseSessionRequest(session_id=str(uuid.uuid4()), client_type="magicpush-probe")
        request.user_context.user_id = builder.userId or "magicpush"
        base_pb2_grpc.SparkConnectServiceStub(channel).ReleaseSession(request, timeout=timeout,
                                                                      metadata=builder.metadata())
    except grpc.RpcError as err:
        code = err.code() if callable(getattr(err, "code", None)) else None
        details = (err.details() if callable(getattr(err, "details", None)) else "") or ""
        if code == grpc.StatusCode.UNAUTHENTICATED:
            return refused_token_message(target, shown_url(details))
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            return unreachable_message(target, f"{code.name}: {shown_url(details)[:200]}")
        return None  # answered: any other refusal is about the made-up session, not the connection
    finally:
        channel.close()
    return None


def _with_token(target: ConnectTarget) -> str:
    """The target's URL with the token it uses as a parameter (the environment's, when the URL
    has none), so that the probe's channel is built as the client's will be."""
    if target.token is None or _TOKEN_PARAM.search(target.url):
        return target.url
    base = target.url if "/" in target.url[len("sc://"):] else target.url + "/"
    return f"{base};token={target.token}"


def reachable(client: Any, timeout: float = CONNECT_PROBE_SECONDS) -> None:
    """ConnectionError unless the Connect client's channel is ready within `timeout` seconds (the
    client itself would retry a server that went away for minutes). The error says why when it
    can: a server that speaks no TLS to a client that does, with the fixes."""
    import grpc

    future = grpc.channel_ready_future(client._channel)
    try:
        future.result(timeout=timeout)
    except grpc.FutureTimeoutError:
        raise ConnectionError(_why_not_ready(target_of_client(client), timeout)) from None
    finally:
        future.cancel()  # its polling thread stops


def _why_not_ready(target: ConnectTarget | None, timeout: float) -> str:
    if target is not None and target.tls and accepts_connections(target, timeout) is None \
            and not answers_tls(target, timeout):
        return tls_mismatch_message(target)
    where = f" at {target.shown}" if target is not None else ""
    return f"the Spark Connect server cannot be reached{where} (no answer within {timeout:g} s)"


def watch(target: ConnectTarget, down_for: float = 3.0,
          probe: Callable[[ConnectTarget], str | None] | None = None) -> Callable[[], float | None]:
    """A function to call now and then while work that needs the server runs: it returns the
    seconds the server has refused connections when that is `down_for` or more, else None. A
    server that refused from the start is never reported (the work may not need it)."""
    ask = probe or (lambda t: accepts_connections(t, 1.0))
    seen_up = False
    down_since: float | None = None

    def look() -> float | None:
        nonlocal seen_up, down_since
        now = time.monotonic()
        if ask(target) is None:
            seen_up, down_since = True, None
            return None
        if not seen_up:
            return None
        down_since = now if down_since is None else down_since
        return now - down_since if now - down_since >= down_for else None

    return look
