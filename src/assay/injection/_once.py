"""Loading a model once per process, whichever thread asks first (:func:`loaded_once`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["loaded_once"]

T = TypeVar("T")


def loaded_once(load: Callable[[], T]) -> Callable[[], T]:
    """``load`` as a function that calls it once per process and then gives its result; a
    caller that comes while another thread is loading waits for that load instead of
    starting its own. A failed load (a missing install) is tried again by the next caller,
    so each caller sees the error.

    Example:
        >>> calls = []
        >>> get = loaded_once(lambda: calls.append(1) or len(calls))
        >>> get(), get(), calls
        (1, 1, [1])
    """
    lock = threading.Lock()
    loaded: list[T] = []

    def get() -> T:
        with lock:
            if not loaded:
                loaded.append(load())
            return loaded[0]

    get.__doc__ = load.__doc__
    return get
