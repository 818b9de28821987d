"""The session's choices for every ``assay_eval``: judge, run store, folder for the runs.

Example:
    >>> PluginSettings(judge="fake", store=None, out=None).judge
    'fake'
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

__all__ = ["PluginSettings"]


@dataclass(frozen=True)
class PluginSettings:
    """The session's choices for every evaluation: the judge spec, the run store (a path or
    URL, ``True`` for ``ASSAY_STORE``, ``None`` for none) and the folder for run outputs
    (``None``: pytest's temporary directory)."""

    judge: str
    store: str | bool | None
    out: str | None

    @classmethod
    def of(cls, config: pytest.Config) -> PluginSettings:
        """The settings of a session: each from its flag, else the environment, else the ini
        file."""
        def ini(name: str) -> str | None:
            value = config.getini(f"assay_{name}")
            return str(value) if value else None

        store: str | bool | None = config.getoption("assay_store")
        if store is None:
            store = True if os.environ.get("ASSAY_STORE") else ini("store")
        return cls(judge=config.getoption("assay_judge") or os.environ.get("ASSAY_JUDGE")
                   or ini("judge") or "local",
                   store=store, out=config.getoption("assay_out") or ini("out"))
