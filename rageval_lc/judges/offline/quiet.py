"""Load the packaged models without transformers' console noise.

Loading a model through transformers prints a "Loading weights" progress bar, a load report (the NLI
head's weights are "MISSING" until its adapter is applied) and deprecation warnings from its
libraries, on every run and even with ``--no-progress`` and no terminal. None of it is actionable, so
:func:`quiet_model_loading` silences it around a load and restores the settings it found. Set
``TRANSFORMERS_VERBOSITY=info`` (or ``debug``) to see it all again.

Example:
    >>> with quiet_model_loading():
    ...     pass  # load a model here
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_model_loading"]

_LOCK = threading.RLock()


@contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Silence transformers' progress bars, its logging below errors and library deprecation warnings."""
    if os.environ.get("TRANSFORMERS_VERBOSITY", "").lower() in {"info", "debug"}:
        yield
        return
    try:
        from huggingface_hub import utils as hub
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - nothing to silence without transformers
        yield
        return
    with _LOCK:
        bars = hf_logging.is_progress_bar_enabled()
        hub_bars_off = hub.are_progress_bars_disabled()
        verbosity = hf_logging.get_verbosity()
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                yield
        finally:
            hf_logging.set_verbosity(verbosity)
            if bars:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    hf_logging.enable_progress_bar()
                    if hub_bars_off:
                        hub.disable_progress_bars()
