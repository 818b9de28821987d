"""The figures of an estimate: requests, prompt and completion tokens, dollars and the time
at the run's ``--tpm`` / ``--rpm``, each as low / expected / high, and how they are printed
and written as JSON.

Example:
    >>> calls = Tally()
    >>> calls.add(Span(1, 1, 1), prompt=Span(300, 300, 300), completion=Span(10, 50, 160))
    >>> calls.as_dict()["completion_tokens"]
    {'low': 10, 'expected': 50, 'high': 160}
    >>> seconds_at_limits(calls, tpm=6000, rpm=None).as_dict(1)
    {'low': 3.1, 'expected': 3.5, 'high': 4.6}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..judges import JudgeCapabilities
from ._prices import judge_pricer

__all__ = ["Estimate", "JudgeEstimate", "Span", "Tally", "priced_estimate",
           "seconds_at_limits"]


@dataclass
class Span:
    """A figure as ``low``, ``expected`` and ``high``."""

    low: float = 0.0
    expected: float = 0.0
    high: float = 0.0

    def __add__(self, other: Span) -> Span:
        return Span(self.low + other.low, self.expected + other.expected,
                    self.high + other.high)

    def scaled(self, by: float) -> Span:
        """Each figure times ``by``."""
        return Span(self.low * by, self.expected * by, self.high * by)

    def as_dict(self, digits: int | None = None) -> dict[str, float]:
        """``{"low", "expected", "high"}``: whole numbers (``digits=None``) or rounded."""
        def out(x: float) -> float:
            return round(x) if digits is None else round(x, digits)
        return {"low": out(self.low), "expected": out(self.expected), "high": out(self.high)}


@dataclass
class Tally:
    """Requests and tokens of some planned judge calls (one metric's, one judge's, a run's);
    ``cached``: requests the judge cache already answers (free, not in ``requests``)."""

    requests: Span = field(default_factory=Span)
    prompt_tokens: Span = field(default_factory=Span)
    completion_tokens: Span = field(default_factory=Span)
    cached: int = 0

    def add(self, requests: Span, *, prompt: Span, completion: Span) -> None:
        """Count planned calls."""
        self.requests += requests
        self.prompt_tokens += prompt
        self.completion_tokens += completion

    def merge(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        self.add(other.requests, prompt=other.prompt_tokens, completion=other.completion_tokens)
        self.cached += other.cached

    def scaled(self, by: float) -> Tally:
        """These counts ``by`` times (``--repeat``, a sample scaled to the dataset)."""
        return Tally(self.requests.scaled(by), self.prompt_tokens.scaled(by),
                     self.completion_tokens.scaled(by), round(self.cached * by))

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests.as_dict(), "prompt_tokens": self.prompt_tokens.as_dict(),
                "completion_tokens": self.completion_tokens.as_dict()}


def seconds_at_limits(tally: Tally, *, tpm: int | None, rpm: int | None) -> Span | None:
    """The least time the calls take at ``tpm`` tokens and ``rpm`` requests a minute (the
    slower of the two), ``None`` when neither limit is given."""
    if not tpm and not rpm:
        return None
    tokens = tally.prompt_tokens + tally.completion_tokens

    def at(requests: float, n_tokens: float) -> float:
        return max(n_tokens / tpm * 60 if tpm else 0.0, requests / rpm * 60 if rpm else 0.0)

    return Span(at(tally.requests.low, tokens.low), at(tally.requests.expected, tokens.expected),
                at(tally.requests.high, tokens.high))


@dataclass
class JudgeEstimate:
    """One judge's share: its calls, their dollars (``None`` when its price is unknown, with
    ``unknown_reason``) and where the price comes from."""

    tally: Tally
    usd: Span | None
    unknown_reason: str | None
    price_source: str
    #: The model that plays the role (an entry of ``Estimate.by_role``), else ``None``.
    model: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**({"model": self.model} if self.model is not None else {}),
                **self.tally.as_dict(), "cached": self.tally.cached,
                "usd": self.usd.as_dict(6) if self.usd is not None else None,
                "unknown_reason": self.unknown_reason, "price_source": self.price_source}


def priced_estimate(judge_id: str, capabilities: JudgeCapabilities, tally: Tally,
                    prices_file: Path | None = None, *, model: str | None = None
                    ) -> JudgeEstimate:
    """``tally`` priced on judge ``judge_id`` (low, expected and high each): its dollars, or
    ``None`` with the reason when the price is unknown (never $0); ``model``: the role's
    model, for an entry of ``Estimate.by_role``.

    Raises:
        ConfigError: the price file cannot be read, or names a bad or negative price.
    """
    pricer = judge_pricer(judge_id, capabilities, prices_file)
    figures = [pricer.cost(getattr(tally.prompt_tokens, p), getattr(tally.completion_tokens, p))
               for p in ("low", "expected", "high")]
    reason = next((why for usd, why in figures if usd is None), None)
    usd = None if reason else Span(*(usd or 0.0 for usd, _ in figures))
    return JudgeEstimate(tally=tally, usd=usd, unknown_reason=reason,
                         price_source=pricer.source, model=model)


@dataclass
class Estimate:
    """What a run would ask of its judges, before it asks anything: in all, per kind of
    request (its ``schema_name``: ``rating``, ``statements``, ``verdicts``, ``safety``...) and
    per judge. A command with more than one model (``generate``, ``simulate``, ``jailbreak``)
    has ``by_role`` too (``judge``, ``simulated_user``, ``attacker``, ``app``): the dollars are
    then the roles' sum; ``unit`` names what ``rows`` counts."""

    rows: int
    total: Tally
    by_kind: dict[str, Tally]
    by_judge: dict[str, JudgeEstimate]
    tpm: int | None = None
    rpm: int | None = None
    notes: list[str] = field(default_factory=list)
    by_role: dict[str, JudgeEstimate] = field(default_factory=dict)
    unit: str = "row"

    @property
    def _priced(self) -> dict[str, JudgeEstimate]:
        return self.by_role or self.by_judge

    @property
    def usd(self) -> Span | None:
        """The judges' (the roles') dollars added up; ``None`` when any price is unknown."""
        spans = [j.usd for j in self._priced.values()]
        if any(s is None for s in spans):
            return None
        return sum((s for s in spans if s is not None), Span())

    @property
    def unknown_reason(self) -> str | None:
        """Why the dollars are unknown (the first judge without a price), else ``None``."""
        return next((j.unknown_reason for j in self._priced.values() if j.usd is None), None)

    def as_dict(self) -> dict[str, Any]:
        """The estimate as ``--estimate --json`` writes it."""
        usd = self.usd
        seconds = seconds_at_limits(self.total, tpm=self.tpm, rpm=self.rpm)
        return {"rows": self.rows, **self.total.as_dict(), "cached": self.total.cached,
                "usd": usd.as_dict(6) if usd is not None else None,
                "unknown_reason": self.unknown_reason,
                "seconds_at_limits": seconds.as_dict(1) if seconds is not None else None,
                "tpm": self.tpm, "rpm": self.rpm,
                "by_kind": {name: t.as_dict() for name, t in self.by_kind.items()},
                "by_judge": {name: j.as_dict() for name, j in self.by_judge.items()},
                **({"by_role": {role: r.as_dict() for role, r in self.by_role.items()}}
                   if self.by_role else {}),
                "notes": self.notes}

    def lines(self) -> list[str]:
        """The estimate as printed: one line per figure, low / expected / high."""
        def row(label: str, span: Span, fmt: str = "{:,.0f}") -> str:
            return (f"  {label:<18}" + " / ".join(fmt.format(x) for x in
                                                  (span.low, span.expected, span.high)))
        out = [f"estimate for {self.rows} {self.unit}(s), nothing sent (low / expected / high):",
               row("requests" if self.by_role else "judge requests", self.total.requests),
               row("prompt tokens", self.total.prompt_tokens),
               row("completion tokens", self.total.completion_tokens)]
        usd = self.usd
        out.append(row("cost (USD)", usd, "${:,.4f}") if usd is not None
                   else f"  {'cost (USD)':<18}unknown: {self.unknown_reason}")
        seconds = seconds_at_limits(self.total, tpm=self.tpm, rpm=self.rpm)
        if seconds is not None:
            limits = ", ".join(f"{n:,} {what}" for n, what in ((self.tpm, "tokens"),
                                                              (self.rpm, "requests")) if n)
            out.append(row("time at limits", Span(*(math.ceil(x) for x in (
                seconds.low, seconds.expected, seconds.high)))) + f" s ({limits} a minute)")
        for role, share in self.by_role.items():
            cost = (" / ".join(f"${x:,.4f}" for x in (share.usd.low, share.usd.expected,
                                                      share.usd.high))
                    if share.usd is not None else f"unknown: {share.unknown_reason}")
            out.append(f"  {role} ({share.model}): " + " / ".join(
                f"{x:,.0f}" for x in (share.tally.requests.low, share.tally.requests.expected,
                                      share.tally.requests.high)) + f" requests, {cost}")
        if self.total.cached:
            out.append(f"  {self.total.cached:,} request(s) already in the judge cache: not "
                       "counted (free)")
        out += [f"  {note}" for note in self.notes]
        return out
