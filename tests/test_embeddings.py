"""semantic_similarity and the embedders: local ONNX MiniLM, OpenAI-compatible, cache, batching."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from assay import JudgeOptions, evaluate
from assay.calls import ManagedEmbedder, RetryPolicy
from assay.embeddings import EmbeddingCache, LocalEmbedder, cosine, local_embedder_missing
from assay.errors import ConfigError, RetryableJudgeError
from conftest import QA50

REFERENCE = Path(__file__).parent / "data" / "minilm_reference.json"


def _require_local() -> None:
    missing = local_embedder_missing()
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must install the local embedder: {missing}")
    pytest.skip(missing)


class CountingEmbedder:
    """A toy backend: a vector from letter counts; counts calls and texts."""

    id = "toy"
    max_batch = 16

    def __init__(self, fail_first: int = 0) -> None:
        self.calls: list[list[str]] = []
        self.fail_first = fail_first

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        if len(self.calls) <= self.fail_first:
            raise RetryableJudgeError("server error (503)", status=503, retry_after=0.0)
        return [[float(t.count(c)) for c in "aeiou"] + [1.0] for t in texts]

    async def aclose(self) -> None:
        return None


def test_local_embedder_matches_reference_vectors() -> None:
    _require_local()
    ref = json.loads(REFERENCE.read_text())
    vectors = LocalEmbedder().embed_sync(ref["sentences"])
    for got, want in zip(vectors, ref["vectors"]):
        assert len(got) == 384
        assert cosine(got, want) >= 0.999


def test_paraphrases_score_above_unrelated_pairs(tmp_path: Path) -> None:
    _require_local()
    rows = [
        {"id": "para1", "answer": "The tent weighs 1.3 kilograms.",
         "ground_truth": "It has a mass of 1.3 kg."},
        {"id": "para2", "answer": "You need isobutane gas canisters for this stove.",
         "ground_truth": "The stove runs on isobutane-propane canisters."},
        {"id": "unrel1", "answer": "The tent weighs 1.3 kilograms.",
         "ground_truth": "Paris is the capital of France."},
        {"id": "unrel2", "answer": "You need isobutane gas canisters for this stove.",
         "ground_truth": "Whales are the largest mammals in the ocean."},
    ]
    res = evaluate(rows, metrics="semantic_similarity",
                   judging=JudgeOptions(cache=tmp_path / "c.sqlite"))
    v = {r["id"]: r["semantic_similarity"]["value"] for r in res.rows}
    assert min(v["para1"], v["para2"]) > max(v["unrel1"], v["unrel2"]) + 0.3
    detail = res.rows[0]["semantic_similarity"]["details"]
    assert detail["score_1_5"] == pytest.approx(1 + 4 * v["para1"], abs=1e-3)
    assert res.summary["embeddings"]["id"] == "local:all-MiniLM-L6-v2-int8"
    again = evaluate(rows, metrics="semantic_similarity",
                     judging=JudgeOptions(cache=tmp_path / "c.sqlite"))
    assert again.summary["embeddings"]["requests"] == 0
    assert again.summary["embeddings"]["cache_hits"] == 8


def test_rows_are_batched_and_cached(tmp_path: Path) -> None:
    backend = CountingEmbedder()
    rows = [{"id": str(i), "answer": f"answer {i} aaa", "ground_truth": "the same truth"}
            for i in range(20)]
    res = evaluate(rows, metrics="semantic_similarity", embeddings=backend,
                   judging=JudgeOptions(cache=tmp_path / "c.sqlite", concurrency=16))
    assert all(r["semantic_similarity"]["value"] is not None for r in res.rows)
    texts = [t for call in backend.calls for t in call]
    assert len(texts) == len(set(texts)) == 21  # 20 answers + one shared truth, each sent once
    assert len(backend.calls) <= 3  # many texts per request
    again = CountingEmbedder()
    evaluate(rows, metrics="semantic_similarity", embeddings=again,
             judging=JudgeOptions(cache=tmp_path / "c.sqlite"))
    assert again.calls == []


def test_embedding_retries_then_unscored(monkeypatch) -> None:
    monkeypatch.setattr(RetryPolicy, "delay", lambda self, attempt, ra: 0.0)
    rows = [{"answer": "a", "ground_truth": "b"}]
    ok = evaluate(rows, metrics="semantic_similarity", embeddings=CountingEmbedder(fail_first=2),
                  judging=JudgeOptions(cache=None))
    assert ok.rows[0]["semantic_similarity"]["value"] is not None
    assert ok.summary["embeddings"]["retries"] == 2
    bad = evaluate(rows, metrics="semantic_similarity,f1_score",
                   embeddings=CountingEmbedder(fail_first=99),
                   judging=JudgeOptions(cache=None, max_attempts=2))
    m = bad.rows[0]["semantic_similarity"]
    assert m["value"] is None and "gave up after 2 attempts" in m["error"]
    assert bad.rows[0]["f1_score"]["value"] is not None


def test_cache_round_trip(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    key = EmbeddingCache.key("toy", "text")
    cache.put_many("toy", [(key, [0.25, -1.5])])
    assert cache.get(key) == [0.25, -1.5]
    assert cache.get(EmbeddingCache.key("other", "text")) is None


def test_managed_embedder_deduplicates_concurrent_texts() -> None:
    backend = CountingEmbedder()
    managed = ManagedEmbedder(backend)

    async def rows() -> list:
        return await asyncio.gather(*(managed.embed(["same", f"t{i}"]) for i in range(5)))

    out = asyncio.run(rows())
    assert len(out) == 5 and backend.calls and sum(len(c) for c in backend.calls) == 6


def test_auto_skips_semantic_similarity_without_the_local_embedder(monkeypatch) -> None:
    import assay.run._setup as setup  # where evaluate asks (and assay watch's scorer)
    monkeypatch.setattr(setup, "local_embedder_missing",
                        lambda: "the local embedder needs onnxruntime")
    rows = [{"question": "q", "answer": "a", "ground_truth": "a"}]
    res = evaluate(rows, metrics="auto", judge="fake", judging=JudgeOptions(cache=None))
    assert "semantic_similarity" not in res.summary["metrics"]
    assert any(line.startswith("semantic_similarity: skipped, the local embedder needs")
               for line in res.skipped)
    with pytest.raises(ConfigError, match="semantic_similarity cannot run"):
        evaluate(rows, metrics="semantic_similarity", judging=JudgeOptions(cache=None))


def test_bad_embeddings_spec() -> None:
    with pytest.raises(ConfigError, match="Got embeddings='bogus'"):
        evaluate([{"answer": "a", "ground_truth": "a"}], metrics="f1_score", embeddings="bogus")


def test_qa50_through_openai_embeddings_endpoint(fake_judge_server, tmp_path: Path) -> None:
    server = fake_judge_server("--latency-ms", "1")
    cache = tmp_path / "c.sqlite"
    res = evaluate(QA50, metrics="semantic_similarity", embeddings="openai:text-embedding-3-small",
                   judging=JudgeOptions(cache=cache))
    assert res.summary["metrics"]["semantic_similarity"]["scored"] == 50
    first = [r for r in server.records() if r.get("kind") == "embeddings"]
    assert first and sum(r["n_inputs"] for r in first) == res.summary["embeddings"]["texts"]
    assert len(first) < 10  # batched: many texts per request
    again = evaluate(QA50, metrics="semantic_similarity",
                     embeddings="openai:text-embedding-3-small", judging=JudgeOptions(cache=cache))
    assert again.summary["embeddings"]["requests"] == 0
    assert len(server.records()) == len(first)
