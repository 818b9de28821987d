"""Ask the judge until its answer parses, with what the cache keeps chosen separately.

``assay.metrics.judge.ask_until_parsed`` caches an answer when the caller's own parse accepts
it. The combined safety request is shared by four metrics, each reading one category: there an
answer must only be cached when *all four* categories parse, or one metric's retry would be
answered from the cache with the same incomplete answer (this run and every later one).

Example:
    >>> import asyncio
    >>> from assay.judges import FakeJudge, JudgeRequest
    >>> from assay.metrics import ScoreContext
    >>> ctx = ScoreContext(judge=FakeJudge("not json"))
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "x"}], schema_name="s")
    >>> r = asyncio.run(ask_until_parsed_accepting(ctx, req, lambda t: None, lambda t: False,
    ...                                            {}, "judge answer is invalid"))
    >>> r.error, r.details["raw_answer"], len(ctx.judge.requests)
    ('judge answer is invalid (asked twice)', 'not json', 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import JudgeError
from ...judges import JudgeRequest, JudgeResponse
from .._base import MetricResult, ScoreContext
from ..judge import ask_judge

__all__ = ["ask_until_parsed_accepting"]


async def ask_until_parsed_accepting(ctx: ScoreContext, request: JudgeRequest,
                                     parse: Callable[[str], Any], cacheable: Callable[[str], bool],
                                     details: dict[str, Any],
                                     invalid: str) -> tuple[Any, JudgeResponse] | MetricResult:
    """``(parsed, response)``, or an unscored result: a failed call, or an answer that does not
    parse twice (it is asked once more; the last raw answer goes into ``details``).

    Like ``ask_until_parsed``, except that a managed judge caches an answer only when
    ``cacheable(text)`` holds, whatever ``parse`` makes of it.
    """
    raw = ""
    for _attempt in range(2):
        try:
            resp = await ask_judge(ctx.judge, request, accept=lambda r: cacheable(r.text))
        except JudgeError as e:
            return MetricResult.unscored(f"judge call failed: {e}", **details)
        parsed = parse(resp.text)
        if parsed is not None:
            return parsed, resp
        raw = resp.text
    return MetricResult.unscored(f"{invalid} (asked twice)", raw_answer=raw[:1000], **details)
