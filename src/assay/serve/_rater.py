"""Who is labelling on the review page: the rater named in the URL, else the one this browser
remembers (a cookie set when a person saves a label), else the last rater who labelled in
this store, offered as "last used". A person returning tomorrow then finds their name filled
in and their labels on the rows.

The cookie holds the name percent-encoded (any script may read it, as it is not a secret;
``SameSite=Lax``, a year long, for every page of this server).

Example:
    >>> choose_rater("", "ann%20lee", lambda: "bob")
    Rater(name='ann lee', source='cookie')
    >>> choose_rater("", "", lambda: "bob"), choose_rater("", "", lambda: None)
    (Rater(name='bob', source='last'), Rater(name='', source=''))
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from starlette.responses import Response

from ..store import MAX_LABEL_NAME

__all__ = ["RATER_COOKIE", "RATER_MAX_AGE", "Rater", "choose_rater", "remember_rater"]

#: The cookie that remembers the rater on this browser.
RATER_COOKIE = "assay_rater"
#: How long the browser keeps it, in seconds (a year).
RATER_MAX_AGE = 365 * 24 * 3600
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Rater:
    """The rater a review page fills in, and where the name came from: ``query`` (the URL),
    ``cookie`` (this browser), ``last`` (the store's last rater) or ``''`` (nobody yet)."""

    name: str
    source: str


def _clean(name: str) -> str:
    """A rater name as the page may show it: stripped, at most ``MAX_LABEL_NAME`` characters, ''
    when it holds control characters (the store would refuse it anyway)."""
    name = name.strip()[:MAX_LABEL_NAME]
    return "" if _CONTROL.search(name) else name


def choose_rater(query: str, cookie: str | None, last: Callable[[], str | None]) -> Rater:
    """The rater named by the URL's ``query`` value, else by the (percent-encoded) ``cookie``,
    else ``last()`` (called only then)."""
    if _clean(query):
        return Rater(_clean(query), "query")
    remembered = _clean(unquote(cookie or ""))
    if remembered:
        return Rater(remembered, "cookie")
    offered = _clean(last() or "")
    return Rater(offered, "last") if offered else Rater("", "")


def remember_rater(response: Response, rater: str) -> None:
    """Set the cookie that makes this browser remember ``rater``.

    Example:
        >>> r = Response()
        >>> remember_rater(r, "ann lee")
        >>> r.headers["set-cookie"]
        'assay_rater=ann%20lee; Max-Age=31536000; Path=/; SameSite=lax'
    """
    response.set_cookie(RATER_COOKIE, quote(rater, safe=""), max_age=RATER_MAX_AGE, path="/",
                        samesite="lax")
