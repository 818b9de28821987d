"""Loading the injection defence's language model in a thread, beside a run's other set-up.

py3langid's model (:mod:`._language`) takes 0.5-1 s to load the first time it is used, most of
it decompressing 4.6 MB of LZMA, which lets other threads run. A run that will scan its rows
calls :func:`preload_detectors` as it starts: the model loads while the run opens its judge
(the OpenAI SDK's import, which holds the interpreter), and the first row that needs it finds
it ready, or waits for what is left. It is loaded once per process, whoever asks first
(:func:`loaded_once`).

Example:
    >>> preload_detectors()  # returns at once; the models load in a thread
    >>> from ._language import language_of
    >>> language_of("La capitale della Francia è Parigi, sulla Senna.")  # waits if need be
    'it'
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["loaded_once", "preload_detectors"]

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


_STARTED = threading.Event()
_START = threading.Lock()


def preload_detectors() -> None:
    """Start loading the language model in a daemon thread, once per process, and return at
    once. A load that fails here (a missing install) is left for the first real use to raise,
    where the run reports it."""
    with _START:
        if _STARTED.is_set():
            return
        _STARTED.set()
    threading.Thread(target=_load, name="assay-injection-preload", daemon=True).start()


def _load() -> None:
    from ._language import _identifier

    try:
        _identifier()
    except Exception:  # noqa: BLE001, S110 - raised again, and reported, where it is used
        pass
