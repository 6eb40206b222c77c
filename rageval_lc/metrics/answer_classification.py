"""Answer classification (definition: docs/metrics/ragas.md, "Definitions"): CORRECT, WRONG or DON'T KNOW.

An answer with an uncertainty phrase is DON'T KNOW without a judge; otherwise the judge's ``label`` verdict,
CORRECT or WRONG against the reference. The score is 1.0 for CORRECT and 0.0 otherwise; the details have the
class, and a run's report counts them (:func:`answer_counts`).

Example:
    >>> is_dont_know("I don't know."), is_dont_know("N/A"), is_dont_know("None of them: Paris.")
    (True, True, False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from rageval_lc.metrics.results import NEEDS_REFERENCE, details_of, missing, ok, undetermined
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored

__all__ = [
    "METRIC",
    "SHORT_NON_ANSWERS",
    "UNCERTAINTY_PHRASES",
    "answer_counts",
    "is_dont_know",
    "score_answer_classification",
]

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
#: Words that mark a very short answer (under 10 characters) as "no answer" (docs/metrics/ragas.md).
SHORT_NON_ANSWERS: tuple[str, ...] = ("unknown", "n/a", "none", "null")


def is_dont_know(answer: str) -> bool:
    """True when the answer states uncertainty, is empty, or is under 10 characters and says "none", "n/a", ...

    The reference's rule, case-insensitive; an empty answer counts as "don't know" too (it answers nothing).

    Example:
        >>> is_dont_know(""), is_dont_know("Paris.")
        (True, False)
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


def score_answer_classification(ctx: Judgements) -> Scored:
    """DON'T KNOW when the answer states uncertainty (no call); else the judge's CORRECT or WRONG.

    The score is 1.0 for CORRECT and 0.0 otherwise; ``details["label"]`` has the class.
    """
    name = "answer_classification"
    if is_dont_know(ctx.sample.response):
        result = ok(name, 0.0, "The answer states uncertainty (an uncertainty phrase).", label="DON'T KNOW")
        return {name: result}, details_of(ctx, name, label="DON'T KNOW")
    if not ctx.has_reference:
        return undetermined((name,), NEEDS_REFERENCE), details_of(ctx, name)
    verdict = ctx.label()
    if not verdict.ok:
        return missing((name,), verdict), details_of(ctx, name, verdict)
    label = verdict.value.label
    result = ok(name, 1.0 if label == "CORRECT" else 0.0, verdict.value.reason or label, label=label)
    return {name: result}, details_of(ctx, name, verdict, label=label)


METRIC = MetricSpec(
    "answer_classification",
    ("answer_classification",),
    "CORRECT / WRONG against the reference, DON'T KNOW on an uncertainty phrase (1.0 = correct).",
    score_answer_classification,
    needs_reference=True,
    verdicts=("label",),
)
