"""The requests of a command that drives more than one model (``generate``, ``simulate``,
``jailbreak``), counted per role (``judge``, ``simulated_user``, ``attacker``, ``app``) and
per pass (low / expected / high), then priced and put together as one
:class:`~assay.calls.Estimate` with its ``by_role``.

Example:
    >>> from assay.judges import JudgeRequest
    >>> user = RoleCount("openai:gpt-4o-mini")
    >>> req = JudgeRequest(messages=[{"role": "user", "content": "abcdefgh"}],
    ...                    schema_name="simulated_user_turn", max_tokens=320)
    >>> for which in PASSES:
    ...     user.add(which, req, completion=10)
    >>> est = estimate_of({"simulated_user": user}, rows=1, unit="conversation")
    >>> est.by_role["simulated_user"].tally.requests.as_dict()
    {'low': 1, 'expected': 1, 'high': 1}
    >>> est.by_role["simulated_user"].tally.completion_tokens.high
    320.0
    >>> est.usd is not None and est.usd.high > est.usd.low
    True
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..calls import (
    Estimate,
    JudgeEstimate,
    Span,
    Tally,
    TokenCounter,
    model_of,
    priced_estimate,
    prompt_tokens,
    token_counter,
)
from ..judges import JudgeCapabilities, JudgeRequest

__all__ = ["PASSES", "RoleCount", "app_request", "estimate_of"]

PASSES = ("low", "expected", "high")


def app_request(messages: Sequence[Mapping[str, Any]], max_tokens: int) -> JudgeRequest:
    """The app's chat request for ``messages`` (its text messages), to count as a judge
    request is counted: text, 4 per message and 3, no schema."""
    texts = [{"role": str(m.get("role")), "content": m["content"]} for m in messages
             if isinstance(m.get("content"), str)]
    return JudgeRequest(messages=texts, schema_name="app_reply", max_tokens=max_tokens,
                        logprobs=False)


class RoleCount:
    """One role's planned requests, per pass and kind of request (``schema_name``).
    ``model``: the spec of the model that plays it (``openai:MODEL``, ``local``, ...);
    ``local``: the embedded model (free)."""

    def __init__(self, model: str, *, local: bool | None = None) -> None:
        self.model = model
        self.local = model.split(":", 1)[0] == "local" if local is None else local
        self.counter: TokenCounter = token_counter(model_of(model))
        # kind -> pass -> [requests, prompt tokens, completion tokens]
        self.kinds: dict[str, dict[str, list[float]]] = defaultdict(
            lambda: {p: [0.0, 0.0, 0.0] for p in PASSES})

    def add(self, which: str, request: JudgeRequest, *, completion: float,
            weight: float = 1.0) -> None:
        """Count ``request`` in pass ``which`` (``weight`` times: a share of a candidate):
        its prompt tokens as rendered, ``completion`` tokens (on the high pass, its
        ``max_tokens`` when that is larger)."""
        counts = self.kinds[request.schema_name][which]
        counts[0] += weight
        counts[1] += weight * prompt_tokens(request, self.counter)
        counts[2] += weight * (max(completion, request.max_tokens) if which == "high"
                               else completion)

    def merge(self, which: str, by_kind: Mapping[str, Tally]) -> None:
        """Add pass ``which``'s figure of each kind's tally (an estimate made elsewhere: the
        ratings of ``assay run --estimate``)."""
        for kind, tally in by_kind.items():
            counts = self.kinds[kind][which]
            counts[0] += getattr(tally.requests, which)
            counts[1] += getattr(tally.prompt_tokens, which)
            counts[2] += getattr(tally.completion_tokens, which)

    def tallies(self) -> dict[str, Tally]:
        """Each kind's tally."""
        out: dict[str, Tally] = {}
        for kind, by_pass in self.kinds.items():
            tally = Tally()
            tally.add(Span(*(by_pass[p][0] for p in PASSES)),
                      prompt=Span(*(by_pass[p][1] for p in PASSES)),
                      completion=Span(*(by_pass[p][2] for p in PASSES)))
            out[kind] = tally
        return out


def estimate_of(roles: Mapping[str, RoleCount], *, rows: int, unit: str,
                tpm: int | None = None, rpm: int | None = None,
                prices_file: Path | None = None, notes: Sequence[str] = ()) -> Estimate:
    """The estimate of ``roles``' counts: in all, per role, per model (``by_judge``) and per
    kind of request; an unknown price is ``None`` with its reason, never $0.

    Raises:
        ConfigError: the price file cannot be read, or names a bad or negative price.
    """
    by_kind: dict[str, Tally] = defaultdict(Tally)
    by_model: dict[str, Tally] = defaultdict(Tally)
    local: dict[str, bool] = {}
    by_role: dict[str, JudgeEstimate] = {}
    total = Tally()
    for role, count in roles.items():
        tally = Tally()
        for kind, kind_tally in count.tallies().items():
            by_kind[kind].merge(kind_tally)
            tally.merge(kind_tally)
        by_role[role] = priced_estimate(count.model, JudgeCapabilities(local=count.local), tally,
                                        prices_file, model=count.model)
        by_model[count.model].merge(tally)
        local[count.model] = count.local
        total.merge(tally)
    by_judge = {model: priced_estimate(model, JudgeCapabilities(local=local[model]), tally,
                                       prices_file)
                for model, tally in by_model.items()}
    counting = sorted({c.counter.note for c in roles.values()})
    return Estimate(rows=rows, total=total, by_kind=dict(by_kind), by_judge=by_judge, tpm=tpm,
                    rpm=rpm, notes=[*counting, *notes], by_role=by_role, unit=unit)
