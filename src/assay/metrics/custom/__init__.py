"""Custom judge metrics: pointwise (a score or label per row) and pairwise (candidate vs
baseline), defined in Python or in a template file (``--metric-file``).

Example:
    >>> from assay.metrics.custom import PointwiseMetric
    >>> PointwiseMetric("clarity", "{{ response }}", scale="1-3").scale.labels
    [1, 2, 3]
"""

from ._claims import check_file_metric_names
from ._file import load_metric_file
from ._pairwise import (
    BASELINE_FIELD,
    CHOICES,
    DEFAULT_TIE_MARGIN,
    PAIRWISE_FAMILY,
    PairwiseFamily,
    PairwiseMetric,
    parse_choice,
)
from ._pointwise import PointwiseMetric
from ._scale import Scale

__all__ = ["BASELINE_FIELD", "CHOICES", "DEFAULT_TIE_MARGIN", "PAIRWISE_FAMILY",
           "PairwiseFamily", "PairwiseMetric", "PointwiseMetric", "Scale",
           "check_file_metric_names", "load_metric_file", "parse_choice"]
