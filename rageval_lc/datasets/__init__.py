"""Loaders that turn dataset rows into samples (and released labels)."""

from rageval_lc.datasets.ragbench import RagbenchRecord, is_ragbench_row, load_ragbench, ragbench_record
from rageval_lc.datasets.rows import sample_from_row

__all__ = ["RagbenchRecord", "is_ragbench_row", "load_ragbench", "ragbench_record", "sample_from_row"]
