"""Which ``Host`` headers a local HTTP server answers (``assay serve``, ``assay watch``).

A server bound to a loopback address answers only requests addressed to a loopback name:
a web page that points its own host name at 127.0.0.1 (DNS rebinding) sends its name in
``Host`` and is refused, so it cannot read the server or post to it. A server bound to
another address is meant to be reached by other names; it answers any ``Host`` (``assay
watch`` then requires its token).

Example:
    >>> is_loopback("localhost"), is_loopback("[::1]"), is_loopback("0.0.0.0")
    (True, True, False)
    >>> allowed_host_names("127.0.0.1")
    ['127.0.0.1', 'localhost', '::1', '[::1]']
    >>> allowed_host_names("127.0.0.2")[-1], allowed_host_names("0.0.0.0")
    ('127.0.0.2', None)
"""

from __future__ import annotations

import ipaddress

__all__ = ["LOOPBACK_NAMES", "allowed_host_names", "is_loopback"]

#: Host names that reach a server bound to a loopback address.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 maybe in brackets) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_host_names(host: str) -> list[str] | None:
    """The ``Host`` names a server listening on ``host`` answers (for starlette's
    ``TrustedHostMiddleware``): the loopback names and ``host`` itself when it is a loopback
    address, else ``None`` (any name)."""
    if not is_loopback(host):
        return None
    return list(dict.fromkeys([*LOOPBACK_NAMES, host]))
