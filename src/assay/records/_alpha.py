"""Krippendorff's alpha of ratings that may be missing: a panel's judges rating the same rows,
or one judge's repeats of the same requests (``--repeat K``).

Example:
    >>> alpha_of([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]], "interval")
    (0.9369, None)
    >>> alpha_of([[1.0, 1.0], [1.0, 1.0]], "nominal")
    (None, 'undefined: every rating is the same value')
    >>> alpha_of([[1.0, float("nan")], [float("nan"), 2.0]], "interval")
    (None, 'undefined: no row has two ratings')
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["alpha_of"]


def alpha_of(rows: Sequence[Sequence[float]], level: str, *,
             same: str = "every rating is the same value") -> tuple[float | None, str | None]:
    """Krippendorff's alpha (the ``krippendorff`` package) of ``rows`` (one list per rater,
    NaN where a rater gave nothing) at ``level`` (``interval`` or ``nominal``), rounded to 4
    places; ``(None, why)`` when it is undefined (``same``: what to say when every rating of
    the rows rated twice or more is one value)."""
    import krippendorff  # imported when a summary that needs it is made, not with assay
    import numpy as np

    data = np.array([list(r) for r in rows], dtype=float)
    paired = data[:, np.sum(~np.isnan(data), axis=0) >= 2]  # the rows rated twice or more
    if paired.shape[1] == 0:
        return None, "undefined: no row has two ratings"
    values = paired[~np.isnan(paired)]
    if np.all(values == values[0]):
        return None, f"undefined: {same}"
    try:
        alpha = float(krippendorff.alpha(reliability_data=data,
                                         level_of_measurement=level))  # type: ignore[arg-type]
    except (ValueError, ZeroDivisionError) as e:
        return None, f"undefined: {e}"
    return (round(alpha, 4), None) if math.isfinite(alpha) else (None, "undefined")
