"""The learned injection detector's weights file, written byte for byte the same, and its
manifest (issue 34).

``injection_train.py`` writes ``src/assay/injection/learned.npz`` with :func:`save_weights`:
an ``.npz`` (a zip of ``.npy`` arrays, as ``np.load`` reads it) whose every entry has a fixed
date, system and mode, so the same weights give the same bytes. Beside it,
:func:`write_manifest` writes ``learned.json``: the command that rebuilds the weights and the
one that checks a rebuild, the phrase sets trained on and the one held out, the versions of
what the fit ran on, and the sha256 of every training data file, of the code whose behaviour
decides the weights and of the weights themselves. ``tests/test_injection_manifest.py`` checks
those hashes against the files on disk; :func:`differences` is what ``injection_train.py
--verify`` reports.

    >>> import tempfile
    >>> from assay.injection._learned import Weights
    >>> w = Weights({"ra": 0.5}, {"rate": 1.0}, intercept=-1.0, threshold=0.6)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     a, b = Path(d, "a.npz"), Path(d, "b.npz")
    ...     _ = save_weights(a, w), save_weights(b, w)
    ...     same = sha256(a) == sha256(b)
    ...     back = Weights.load(a)
    >>> same, back.chars, back.words, back.threshold
    (True, {'ra': 0.5}, {'rate': 1.0}, 0.6)
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import zipfile
import zlib
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from assay.injection._learned import Weights

ROOT = Path(__file__).resolve().parents[1]
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""The date of every entry of the weights file (the zip format's earliest)."""
PYTHON = "python"  # how the manifest's commands name the interpreter (the repository's venv)
SCRIPT = "benchmarks/injection_train.py"
ABOUT = ("How learned.npz was built. 'command', run from the repository root in an environment "
         "with the versions of 'environment', rebuilds it byte for byte; 'verify' rebuilds it "
         "into a temporary file and says whether its sha256 is 'output''s and whether every "
         "file it read is the one hashed here. 'training_data': the sha256 of every file the "
         "fit read data from (the phrase sets of 'train_sets' of injection_phrases.json, never "
         "'test_set'; each language file's 'tuning' phrasings and the train half of its clean "
         "texts, never its 'heldout'; the train and calibrate parts of the ../shared/data "
         "files). 'code': the files whose behaviour decides the weights. "
         "tests/test_injection_manifest.py checks every hash against the files on disk.")


def save_weights(path: Path, weights: Weights) -> Path:
    """Write ``weights`` to ``path`` as ``Weights.load`` reads them: per family the n-grams as
    one UTF-8 text joined by newlines and their float32 weights, then the intercept and the
    threshold; compressed, each entry dated :data:`ZIP_DATE` with a fixed system and mode."""
    arrays = {
        "char_keys": np.frombuffer("\n".join(weights.chars).encode(), dtype=np.uint8),
        "char_weights": np.array(list(weights.chars.values()), dtype=np.float32),
        "word_keys": np.frombuffer("\n".join(weights.words).encode(), dtype=np.uint8),
        "word_weights": np.array(list(weights.words.values()), dtype=np.float32),
        "intercept": np.float64(weights.intercept),
        "threshold": np.float64(weights.threshold)}
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            entry = zipfile.ZipInfo(f"{name}.npy", date_time=ZIP_DATE)
            entry.compress_type, entry.create_system = zipfile.ZIP_DEFLATED, 3  # 3: Unix
            entry.external_attr = 0o600 << 16  # rw------- (what zipfile gives an entry)
            with archive.open(entry, "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(array), allow_pickle=False)
    return path


def sha256(path: Path) -> str:
    """The sha256 of ``path``'s bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def relative(path: Path) -> str:
    """``path`` relative to the repository (``../shared/data/...`` for the shared data)."""
    return Path(os.path.relpath(os.path.abspath(path), ROOT)).as_posix()


def hashes(paths: list[Path]) -> dict[str, str]:
    """``{relative path: sha256}``, sorted by path."""
    return {relative(p): sha256(p) for p in sorted(set(paths), key=relative)}


def environment() -> dict[str, str]:
    """The versions the fit and the file depend on (a rebuild elsewhere may differ in the last
    bits of a weight)."""
    return {"python": platform.python_version(),
            **{name: metadata.version(name) for name in ("numpy", "scipy", "scikit-learn")},
            "zlib": zlib.ZLIB_RUNTIME_VERSION}


def manifest_of(weights: Path, *, data: list[Path], code: list[Path], args: list[str],
                seed: int, train_sets: list[str], test_set: str) -> dict[str, Any]:
    """What ``learned.json`` says of ``weights``, built by ``injection_train.py args``."""
    command = " ".join([PYTHON, SCRIPT, *args])
    return {"_about": ABOUT, "command": command, "verify": f"{command} --verify", "seed": seed,
            "train_sets": train_sets, "test_set": test_set, "environment": environment(),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "training_data": hashes(data), "code": hashes(code),
            "output": {relative(weights): sha256(weights)}}


def write_manifest(weights: Path, manifest: dict[str, Any]) -> Path:
    """Write ``manifest`` beside ``weights`` (``learned.json`` for ``learned.npz``)."""
    path = weights.with_suffix(".json")
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return path


def differences(recorded: dict[str, Any], rebuilt: dict[str, Any]) -> list[str]:
    """How a rebuild's hashes differ from the recorded ones: each file hashed differently or in
    only one of the two manifests, and the output's sha256.

    Example:
        >>> old = {"training_data": {"a": "1"}, "code": {}, "output": {"w.npz": "9"}}
        >>> differences(old, {"training_data": {"a": "2"}, "code": {}, "output": {"t.npz": "9"}})
        ['training_data a: 1 recorded, 2 now']
    """
    out = []
    for key in ("training_data", "code"):
        was, now = recorded.get(key, {}), rebuilt.get(key, {})
        out += [f"{key} {p}: {was.get(p, 'absent')} recorded, {now.get(p, 'absent')} now"
                for p in sorted({*was, *now}) if was.get(p) != now.get(p)]
    [was_out], [now_out] = recorded["output"].values(), rebuilt["output"].values()
    if was_out != now_out:
        out.append(f"output: {was_out} recorded, {now_out} rebuilt")
    return out
