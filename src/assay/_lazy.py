"""Public names of a package imported on first use (PEP 562), so importing the package costs
nothing until a name is read.

Example:
    >>> import types, sys
    >>> pkg = types.ModuleType("demo_pkg")
    >>> pkg.__getattr__, pkg.__dir__ = lazy_names("demo_pkg", {"dumps": "json"}, ["dumps"])
    >>> sys.modules["demo_pkg"] = pkg
    >>> pkg.dumps([1])
    '[1]'
    >>> "dumps" in vars(pkg)  # kept once read
    True
    >>> del sys.modules["demo_pkg"]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, modules: Mapping[str, str], names: Sequence[str]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: ``modules`` maps each lazy name to the
    module (relative to ``package``) that defines it; a name read once is kept in the
    package."""

    def getattr_(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return getattr_, dir_
