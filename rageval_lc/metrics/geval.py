"""GEval factual accuracy and answer classification — pure maths (SPEC §5).

Factual accuracy = 0.5 correctness + 0.3 completeness + 0.2 consistency (each 0–100 from the judge),
graded A ≥ 80, B ≥ 60, C ≥ 40, D ≥ 20, else E. A criterion the judge could not assess is left out and
the weights renormalised over the others. Classification: an answer with an uncertainty phrase is
DON'T KNOW without a judge; otherwise the judge's CORRECT or WRONG.

Example:
    >>> factual_accuracy(100, 90, 80), grade(factual_accuracy(100, 90, 80))
    (93.0, 'A')
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

__all__ = [
    "GEVAL_WEIGHTS",
    "UNCERTAINTY_PHRASES",
    "answer_counts",
    "factual_accuracy",
    "grade",
    "is_dont_know",
]

GEVAL_WEIGHTS: dict[str, float] = {"correctness": 0.5, "completeness": 0.3, "consistency": 0.2}
#: The reference's uncertainty phrases (matched in the lower-cased answer).
UNCERTAINTY_PHRASES: tuple[str, ...] = (
    "i don't know",
    "i do not know",
    "unknown",
    "not sure",
    "cannot determine",
    "no information",
    "insufficient data",
    "unable to answer",
    "cannot answer",
    "don't have enough information",
    "not available",
    "no data",
)
#: Words that mark a very short answer (under 10 characters) as "no answer" (SPEC §5).
SHORT_NON_ANSWERS: tuple[str, ...] = ("unknown", "n/a", "none", "null")


def factual_accuracy(correctness: float | None, completeness: float | None, consistency: float | None) -> float | None:
    """The weighted 0–100 score over the criteria given (renormalised); None when none is given.

    Example (consistency not assessable: (0.5 × 80 + 0.3 × 60) / 0.8):
        >>> factual_accuracy(80, 60, None)
        72.5
    """
    values = {"correctness": correctness, "completeness": completeness, "consistency": consistency}
    present = {k: float(v) for k, v in values.items() if v is not None}
    if not present:
        return None
    total = math.fsum(GEVAL_WEIGHTS[k] for k in present)
    return round(math.fsum(GEVAL_WEIGHTS[k] * v for k, v in present.items()) / total, 10)


def grade(score: float) -> str:
    """The letter grade of a 0–100 factual-accuracy score.

    Example:
        >>> [grade(s) for s in (80, 79.99, 60, 40, 20, 19.99)]
        ['A', 'B', 'B', 'C', 'D', 'E']
    """
    for threshold, letter in ((80, "A"), (60, "B"), (40, "C"), (20, "D")):
        if score >= threshold:
            return letter
    return "E"


def is_dont_know(answer: str) -> bool:
    """True when the answer states uncertainty, is empty, or is under 10 characters and says "none", "n/a", ...

    The reference's rule, case-insensitive; an empty answer counts as "don't know" too (it answers nothing).

    Example:
        >>> is_dont_know("I don't know."), is_dont_know("N/A"), is_dont_know("None of them: Paris.")
        (True, True, False)
    """
    text = answer.lower().strip()
    if not text or any(phrase in text for phrase in UNCERTAINTY_PHRASES):
        return True
    return len(text) < 10 and any(word in text for word in SHORT_NON_ANSWERS)


def answer_counts(labels: Iterable[str | None]) -> dict[str, int]:
    """Counts of CORRECT, WRONG and DON'T KNOW labels (None — undetermined — is counted apart).

    Example (the reference's distribution: 17 correct, 6 wrong, 1 don't know):
        >>> answer_counts(["CORRECT"] * 17 + ["WRONG"] * 6 + ["DON'T KNOW"])
        {'correct_answers_count': 17, 'wrong_answers_count': 6, 'dont_know_answers_count': 1, 'undetermined': 0}
    """
    counts = Counter(labels)
    return {
        "correct_answers_count": counts["CORRECT"],
        "wrong_answers_count": counts["WRONG"],
        "dont_know_answers_count": counts["DON'T KNOW"],
        "undetermined": counts[None],
    }
