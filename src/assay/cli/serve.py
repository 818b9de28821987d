"""``assay serve``: browse the run store in a web browser (runs, reports, rows, comparisons).

It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise, and then only
answers requests addressed to a loopback name, so a web page cannot reach it by DNS
rebinding. Only the review page's form writes to the store (people's labels), and only
from this server's own pages.

Example:
    >>> callable(serve), _url("127.0.0.1", 8400), _url("::1", 8400)
    (True, 'http://127.0.0.1:8400/', 'http://[::1]:8400/')
"""

from __future__ import annotations

import socket
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .._http_host import allowed_host_names, is_loopback
from ..errors import ConfigError
from ._errors import exit_on_errors
from ._options import StoreOption

__all__ = ["serve"]

err = Console(stderr=True)

def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def _check_free(host: str, port: int) -> None:
    """Raise ConfigError, naming the fix, when ``host:port`` cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host.strip("[]"), port))
        except OSError as e:
            raise ConfigError(f"Cannot listen on {host}:{port}: {e.strerror or e}. Fix: pick "
                              f"another port (--port {port + 1}), or stop the program using "
                              "it; --host must be an address of this machine.") from None


def serve(
    store: StoreOption = None,
    host: Annotated[str, typer.Option(
        help="Address to listen on. 127.0.0.1 keeps it to this machine; 0.0.0.0 shows your "
             "runs to anyone who can reach it.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8400,
) -> None:
    """Serve a local web UI over the run store: runs, reports, rows, comparisons, review."""
    with exit_on_errors("stopped."):
        try:
            import uvicorn

            from ..serve import create_app
        except ModuleNotFoundError as e:
            raise ConfigError(f"`assay serve` needs starlette and uvicorn ({e}). Fix: pip "
                              "install 'starlette>=0.37' 'uvicorn>=0.29'.") from None
        loopback = is_loopback(host)
        app = create_app(store, allowed_hosts=allowed_host_names(host))
        _check_free(host, port)
        typer.echo(f"assay serve: {_url(host, port)} (store {app.state.store.url}); "
                   "Ctrl-C stops it.")
        if not loopback:
            err.print(f"[yellow]warning:[/yellow] listening on {escape(host)}: anyone who can reach "
                      "this machine can read your runs and datasets. Use the default --host "
                      "127.0.0.1 to keep them local.", highlight=False)
        uvicorn.run(app, host=host.strip("[]"), port=port, log_level="warning")
