"""The running assay's version, in a module of its own: what ``assay.__version__`` says, and
what the run store and ``assay --version`` record, without importing the top-level package.

Example:
    >>> import assay
    >>> __version__ == assay.__version__
    True
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
