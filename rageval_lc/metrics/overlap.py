"""The word-overlap baseline every judge change is measured against (docs/judges/offline.md and BENCHMARKS.md
show the offline judge's figures beside it): the share of the answer's words not found among the passages' words.
One line of logic, no model; a judge that cannot rank answers better than this has learned nothing
the words did not already say.

Lower-case the answer and the passages, take the runs of ``[a-z0-9]+``, drop :data:`OVERLAP_STOPWORDS`; the
hallucination score is 1 − (answer words found among the passages' words / answer words), 0 for an answer with
none.

Example:
    >>> overlap_hallucination("It was finished in 1999.", ["The tower was finished in 1889."])
    0.5
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["OVERLAP_STOPWORDS", "overlap_counts", "overlap_hallucination", "overlap_words"]

OVERLAP_STOPWORDS = frozenset(
    "a an the of to in on for and or but is are was were be been being it its this that these those with as at by "
    "from not no yes can could may might will would should do does did has have had i you he she they we there "
    "their".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def overlap_words(text: str) -> list[str]:
    """The baseline's words of ``text``: lower-cased runs of ``[a-z0-9]``, stopwords dropped, in order.

    >>> overlap_words("The tower was finished in 1889.")
    ['tower', 'finished', '1889']
    """
    return [w for w in _WORD.findall(text.lower()) if w not in OVERLAP_STOPWORDS]


def overlap_counts(answer: str, passages: Sequence[str]) -> tuple[int, int]:
    """(the answer's content words found among the passages' words, its content words), counted with repeats.

    >>> overlap_counts("It was finished in 1999.", ["The tower was finished in 1889."])
    (1, 2)
    """
    words = overlap_words(answer)
    known = set(overlap_words(" ".join(passages)))
    return sum(w in known for w in words), len(words)


def overlap_hallucination(answer: str, passages: Sequence[str]) -> float:
    """1 − the share of the answer's content words (counted with repeats) found among the passages' words.

    Example:
        >>> overlap_hallucination("Paris.", ["Paris is big."]), overlap_hallucination("It is.", ["x"])
        (0.0, 0.0)
    """
    found, words = overlap_counts(answer, passages)
    return 1.0 - found / words if words else 0.0
