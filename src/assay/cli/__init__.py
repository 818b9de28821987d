"""The ``assay`` command line: one module per command; ``main`` only registers them."""
