"""The one split of RAGBench rows into a part fitted on and a part held out, shared by every script that needs it.

``benchmarks/calibrate_local_judge.py`` fits the offline judge on the ``fit`` fold and reports figures on the
``held`` fold; ``training/make_twins.py`` gives each twin its original's fold, so a twin never crosses the split.
Pure standard library: importing it loads no model.

    >>> fold_of("emanual_train", "emanual", "42"), fold_of("covidqa_validation", "covidqa", 0)
    ('fit', 'held')
"""

from __future__ import annotations

import hashlib


def fold_of(dataset_name: str, subset: str, ragbench_id: object) -> str:
    """'fit' or 'held': every ``*_train`` row is fitted on; a validation row by the parity of
    ``sha256("<sub-dataset>:<id>")``, so both responses to a question fall on one side."""
    if dataset_name.endswith("_train"):
        return "fit"
    digest = hashlib.sha256(f"{subset}:{ragbench_id}".encode()).hexdigest()
    return "fit" if int(digest, 16) % 2 == 0 else "held"
