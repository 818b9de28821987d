"""The words the CI outputs (JUnit XML, the markdown summary) share: a bar's label, its
verdict's marker, a figure with its interval, and a text made safe to show: secrets masked,
whitespace folded, clipped.

Example:
    >>> from assay.gate import BarOutcome
    >>> o = BarOutcome(name="groundedness", kind="fail_under", bar=4.0, verdict="fail",
    ...                value=3.62, interval=(3.1, 4.05))
    >>> bar_label(o), VERDICT_MARK[o.verdict], figure(o)
    ('groundedness >= 4.0', 'FAIL', '3.62 [3.1, 4.05]')
    >>> shown_text("judge said:\\n  key sk-proj-a1b2c3d4e5f6 was refused", 40)
    'judge said: key *** was refused'
"""

from __future__ import annotations

from .._secrets import mask_secrets
from ._outcome import BarOutcome

__all__ = ["VERDICT_MARK", "bar_label", "figure", "shown_text"]

_MARGIN = 512

#: How each verdict is written: plain words, no emoji (terminals, logs and XML show them).
VERDICT_MARK = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}


def bar_label(outcome: BarOutcome) -> str:
    """The bar as a person reads it: ``groundedness >= 4.0``, ``violence_defect_rate <= 0.05``,
    ``groundedness max drop 0.2``.

    Example:
        >>> bar_label(BarOutcome(name="groundedness", kind="max_drop", bar=0.2, verdict="pass"))
        'groundedness max drop 0.2'
    """
    name = shown_text(outcome.name)
    limit = float(outcome.bar)
    if outcome.kind == "max_drop":
        return f"{name} max {'rise' if outcome.lower_is_better else 'drop'} {limit}"
    return f"{name} {'>=' if outcome.kind == 'fail_under' else '<='} {limit}"


def figure(outcome: BarOutcome) -> str:
    """The value decided on (a difference signed), with its interval when it has one; ``-``
    when there was nothing to decide on.

    Example:
        >>> figure(BarOutcome(name="g", kind="max_drop", bar=0.2, verdict="pass", value=-0.05,
        ...                   interval=(-0.15, 0.05)))
        '-0.05 [-0.15, +0.05]'
    """
    if outcome.value is None:
        return "-"
    sign = "+" if outcome.kind == "max_drop" else ""
    text = _number(outcome.value, sign)
    if outcome.interval is not None:
        lo, hi = outcome.interval
        text += f" [{_number(lo, sign)}, {_number(hi, sign)}]"
    return text


def _number(x: float, sign: str) -> str:
    """Up to 4 significant decimals, trailing zeros cut: 3.62, 0.0417, -0.05, +0.1."""
    text = f"{x:{sign}.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("+0", "-0") else text


def shown_text(text: object, chars: int | None = None) -> str:
    """``text`` as one line fit to show in a shared place: credentials masked
    (:func:`~assay._secrets.mask_secrets`), whitespace folded, clipped to ``chars`` (an
    ellipsis marks the cut)."""
    text = str(text)
    if chars is not None:  # mask only what can be shown (a key of up to _MARGIN characters
        text = text[:chars + _MARGIN]  # across the cut is still masked whole)
    line = " ".join(mask_secrets(text).split())
    if chars is not None and len(line) > chars:
        line = line[:chars - 1].rstrip() + "…"
    return line
