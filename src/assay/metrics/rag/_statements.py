"""Statement decomposition and verification, shared by every metric that needs them.

One decomposition request per text (identical requests from several metrics of a row are
answered once: by the cache, or by the call already in flight) and one verification request per
(statements, source) pair. On a local (embedded) judge, each statement is instead checked by its own
one-token Yes/No question, whose probability ranks far better on a small model; the source
comes first so its KV cache is reused across the statements.

Example:
    >>> parse_statements('{"statements": ["The tent weighs 1.3 kg.", " "]}')
    ['The tent weighs 1.3 kg.']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...asking import Unanswered, ask_judge, ask_until_parsed, load_template, p_yes
from ...errors import JudgeError
from ...judges import JudgeRequest
from .._base import UNREADABLE, MetricResult, ScoreContext
from ..judge import prefers_verdicts
from ._json import json_list, text_list

__all__ = ["StepFailed", "Verdict", "decompose", "parse_statements", "parse_verdicts", "verify"]

VERDICTS = ("supported", "contradicted", "not_verifiable")
STATEMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"statements": {"type": "array", "items": {"type": "string"}}},
    "required": ["statements"], "additionalProperties": False,
}
VERDICTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": list(VERDICTS)},
                       "reason": {"type": "string"}},
        "required": ["verdict", "reason"], "additionalProperties": False}}},
    "required": ["verdicts"], "additionalProperties": False,
}


class StepFailed(Exception):
    """A decomposition or verification step could not be completed; the message says why and
    ``details`` keeps the evidence (e.g. the judge's raw answer)."""

    def __init__(self, reason: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.details = dict(details or {})


@dataclass
class Verdict:
    """One statement checked against a source."""

    statement: str
    verdict: str
    reason: str
    p_supported: float | None = None

    @property
    def supported(self) -> bool:
        return self.verdict == "supported"

    @property
    def weight(self) -> float:
        """How much the statement counts as supported: P(supported) where the judge gave one
        (embedded judge), else 1 or 0 from the verdict. Soft counts rank finer than 0/1."""
        if self.p_supported is not None:
            return self.p_supported
        return 1.0 if self.supported else 0.0

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"statement": self.statement, "verdict": self.verdict,
                               "reason": self.reason}
        if self.p_supported is not None:
            out["p_supported"] = round(self.p_supported, 4)
        return out


def parse_statements(text: str) -> list[str] | None:
    """The statements of a decomposition answer, or ``None`` when it is not valid."""
    return text_list(text, "statements")


def parse_verdicts(text: str, n: int) -> list[tuple[str, str]] | None:
    """``n`` (verdict, reason) pairs from a verification answer, or ``None`` when not valid."""
    items = json_list(text, "verdicts", n=n)
    if items is None or not all(isinstance(i, dict) and i.get("verdict") in VERDICTS
                                for i in items):
        return None
    return [(str(i["verdict"]), str(i.get("reason") or "")) for i in items]


async def decompose(ctx: ScoreContext, text: str, question: str | None = None) -> list[str]:
    """The factual statements of ``text`` (one judge request, shared between metrics)."""
    template = load_template("statements", ctx.settings.lang)
    request = JudgeRequest(messages=template.render(text=text, question=question),
                           schema_name="statements", json_schema=STATEMENTS_SCHEMA,
                           max_tokens=512, logprobs=False)
    answer = await ask_until_parsed(ctx.judge, request, parse_statements,
                                    "decomposition is not a JSON list of statements")
    if isinstance(answer, Unanswered):
        failed = MetricResult.unanswered(answer)
        raise StepFailed(failed.error or "decomposition failed", failed.details)
    return list(answer[0])


def _verdict_style(ctx: ScoreContext) -> bool:
    """One Yes/No question per statement (``verdict``, or ``auto`` on a judge that prefers
    verdicts: a local one) rather than one batched verification request."""
    if ctx.settings.style == "auto":
        return ctx.judge is not None and prefers_verdicts(ctx.judge.capabilities)
    return ctx.settings.style == "verdict"


async def verify(ctx: ScoreContext, statements: list[str], source: str) -> list[Verdict]:
    """Check each statement against ``source``."""
    if not statements:
        return []
    if _verdict_style(ctx):
        return [await _verify_one(ctx, s, source) for s in statements]
    template = load_template("verify", ctx.settings.lang)
    numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(statements, start=1))
    request = JudgeRequest(messages=template.render(source=source, statements=numbered),
                           schema_name="verdicts", json_schema=VERDICTS_SCHEMA,
                           max_tokens=80 + 60 * len(statements), logprobs=False)
    answer = await ask_until_parsed(ctx.judge, request,
                                    lambda t: parse_verdicts(t, len(statements)),
                                    f"verification is not {len(statements)} verdicts")
    if isinstance(answer, Unanswered):
        failed = MetricResult.unanswered(answer)
        raise StepFailed(failed.error or "verification failed", failed.details)
    return [Verdict(s, v, r) for s, (v, r) in zip(statements, answer[0])]


async def _verify_one(ctx: ScoreContext, statement: str, source: str) -> Verdict:
    template = load_template("verify", ctx.settings.lang, variant="verdict")
    request = JudgeRequest(messages=template.render(source=source, statement=statement),
                           schema_name="verdict", json_schema=None, max_tokens=1,
                           top_logprobs=10, cut_ok=True)  # the verdict is the one token
    try:
        resp = await ask_judge(ctx.judge, request,
                               accept=lambda r: p_yes(r.logprobs) is not None)
    except JudgeError as e:
        raise StepFailed(f"judge call failed: {e}") from e
    p = p_yes(resp.logprobs)
    if p is None:
        word = resp.text.strip().lower()
        if word not in ("yes", "no"):
            raise StepFailed(f"judge did not answer Yes or No (got {resp.text[:40]!r})",
                             {UNREADABLE: "answer"})
        p = 1.0 if word == "yes" else 0.0
    verdict = "supported" if p >= 0.5 else "not_verifiable"
    return Verdict(statement, verdict, f"P(supported) = {p:.2f}", p_supported=p)
