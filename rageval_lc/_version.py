"""The package's version, in one place: ``rageval_lc.__version__`` and ``rageval --version`` read it.

Example:
    >>> __version__
    '0.1.0'
"""

__version__ = "0.1.0"
