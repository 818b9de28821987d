"""A pairwise judge's probabilities of A / B / TIE, and the two orders combined.

Balanced position calibration: each row is asked with the candidate shown first and with the
baseline shown first. In each order the judge's token probabilities at the choice give
P(first shown better), P(second shown better) and P(tie); mapped back to P(candidate better),
P(baseline better) and P(tie), the two orders are averaged, so a judge that prefers a
position adds the same amount to both responses and the position cancels out.

What llama.cpp's server reports (measured 2026-11-27 with the embedded judge, xllamacpp
2026.10 and Qwen2.5-Coder-1.5B-Instruct Q4_K_M, JSON-schema output with ``top_logprobs``):
the probabilities are the model's own, computed from the raw logits BEFORE the grammar masks
them. At the first generated token the alternatives include tokens the grammar forbids
(a Markdown fence "```" at p 0.06-0.22, "To", "Here"), and the generated token's own
probability is its unconstrained one (0.74-0.91 for ``{"``, though the grammar allowed
nothing else). At the choice the alternatives do appear: with the schema ``{"choice": "A" |
"B" | "TIE", ...}`` the value is a token of its own after ``"choice": "``, and its top
alternatives were "A", "B" and "T" (the first token of "TIE", followed by "IE") with
nearly all the mass (forbidden tokens such as "C" or "None" under 0.001), the same numbers
with or without the grammar. So the three probabilities are read at that one token and
renormalised over the three. The judge leaned to the second-shown response (P(B) 0.41-0.56
in both orders of the same pairs), which is what averaging the orders removes.

Example:
    >>> import math
    >>> from assay.judges import TokenLogprob
    >>> lp = [TokenLogprob(token='{"choice": "', logprob=0.0),
    ...       TokenLogprob(token="B", logprob=math.log(0.5),
    ...                    top={"B": math.log(0.5), "A": math.log(0.3), "T": math.log(0.2)})]
    >>> choice_probabilities(lp)
    {'A': 0.3, 'B': 0.5, 'TIE': 0.2}
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ...asking import token_at
from ...judges import TokenLogprob

__all__ = ["average_orders", "choice_probabilities", "decide", "order_probabilities"]

_VALUE_START = re.compile(r'"choice"\s*:\s*"')
_LABELS = ("A", "B", "TIE")


def _label_of(text: str) -> str | None:
    """Which choice a token's text starts: ``A``, ``B`` or ``TIE`` (a prefix of it, as
    ``T`` or ``TI``, or the old names ``model_A`` / ``model_B``), else ``None``."""
    word = text.strip().strip('",').strip()
    upper = word.upper()
    if upper in ("A", "MODEL_A"):
        return "A"
    if upper in ("B", "MODEL_B"):
        return "B"
    if upper and "TIE".startswith(upper):
        return "TIE"
    return None


def choice_probabilities(logprobs: Sequence[TokenLogprob] | None) -> dict[str, float] | None:
    """P(A), P(B), P(TIE) at the token that starts the answer's ``choice`` value, renormalised
    over the three (4 decimals); ``None`` without logprobs, without a ``"choice": "`` in the
    answer, or when no alternative at that token names a choice.

    A token that holds the opening quote too (``"A``) is read the same way: the text before
    the value is cut off each alternative that starts with it.

    Example:
        >>> lp = [TokenLogprob(token='{"choice": ', logprob=0.0),
        ...       TokenLogprob(token='"T', logprob=math.log(0.6),
        ...                    top={'"T': math.log(0.6), '"A': math.log(0.2), '"B': math.log(0.2)})]
        >>> choice_probabilities(lp)
        {'A': 0.2, 'B': 0.2, 'TIE': 0.6}
        >>> choice_probabilities(None), choice_probabilities([TokenLogprob(token="A", logprob=0)])
        (None, None)
    """
    if not logprobs:
        return None
    m = _VALUE_START.search("".join(t.token for t in logprobs))
    found = token_at(logprobs, m.end()) if m else None
    if m is None or found is None:
        return None
    tok, start = found
    before = tok.token[:m.end() - start]
    mass = dict.fromkeys(_LABELS, 0.0)
    for alt, lp in (tok.top or {tok.token: tok.logprob}).items():
        if not alt.startswith(before):
            continue
        label = _label_of(alt[len(before):])
        if label is not None:
            mass[label] += math.exp(lp)
    total = sum(mass.values())
    if total <= 0:
        return None
    return {k: round(v / total, 4) for k, v in mass.items()}


def order_probabilities(probs: dict[str, float], candidate_first: bool) -> dict[str, float]:
    """One order's ``{"candidate", "baseline", "tie"}`` probabilities from its A/B/TIE ones.

    Example:
        >>> order_probabilities({"A": 0.2, "B": 0.7, "TIE": 0.1}, candidate_first=False)
        {'candidate': 0.7, 'baseline': 0.2, 'tie': 0.1}
    """
    first, second = ("candidate", "baseline") if candidate_first else ("baseline", "candidate")
    out = {first: probs["A"], second: probs["B"], "tie": probs["TIE"]}
    return {k: out[k] for k in ("candidate", "baseline", "tie")}


def average_orders(orders: Sequence[dict[str, float]]) -> dict[str, float]:
    """The mean of the orders' ``candidate`` / ``baseline`` / ``tie`` probabilities
    (4 decimals).

    Example:
        >>> biased = [{"candidate": 0.6, "baseline": 0.3, "tie": 0.1},   # A shown first
        ...           {"candidate": 0.3, "baseline": 0.6, "tie": 0.1}]   # B shown first
        >>> average_orders(biased)
        {'candidate': 0.45, 'baseline': 0.45, 'tie': 0.1}
    """
    keys = ("candidate", "baseline", "tie")
    return {k: round(sum(o[k] for o in orders) / len(orders), 4) for k in keys}


def decide(probs: dict[str, float], *, tie_margin: float = 0.0) -> str:
    """``CANDIDATE``, ``BASELINE`` or ``TIE`` from the averaged probabilities: the more
    probable of candidate and baseline; ``TIE`` when they are within ``tie_margin`` of each
    other (``|P(candidate) - P(baseline)| < tie_margin``) or exactly equal.

    The judge's own P(tie) is kept in the details but does not vote: a small judge spreads
    its doubt between A and B onto TIE (the embedded judge's averaged P(tie) was 0.19-0.50 on
    50 LLMBar-Natural pairs, none of them a tie), so the argmax of the three said TIE where
    people saw a winner (accuracy 0.44 against 0.70 for this rule; docs/benchmarks.md).

    Example:
        >>> decide({"candidate": 0.32, "baseline": 0.30, "tie": 0.38})
        'CANDIDATE'
        >>> decide({"candidate": 0.32, "baseline": 0.30, "tie": 0.38}, tie_margin=0.05)
        'TIE'
        >>> decide({"candidate": 0.45, "baseline": 0.45, "tie": 0.1})
        'TIE'
    """
    gap = probs["candidate"] - probs["baseline"]
    if abs(gap) < tie_margin or gap == 0:
        return "TIE"
    return "CANDIDATE" if gap > 0 else "BASELINE"
