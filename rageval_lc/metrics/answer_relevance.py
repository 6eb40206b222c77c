"""Answer relevance (definition: docs/metrics/ragas.md, "Definitions"): how well the answer addresses the question.

The ``questions`` verdict is n questions generated from the answer (the reference's n=3); the score is the mean
cosine similarity of the question with them, on the embedding model, floored at 0. A judge that writes no
questions rates the answer directly on a 0-1 rubric instead (the plan's fallback). An empty answer → 0.0.

Example:
    >>> round(answer_relevance([0.9, 0.8, 0.7]), 4), answer_relevance([], fallback=0.5), answer_relevance([])
    (0.8, 0.5, None)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rageval_lc.metrics.results import details_of, ok
from rageval_lc.metrics.spec import Judgements, MetricSpec, Scored
from rageval_lc.schema import MetricResult
from rageval_lc.text import plural

__all__ = ["METRIC", "answer_relevance", "score_answer_relevance"]


def answer_relevance(similarities: Sequence[float], *, fallback: float | None = None) -> float | None:
    """Mean cosine between the question and the questions generated from the answer, floored at 0;
    the direct rubric score (``fallback``) when nothing was generated; None when neither exists.

    Example:
        >>> answer_relevance([0.5, -0.9])
        0.0
    """
    if similarities:
        return max(0.0, math.fsum(similarities) / len(similarities))
    return fallback


def score_answer_relevance(ctx: Judgements) -> Scored:
    """Mean cosine of the question with n questions generated from the answer; the rubric as fallback."""
    sample = ctx.sample
    if not sample.response.strip():
        result = ok("answer_relevance", 0.0, "The answer is empty: it addresses nothing.")
        return {"answer_relevance": result}, details_of(ctx, "answer_relevance")
    questions = ctx.questions()
    generated = questions.value if questions.ok else []
    if generated:
        similarities = ctx.embeddings.similarities(sample.question, generated)
        score = answer_relevance(similarities)
        assert score is not None
        asked = plural(len(generated), "question")
        reason = f"Mean similarity {score:.2f} between the question and {asked} generated from the answer."
        pairs = [{"question": q, "similarity": round(s, 6)} for q, s in zip(generated, similarities, strict=True)]
        result = ok("answer_relevance", score, reason, generated_questions=pairs, method="question_generation")
        return {"answer_relevance": result}, details_of(ctx, "answer_relevance", questions, generated_questions=pairs)
    why = questions.reason.rstrip(".") if questions.reason else "no question was generated"
    rubric = ctx.rubric()
    if not rubric.ok:
        reason = f"No question generated ({why}) and the direct rubric failed: {rubric.reason}"
        status = "error" if rubric.status == "error" else "undetermined"
        result = MetricResult(name="answer_relevance", status=status, reason=reason)
        return {"answer_relevance": result}, details_of(ctx, "answer_relevance", rubric)
    reason = f"Direct rubric score ({why[0].lower() + why[1:]}): {rubric.value.reason}".strip()
    result = ok("answer_relevance", rubric.value.score, reason, method="direct_rubric")
    return {"answer_relevance": result}, details_of(ctx, "answer_relevance", rubric)


METRIC = MetricSpec(
    "answer_relevance",
    ("answer_relevance",),
    "Similarity of the question to questions generated from the answer (rubric fallback).",
    score_answer_relevance,
    answer_scores=("answer_relevance",),
    verdicts=("questions",),
)
