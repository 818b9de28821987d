"""``MODEL@URL`` in a spec (``--judge openai:MODEL@URL``, ``--embeddings``, ``--target``): where
the model ends and the endpoint begins, and what a URL's credentials mean.

The URL starts at the first ``@http://`` or ``@https://``: the credentials of
``https://user:password@host/v1`` hold an ``@`` too, so the last ``@`` is not the split.

A URL's ``user:password@`` is sent as HTTP Basic auth (``Authorization: Basic ...``), which is
what the URL means to httpx, curl and the ``openai`` client itself (e.g. a vLLM or Ollama server
behind a proxy that asks for a login): it takes the place of the bearer key, since a request
carries one ``Authorization`` header. The credentials are kept out of the URL the client holds
and of the judge's id (``openai:m@https://user:***@host/v1``), and are remembered as secrets, so
that :func:`assay._secrets.mask_secrets` masks them wherever a server echoes them.

Example:
    >>> split_model_url("gpt-4o-mini@https://bob:hunter2@h.example/v1")
    ('gpt-4o-mini', 'https://bob:hunter2@h.example/v1')
    >>> split_model_url("gpt-4o-mini")
    ('gpt-4o-mini', None)
"""

from __future__ import annotations

import base64
import re
from typing import Any

from .._secrets import remember_url_credentials, url_with_masked_userinfo, url_without_userinfo
from ..errors import ConfigError

__all__ = ["basic_auth_header", "client_endpoint", "public_url", "split_model_url"]

_URL_START = re.compile(r"@(?=https?://)", re.IGNORECASE)


def split_model_url(arg: str, *, option: str = "--judge openai:MODEL@URL") -> tuple[str, str | None]:
    """``(model, url)`` from ``MODEL@URL`` (``url`` is ``None`` when ``arg`` names no URL).

    Example:
        >>> split_model_url("m@b@http://127.0.0.1:8101/v1")
        ('m@b', 'http://127.0.0.1:8101/v1')
        >>> split_model_url("@http://h/v1")
        Traceback (most recent call last):
        ...
        assay.errors.ConfigError: Got --judge openai:MODEL@URL with no MODEL before '@http://h/v1'. Fix: name the model, e.g. openai:gpt-4o-mini@http://h/v1.
    """
    m = _URL_START.search(arg)
    if m is None:
        return arg, None
    model, url = arg[:m.start()], arg[m.end():]
    if not model:
        raise ConfigError(f"Got {option} with no MODEL before '@{public_url(url)}'. Fix: name "
                          f"the model, e.g. openai:gpt-4o-mini@{public_url(url)}.")
    return model, url


def public_url(url: str) -> str:
    """``url`` as it may be shown and recorded: its password (or token user) masked.

    Example:
        >>> public_url("https://bob:hunter2@h.example/v1")
        'https://bob:***@h.example/v1'
    """
    return url_with_masked_userinfo(url)


def basic_auth_header(url: str) -> tuple[str, dict[str, str]]:
    """``(url without credentials, headers)``: the ``Authorization: Basic`` header for a URL
    with ``user:password@`` (nothing for one without), the credentials remembered as secrets.

    Example:
        >>> basic_auth_header("https://bob:hunter2@h.example/v1")
        ('https://h.example/v1', {'Authorization': 'Basic Ym9iOmh1bnRlcjI='})
        >>> basic_auth_header("http://127.0.0.1:8101/v1")
        ('http://127.0.0.1:8101/v1', {})
    """
    bare, user, password = url_without_userinfo(url)
    if not user and not password:  # none, or an empty '@'
        return bare, {}
    remember_url_credentials(url)
    token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
    return bare, {"Authorization": f"Basic {token}"}


def client_endpoint(client: Any) -> str | None:
    """The base URL an ``openai`` client sends to, without credentials, query string (an
    Azure key may ride in it) or trailing slash; ``None`` when the client has none (a test
    double).

    Example:
        >>> import openai
        >>> client_endpoint(openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1"))
        'http://127.0.0.1:9/v1'
    """
    base = getattr(client, "base_url", None)
    if base is None:
        return None
    bare, _, _ = url_without_userinfo(str(base))
    return bare.split("#")[0].split("?")[0].rstrip("/") or None
