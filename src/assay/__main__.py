"""``python -m assay``: the same as the ``assay`` command."""

from .cli.main import main

main()
