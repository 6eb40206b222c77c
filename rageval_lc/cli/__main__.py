"""``python -m rageval_lc.cli``: the ``rageval`` command."""

from rageval_lc.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
