"""The offline judge's contradiction detector: is a response sentence contradicted by the documents?

Its face: :func:`evidence_units` (the document texts a sentence is compared with), :func:`find_conflict` (the slot
checks), :func:`nli_conflict` (the grounding model's reading), :func:`stating_sentence`, :func:`said_verbatim`,
:func:`figures_stated_otherwise` (an answer's numbers and dates against a reference's).
Inside: ``reading`` (what a text states), ``matching`` (a sentence against one text), ``verdicts`` (the conflicts).
"""

from rageval_lc.judges.offline.contradiction.matching import derived_quantities, figures_stated_otherwise
from rageval_lc.judges.offline.contradiction.reading import EvidenceUnit, alignment, evidence_units, frame_words
from rageval_lc.judges.offline.contradiction.verdicts import (
    Conflict,
    find_conflict,
    keys_label,
    nli_conflict,
    said_verbatim,
    stating_sentence,
)

__all__ = [
    "Conflict",
    "EvidenceUnit",
    "alignment",
    "derived_quantities",
    "evidence_units",
    "figures_stated_otherwise",
    "find_conflict",
    "frame_words",
    "keys_label",
    "nli_conflict",
    "said_verbatim",
    "stating_sentence",
]
