"""Whether a Spark Connect server answers, asked before a request that would otherwise hang."""

from __future__ import annotations

from typing import Any

#: seconds a Spark Connect server has to answer before it counts as unreachable
CONNECT_PROBE_SECONDS = 5.0


def reachable(client: Any, timeout: float = CONNECT_PROBE_SECONDS) -> None:
    """ConnectionError unless the Connect client's channel is ready within `timeout` seconds (the
    client itself would retry a server that went away for minutes)."""
    import grpc

    future = grpc.channel_ready_future(client._channel)
    try:
        future.result(timeout=timeout)
    except grpc.FutureTimeoutError:
        raise ConnectionError(f"the Spark Connect server cannot be reached (no answer within {timeout:g} s)") \
            from None
    finally:
        future.cancel()  # its polling thread stops
