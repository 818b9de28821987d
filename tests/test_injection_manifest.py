"""The learned detector's manifest (``src/assay/injection/learned.json``) is true of the files
on disk: the shipped ``learned.npz`` is the one it names, and every training data file and code
file it hashed is unchanged, so its command rebuilds these weights byte for byte.

When a test here fails, an input changed after the weights were built: rebuild them with the
manifest's ``command`` (about a minute). If the new ``learned.npz`` has the same sha256, the
change did not touch the weights and only ``learned.json`` changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = ROOT / "src" / "assay" / "injection" / "learned.npz"
MANIFEST = json.loads(WEIGHTS.with_name("learned.json").read_text(encoding="utf-8"))
PHRASES = json.loads((ROOT / "benchmarks" / "injection_phrases.json").read_text(encoding="utf-8"))
SHARED = "../shared/"


def _sha256(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def _changed(hashes: dict[str, str]) -> list[str]:
    return [p for p, h in hashes.items() if not (ROOT / p).is_file() or _sha256(p) != h]


def _rebuild() -> str:
    return f"rebuild with `{MANIFEST['command']}` (see this module's docstring)"


def test_the_shipped_weights_are_the_manifests() -> None:
    assert MANIFEST["output"] == {"src/assay/injection/learned.npz": _sha256(
        "src/assay/injection/learned.npz")}, "learned.npz was rebuilt without its manifest"


def test_the_code_and_the_repositorys_training_data_are_the_ones_hashed() -> None:
    repo = {p: h for p, h in MANIFEST["training_data"].items() if not p.startswith(SHARED)}
    assert {"benchmarks/injection_phrases.json", "benchmarks/injection_lang/es.json"} <= set(repo)
    assert "benchmarks/injection_train.py" in MANIFEST["code"]
    assert _changed(repo) == [], f"changed since learned.npz was built: {_rebuild()}"
    assert _changed(MANIFEST["code"]) == [], f"changed since learned.npz was built: {_rebuild()}"


@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "halueval").is_dir(),
                    reason="needs ../shared/data")
def test_the_shared_training_data_is_the_one_hashed() -> None:
    shared = {p: h for p, h in MANIFEST["training_data"].items() if p.startswith(SHARED)}
    assert "../shared/data/halueval/qa_shared.jsonl" in shared
    assert _changed(shared) == [], f"changed since learned.npz was built: {_rebuild()}"


def test_the_manifest_says_how_to_rebuild_and_what_was_held_out() -> None:
    assert MANIFEST["command"].startswith("python benchmarks/injection_train.py")
    assert MANIFEST["verify"] == f"{MANIFEST['command']} --verify"
    assert MANIFEST["seed"] == 16 and {"numpy", "scikit-learn"} <= set(MANIFEST["environment"])
    sets = [k for k in PHRASES if k != "_about"]
    assert MANIFEST["test_set"] == "test" and MANIFEST["test_set"] not in MANIFEST["train_sets"]
    assert sorted([*MANIFEST["train_sets"], MANIFEST["test_set"]]) == sorted(sets)
    every = {**MANIFEST["training_data"], **MANIFEST["code"]}
    assert all(len(h) == 64 for h in every.values())
