"""A metric file never replaces another metric, as a plugin never does: a file whose ``name``
is taken (a built-in, a registered metric, an installed plugin) is refused, and so are two
files of one run that claim the same name (neither wins).

Example:
    >>> print(name_claim_problem("groundedness"))
    metric 'groundedness' is claimed by built-in and by this file: the file is refused (a metric file never replaces another metric); fix: rename it in the front matter, e.g. 'name: my_groundedness'
    >>> name_claim_problem("my_tone") is None
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import ConfigError
from .._base import Metric

__all__ = ["check_file_metric_names", "name_claim_problem"]


def name_claim_problem(name: str) -> str | None:
    """Why a metric file may not use ``name`` (who has it already), or None when it is free."""
    from .._registry import REGISTRY  # the registry module registers the built-ins

    owner = REGISTRY.claimant(name)
    if owner is None:
        return None
    return (f"metric {name!r} is claimed by {owner} and by this file: the file is refused (a "
            f"metric file never replaces another metric); fix: rename it in the front matter, "
            f"e.g. 'name: my_{name}'")


def check_file_metric_names(metrics: Sequence[Metric]) -> None:
    """Refuse metric files of one run that claim the same name, naming every file.

    Raises:
        ConfigError: two or more of ``metrics`` have one name.

    Example:
        >>> from assay.metrics.custom import PointwiseMetric
        >>> a = PointwiseMetric("tone", "{{ response }}", where="a.md")
        >>> b = PointwiseMetric("tone", "{{ response }}", where="b.md")
        >>> try:
        ...     check_file_metric_names([a, b])
        ... except ConfigError as e:
        ...     print(e)
        Metric 'tone' is claimed by a.md and by b.md: both files are refused (a metric file never replaces another metric).
        Fix: give each file its own name in its front matter.
    """
    claims: dict[str, list[str]] = {}
    for metric in metrics:
        where = metric.source or "a file"
        files = claims.setdefault(metric.name, [])
        if where not in files:  # one file given twice is one claim
            files.append(where)
    problems = [f"Metric {name!r} is claimed by {' and by '.join(files)}: "
                f"{'both' if len(files) == 2 else f'all {len(files)}'} files are refused (a "
                "metric file never replaces another metric)."
                for name, files in claims.items() if len(files) > 1]
    if problems:
        raise ConfigError("\n".join(problems) + "\nFix: give each file its own name in its "
                          "front matter.")
