"""How sure a rate of successes is: the 95% Wilson score interval of ``k`` in ``n``.

A rate over few trials (an attack success rate over 20 seeds, a defect rate per category) is
uncertain, and the plain normal interval misbehaves there (it goes below 0 or above 1, and is
zero-wide at 0 of n). The Wilson interval stays inside [0, 1] and is honest at 0 and at n.

Example:
    >>> wilson_interval(40, 50)
    (0.6696, 0.8876)
    >>> wilson_interval(0, 10)
    (0.0, 0.2775)
    >>> wilson_interval(0, 0) is None
    True
"""

from __future__ import annotations

import math

__all__ = ["wilson_interval"]

#: The normal quantile of a two-sided 95% interval.
_Z95 = 1.959963984540054


def wilson_interval(k: int, n: int, *, z: float = _Z95,
                    digits: int = 4) -> tuple[float, float] | None:
    """The Wilson score interval (95% by default) of ``k`` successes in ``n`` trials, rounded
    to ``digits``; ``None`` when ``n`` is 0 (no trial, no rate).

    Example:
        >>> wilson_interval(5, 5)
        (0.5655, 1.0)
        >>> wilson_interval(3, 2)
        Traceback (most recent call last):
        ...
        ValueError: Got k=3, n=2. Must be 0 <= k <= n.
    """
    if not 0 <= k <= n:
        raise ValueError(f"Got k={k}, n={n}. Must be 0 <= k <= n.")
    if n == 0:
        return None
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # within [0, 1] whatever the rounding; exact at the ends (k == 0: low 0; k == n: high 1)
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return round(low, digits) + 0.0, round(high, digits) + 0.0
