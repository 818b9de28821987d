"""Loading the injection defence's language model in a thread, beside a run's other set-up.

py3langid's model (:mod:`._language`) takes 0.5-1 s to load the first time it is used, most of
it decompressing 4.6 MB of LZMA, which lets other threads run. A run that will scan its rows
calls :func:`preload_detectors` as it starts: the model loads while the run opens its judge
(the OpenAI SDK's import, which holds the interpreter), and the first row that needs it finds
it ready, or waits for what is left. It is loaded once per process, whoever asks first
(:func:`~._once.loaded_once`).

Example:
    >>> preload_detectors()  # returns at once; the models load in a thread
    >>> from ._language import language_of
    >>> language_of("La capitale della Francia è Parigi, sulla Senna.")  # waits if need be
    'it'
"""

from __future__ import annotations

import threading

__all__ = ["preload_detectors"]

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
