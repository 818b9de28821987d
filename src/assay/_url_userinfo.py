"""The credentials in a URL's userinfo (``scheme://user:password@host``): taken out, or shown
masked. :mod:`assay._secrets` remembers them as secrets.
"""

from __future__ import annotations

import re

__all__ = ["MASK", "url_with_masked_userinfo", "url_without_userinfo"]

#: What a masked secret reads as.
MASK = "***"
# scheme://, then the userinfo: up to the authority's last '@' (an unescaped '@' in a password
# belongs to it, as urllib and httpx read it), then the rest
_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*://)(?:([^/?#]*)@)?(.*)$", re.DOTALL)


def url_without_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """``(url without its user:password@, user, password)``; user and password are ``None``
    when absent (percent-escapes in them are decoded).

    Example:
        >>> url_without_userinfo("https://bob:hunter2@h.example/v1")
        ('https://h.example/v1', 'bob', 'hunter2')
        >>> url_without_userinfo("http://127.0.0.1:8101/v1")
        ('http://127.0.0.1:8101/v1', None, None)
        >>> url_without_userinfo("http://bob:p@ss@h.example/v1")
        ('http://h.example/v1', 'bob', 'p@ss')
    """
    from urllib.parse import unquote

    m = _USERINFO.match(url)
    if m is None or m.group(2) is None:
        return url, None, None
    user, colon, password = m.group(2).partition(":")
    return m.group(1) + m.group(3), unquote(user), unquote(password) if colon else None


def url_with_masked_userinfo(url: str) -> str:
    """``url`` with its password (or, without one, its user: a token) shown as ``***``.

    Example:
        >>> url_with_masked_userinfo("https://bob:hunter2@h.example/v1")
        'https://bob:***@h.example/v1'
        >>> url_with_masked_userinfo("https://ghp_token@h.example/v1")
        'https://***@h.example/v1'
    """
    m = _USERINFO.match(url)
    if m is None or m.group(2) is None:
        return url
    user, colon, _ = m.group(2).partition(":")
    return m.group(1) + (f"{user}:{MASK}@" if colon else f"{MASK}@") + m.group(3)
