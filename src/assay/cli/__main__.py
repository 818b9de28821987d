"""``python -m assay.cli``: the same as the ``assay`` command."""

from .main import main

main()
