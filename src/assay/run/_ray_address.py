"""Check that the Ray cluster a run is to join answers, before Ray is asked to join it.

``ray.init(address=...)`` on an address nothing listens on retries for minutes, logging a
warning every few seconds, and ``address="auto"`` with no cluster raises a bare
``ConnectionError``: a CI job would hang or end in a traceback. :func:`check_ray_address`
opens one TCP connection to the cluster's address (a few seconds at most) and turns every way
of not finding it into one :class:`~assay.errors.ConfigError` that names the address and the fix.

Example:
    >>> ray_host_port("ray://head.internal:10001"), ray_host_port("10.0.0.5:6379")
    (('head.internal', 10001), ('10.0.0.5', 6379))
    >>> try:
    ...     check_ray_address("127.0.0.1:1")
    ... except ConfigError as e:
    ...     print(str(e)[:59])
    Cannot reach the Ray cluster at ray_address='127.0.0.1:1' (
"""

from __future__ import annotations

import socket
from typing import Any

from ..errors import ConfigError, option

__all__ = ["CONNECT_TIMEOUT_S", "check_ray_address", "ray_cluster_error", "ray_host_port"]

#: Seconds to wait for the cluster's address to accept a connection.
CONNECT_TIMEOUT_S = 5.0
#: The port of a Ray client address (``ray://HOST``) that names none.
_CLIENT_PORT = 10001


def ray_host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a Ray address (``HOST:PORT`` or ``ray://HOST[:PORT]``), or None
    when it has no port to probe (a GCS address without one)."""
    text = address.strip()
    client = text.startswith("ray://")
    text = text.removeprefix("ray://").split("/", 1)[0]
    host, sep, port = text.rpartition(":")
    if not sep:
        return (text, _CLIENT_PORT) if client and text else None
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        return None


def check_ray_address(address: str, *, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise a ConfigError unless the cluster at ``address`` accepts a TCP connection.

    ``auto`` is looked up as Ray looks it up (``RAY_ADDRESS``, then the cluster this machine
    last started); ``local`` (start one) needs no check.

    Raises:
        ConfigError: no cluster found for ``auto``, or the address refuses, times out or does
            not resolve; the message names the address and the fix.
    """
    if address.strip() in ("", "local"):
        return
    target = address.strip()
    if target == "auto":
        found = _auto_address()
        if found is None:
            raise ray_cluster_error(address, "no running Ray cluster was found on this "
                                    "machine, and RAY_ADDRESS is not set")
        target = found
    host_port = ray_host_port(target)
    if host_port is None:
        return  # an address form we cannot probe: Ray says what it makes of it
    try:
        with socket.create_connection(host_port, timeout=timeout):
            pass
    except OSError as e:
        why = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise ray_cluster_error(address, f"{host_port[0]}:{host_port[1]}: {why}") from None


def ray_cluster_error(address: str, why: str) -> ConfigError:
    """The one-line error for a Ray cluster that cannot be joined.

    Example:
        >>> print(ray_cluster_error("auto", "no running Ray cluster was found"))  # doctest: +ELLIPSIS
        Cannot reach the Ray cluster at ray_address='auto' (no running Ray cluster was found). Fix: ...
    """
    return ConfigError(
        f"Cannot reach the Ray cluster at {option('ray_address', address)} ({why}). Fix: start "
        f"it (ray start --head) or give {option('ray_address')} the address it printed, leave "
        f"{option('ray_address')} out for a local Ray instance, or use "
        f"{option('engine', 'local')} to score in this process.")


def _auto_address() -> str | None:
    """The address ``ray.init(address="auto")`` would join, or None when there is none."""
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # a Ray without it: "auto" is not probed, ray.init says what it finds
        return "auto"
    try:
        found: Any = canonicalize_bootstrap_address("auto")
    except (ConnectionError, ValueError):
        return None
    return str(found) if found else None
