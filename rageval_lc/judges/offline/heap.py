"""Keep the C heap from growing with the number of texts encoded (glibc only; elsewhere nothing is done).

glibc raises its mmap threshold each time a large block is freed, so after the first forward passes the
models' large, short-lived tensors come from the heap instead of their own mappings; batches of varying
shapes then fragment it, and freed memory is not returned: on 200 RAGBench rows the offline judge's
resident memory grew to 1.9 GB where its live data needed well under 1 GB. Two remedies:

* :func:`fix_mmap_threshold` fixes the threshold (as ``MALLOC_MMAP_THRESHOLD_`` does), so large blocks keep
  their own mappings, returned when freed (the same run: 1.0 GB); done once, when the judge loads a model;
* :func:`release_free_memory` (``malloc_trim``) hands the heap's free pages back after each call that
  encodes and each prepared chunk, so the smaller blocks' fragmentation does not pile up over a run.

Both are process-wide; neither runs when ``RAGEVAL_KEEP_MALLOC=1``, and the threshold is left alone when
the environment sets ``MALLOC_MMAP_THRESHOLD_``.
"""

from __future__ import annotations

import ctypes
import os
import platform
from typing import Any

__all__ = ["MMAP_THRESHOLD", "fix_mmap_threshold", "release_free_memory"]

MMAP_THRESHOLD = 256 * 1024  # blocks at least this large get their own mapping, returned to the system when freed
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
_done: list[bool] = []


def _libc() -> Any:
    """glibc, when this process runs on it and the user has not opted out; else None."""
    if (
        platform.system() != "Linux"
        or platform.libc_ver()[0] != "glibc"
        or os.environ.get("RAGEVAL_KEEP_MALLOC") == "1"
    ):
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def fix_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` (once per process); True when it is fixed now."""
    if not _done:
        libc = None if "MALLOC_MMAP_THRESHOLD_" in os.environ else _libc()
        _done.append(bool(libc is not None and libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)))
    return _done[0]


def release_free_memory() -> None:
    """Give the heap's free pages back to the system (glibc's ``malloc_trim``; a few milliseconds)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
