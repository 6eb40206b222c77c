"""Each metric's scoring of one sample (TRACe and the RAGAS / GraphRAG family): verdicts from the
shared judgements, numbers from :mod:`rageval_lc.metrics.ragas`, :mod:`~rageval_lc.metrics.geval` and
:mod:`~rageval_lc.metrics.similarity`.

Each function takes a :class:`~rageval_lc.scoring.judgements.SampleJudgements` and returns one
:class:`~rageval_lc.schema.MetricResult` per score name and the family's details. A metric that needs a
reference answer is ``undetermined`` on a sample without one, and one that needs contexts on a sample
without any (decided before these run, in :func:`~rageval_lc.scoring.scorers.score_metric`); nothing here
calls a model directly.

Example:
    >>> from rageval_lc.schema import RagSample
    >>> from rageval_lc.scoring.judgements import SampleJudgements, ScoringOptions
    >>> sample = RagSample(question="Q?", contexts=["A."], response="I don't know.", reference="A.")
    >>> results, details = score_answer_classification(SampleJudgements(sample, ScoringOptions()))
    >>> results["answer_classification"].details["label"], details["usage"]["calls"]
    ("DON'T KNOW", 0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from rageval_lc.judges.base import CriteriaDefinition, JudgeUsage
from rageval_lc.metrics.geval import factual_accuracy, grade, is_dont_know
from rageval_lc.metrics.ragas import (
    answer_relevance,
    context_precision,
    context_precision_at_k,
    context_recall,
    faithfulness,
    ragas_score,
)
from rageval_lc.metrics.trace import TRACE_SCORE_NAMES, trace_scores
from rageval_lc.schema import MetricResult
from rageval_lc.scoring.judgements import SampleJudgements
from rageval_lc.scoring.spec import MetricSpec
from rageval_lc.text import plural

__all__ = [
    "score_answer_classification",
    "score_answer_relevance",
    "score_bert_score",
    "score_context_precision",
    "score_context_recall",
    "score_criteria",
    "score_factual_accuracy",
    "score_faithfulness",
    "score_function",
    "score_metric",
    "score_ragas",
    "score_semantic_similarity",
    "score_trace",
]

Scored = tuple[dict[str, MetricResult], dict[str, Any]]
NEEDS_REFERENCE = "Needs a reference answer; the sample has none."


def _ok(name: str, score: float, reason: str, **details: Any) -> MetricResult:
    return MetricResult(name=name, score=min(1.0, max(0.0, score)), reason=reason, details=details)


def _missing(names: tuple[str, ...], judgement: Any) -> dict[str, MetricResult]:
    """Results for a judgement that gave no verdict: its status (undetermined or error) and reason."""
    status = "error" if judgement.status == "error" else "undetermined"
    return {name: MetricResult(name=name, status=status, reason=judgement.reason) for name in names}


def _undetermined(names: tuple[str, ...], reason: str) -> dict[str, MetricResult]:
    return {name: MetricResult(name=name, status="undetermined", reason=reason) for name in names}


def _details(ctx: SampleJudgements, metric: str, judgement: Any = None, **extra: Any) -> dict[str, Any]:
    details: dict[str, Any] = {
        "judge": ctx.judge.name,
        "scoring_mode": ctx.mode,
        "judgements": ctx.consumed(metric),
        "usage": ctx.usage_of(metric).to_dict(),
    }
    if judgement is not None:
        if judgement.notes:
            details["judge_notes"] = judgement.notes
        if not judgement.ok and judgement.raw is not None:
            details["raw_output"] = judgement.raw
    return {**details, **extra}


def _claim_text(verdict: Any) -> str:
    """An unsupported claim, quoted, with the judge's reason up to its figures (the offline judge's are long)."""
    reason = (verdict.reason or "").split("; estimated")[0].rstrip(". ")
    return f"{verdict.claim!r}" + (f" ({reason})" if reason else "")


def score_faithfulness(ctx: SampleJudgements) -> Scored:
    """Supported claims / claims (no claims → 1.0)."""

    def compute() -> Scored:
        claims = ctx.claims()
        if not claims.ok:
            return _missing(("faithfulness",), claims), _details(ctx, "faithfulness", claims)
        verdicts = claims.value
        score = faithfulness([c.supported for c in verdicts])
        unsupported = [c for c in verdicts if not c.supported]
        if not verdicts:
            reason = "The answer makes no claim, so nothing it says is unsupported."
        elif unsupported:
            shown = "; ".join(_claim_text(c) for c in unsupported[:5])
            supported = len(verdicts) - len(unsupported)
            reason = f"{supported} of {plural(len(verdicts), 'claim')} supported; unsupported: {shown}"
        else:
            every = "The claim is" if len(verdicts) == 1 else f"All {len(verdicts)} claims are"
            reason = f"{every} supported by the contexts."
        claims_out = [c.model_dump() for c in verdicts]
        return {"faithfulness": _ok("faithfulness", score, reason, claims=claims_out)}, _details(
            ctx, "faithfulness", claims, claims=claims_out
        )

    return compute()


def score_context_precision(ctx: SampleJudgements) -> Scored:
    """Mean relevance of the contexts and its rank-aware form (called on samples with contexts)."""

    def compute() -> Scored:
        names = ("context_precision", "context_precision_at_k")
        verdicts = ctx.context_verdicts()
        if not verdicts.ok:
            return _missing(names, verdicts), _details(ctx, "context_precision", verdicts)
        flags = [v.relevant for v in sorted(verdicts.value, key=lambda v: v.index)]
        if not flags:
            reason = "No contexts were retrieved."
        else:
            ranks = [str(i + 1) for i, f in enumerate(flags) if f]
            reason = f"{len(ranks)} of {plural(len(flags), 'context')} relevant" + (
                f" (ranks {', '.join(ranks)})." if ranks else "."
            )
        out = [v.model_dump() for v in verdicts.value]
        results = {
            "context_precision": _ok("context_precision", context_precision(flags), reason, contexts=out),
            "context_precision_at_k": _ok(
                "context_precision_at_k", context_precision_at_k(flags), reason + " Rank-aware: mean precision@k."
            ),
        }
        return results, _details(ctx, "context_precision", verdicts, contexts=out)

    return compute()


def score_context_recall(ctx: SampleJudgements) -> Scored:
    """Reference statements attributable to the contexts / statements (none → 1.0; called on samples with
    contexts)."""

    def compute() -> Scored:
        if not ctx.has_reference:
            return _undetermined(("context_recall",), NEEDS_REFERENCE), _details(ctx, "context_recall")
        statements = ctx.statements()
        if not statements.ok:
            return _missing(("context_recall",), statements), _details(ctx, "context_recall", statements)
        flags = [s.attributed for s in statements.value]
        score = context_recall(flags, has_contexts=bool(ctx.sample.contexts))
        if not flags:
            reason = "The reference has no statements to recall."
        elif not ctx.sample.contexts:
            reason = "No contexts were retrieved, so nothing of the reference is recalled."
        else:
            missing = [s.statement for s in statements.value if not s.attributed]
            reason = (
                f"{len(flags) - len(missing)} of {plural(len(flags), 'reference statement')} found in the contexts"
                + ("; missing: " + "; ".join(repr(m) for m in missing[:5]) if missing else ".")
            )
        out = [s.model_dump() for s in statements.value]
        return {"context_recall": _ok("context_recall", score, reason, statements=out)}, _details(
            ctx, "context_recall", statements, statements=out
        )

    return compute()


def score_answer_relevance(ctx: SampleJudgements) -> Scored:
    """Mean cosine of the question with n questions generated from the answer; the rubric as fallback."""

    def compute() -> Scored:
        sample = ctx.sample
        if not sample.response.strip():
            result = _ok("answer_relevance", 0.0, "The answer is empty: it addresses nothing.")
            return {"answer_relevance": result}, _details(ctx, "answer_relevance")
        questions = ctx.questions()
        generated = questions.value if questions.ok else []
        if generated:
            similarities = ctx.embeddings.similarities(sample.question, generated)
            score = answer_relevance(similarities)
            assert score is not None
            asked = plural(len(generated), "question")
            reason = f"Mean similarity {score:.2f} between the question and {asked} generated from the answer."
            pairs = [{"question": q, "similarity": round(s, 6)} for q, s in zip(generated, similarities, strict=True)]
            result = _ok("answer_relevance", score, reason, generated_questions=pairs, method="question_generation")
            return {"answer_relevance": result}, _details(ctx, "answer_relevance", questions, generated_questions=pairs)
        why = questions.reason.rstrip(".") if questions.reason else "no question was generated"
        rubric = ctx.rubric()
        if not rubric.ok:
            reason = f"No question generated ({why}) and the direct rubric failed: {rubric.reason}"
            status = "error" if rubric.status == "error" else "undetermined"
            result = MetricResult(name="answer_relevance", status=status, reason=reason)
            return {"answer_relevance": result}, _details(ctx, "answer_relevance", rubric)
        reason = f"Direct rubric score ({why[0].lower() + why[1:]}): {rubric.value.reason}".strip()
        result = _ok("answer_relevance", rubric.value.score, reason, method="direct_rubric")
        return {"answer_relevance": result}, _details(ctx, "answer_relevance", rubric)

    return compute()


def score_ragas(
    ctx: SampleJudgements, parts: Mapping[str, Callable[[SampleJudgements], Scored]] | None = None
) -> Scored:
    """The weighted composite of the four, renormalised over those determined.

    ``parts`` scores each part (default: the four functions here);
    :func:`~rageval_lc.scoring.sample.evaluate_sample` passes its own, which leave the context parts
    undetermined on a sample without contexts.
    """
    parts = parts or {
        "faithfulness": score_faithfulness,
        "context_precision": score_context_precision,
        "context_recall": score_context_recall,
        "answer_relevance": score_answer_relevance,
    }
    components: dict[str, float | None] = {}
    for name, scorer in parts.items():
        results, _ = scorer(ctx)  # the judgements are shared; only the arithmetic is repeated
        components[name] = results[name].score
    weights = ctx.options.ragas_weights
    score = ragas_score(components, weights)
    left_out = [name for name, value in components.items() if value is None]
    details = _details(ctx, "ragas_score", components=components, left_out=left_out)
    if score is None:
        result = MetricResult(name="ragas_score", status="undetermined", reason="None of its four parts is determined.")
        return {"ragas_score": result}, details
    reason = "Weighted mean of " + ", ".join(f"{n} {v:.2f}" for n, v in components.items() if v is not None)
    reason += f"; left out (weights renormalised): {', '.join(left_out)}." if left_out else "."
    return {"ragas_score": _ok("ragas_score", score, reason, components=components)}, details


def score_factual_accuracy(ctx: SampleJudgements) -> Scored:
    """GEval: 0.5 correctness + 0.3 completeness + 0.2 consistency, with its grade A-E."""
    if not ctx.has_reference:
        return _undetermined(("factual_accuracy",), NEEDS_REFERENCE), _details(ctx, "factual_accuracy")
    verdict = ctx.accuracy()
    if not verdict.ok:
        return _missing(("factual_accuracy",), verdict), _details(ctx, "factual_accuracy", verdict)
    v = verdict.value
    percentage = factual_accuracy(v.correctness, v.completeness, v.consistency)
    criteria = {"correctness": v.correctness, "completeness": v.completeness, "consistency": v.consistency}
    if percentage is None:
        result = MetricResult(name="factual_accuracy", status="undetermined", reason="No criterion was assessed.")
        return {"factual_accuracy": result}, _details(ctx, "factual_accuracy", verdict, criteria=criteria)
    letter = grade(percentage)
    shown = ", ".join(f"{k} {val:.0f}" for k, val in criteria.items() if val is not None)
    reason = f"{percentage:.1f}/100, grade {letter} ({shown}). {v.overall_reason or v.correctness_reason}".strip()
    result = _ok("factual_accuracy", percentage / 100, reason, percentage=percentage, grade=letter, criteria=criteria)
    reasons = {
        "correctness": v.correctness_reason,
        "completeness": v.completeness_reason,
        "consistency": v.consistency_reason,
    }
    details = _details(ctx, "factual_accuracy", verdict, grade=letter, criteria=criteria, criteria_reasons=reasons)
    return {"factual_accuracy": result}, details


def score_answer_classification(ctx: SampleJudgements) -> Scored:
    """DON'T KNOW when the answer states uncertainty (no call); else the judge's CORRECT or WRONG.

    The score is 1.0 for CORRECT and 0.0 otherwise; ``details["label"]`` has the class.
    """
    name = "answer_classification"
    if is_dont_know(ctx.sample.response):
        result = _ok(name, 0.0, "The answer states uncertainty (an uncertainty phrase).", label="DON'T KNOW")
        return {name: result}, _details(ctx, name, label="DON'T KNOW")
    if not ctx.has_reference:
        return _undetermined((name,), NEEDS_REFERENCE), _details(ctx, name)
    verdict = ctx.label()
    if not verdict.ok:
        return _missing((name,), verdict), _details(ctx, name, verdict)
    label = verdict.value.label
    result = _ok(name, 1.0 if label == "CORRECT" else 0.0, verdict.value.reason or label, label=label)
    return {name: result}, _details(ctx, name, verdict, label=label)


def score_semantic_similarity(ctx: SampleJudgements) -> Scored:
    """max(0, cosine(answer, reference)) on the embedding model; an empty side → 0.0."""
    sample = ctx.sample
    if sample.reference is None:
        return _undetermined(("semantic_similarity",), NEEDS_REFERENCE), _details(ctx, "semantic_similarity")
    if not sample.response.strip() or not sample.reference.strip():
        result = _ok("semantic_similarity", 0.0, "The answer or the reference is empty.")
    else:
        score = ctx.embeddings.semantic_similarity(sample.response, sample.reference)
        result = _ok("semantic_similarity", score, f"Cosine similarity of answer and reference: {score:.3f}.")
    return {"semantic_similarity": result}, _details(ctx, "semantic_similarity", model=_model_name(ctx))


def score_bert_score(ctx: SampleJudgements) -> Scored:
    """BERTScore precision, recall and F1 from the embedding model's token vectors."""
    names = ("bert_score_precision", "bert_score_recall", "bert_score_f1")
    sample = ctx.sample
    if sample.reference is None:
        return _undetermined(names, NEEDS_REFERENCE), _details(ctx, "bert_score")
    precision, recall, f1 = ctx.embeddings.bert_score(sample.response, sample.reference)
    if not sample.response.strip() or not sample.reference.strip():
        why = "The answer or the reference is empty."
    else:
        why = f"Greedy token matching: precision {precision:.3f}, recall {recall:.3f}."
    values = dict(zip(names, (precision, recall, f1), strict=True))
    results = {name: _ok(name, value, why) for name, value in values.items()}
    return results, _details(ctx, "bert_score", model=_model_name(ctx))


def _model_name(ctx: SampleJudgements) -> str:
    return ctx.embeddings.model_name


def score_trace(ctx: SampleJudgements) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    judgement = ctx.trace()
    options = ctx.options
    details: dict[str, Any] = {
        "judge": ctx.judge.name,
        "scoring_mode": ctx.mode,
        "judgements": ctx.consumed("trace"),
        "usage": ctx.usage_of("trace").to_dict(),
        "attempts": judgement.attempts,
    }
    if judgement.notes:
        details["judge_notes"] = judgement.notes
    if not judgement.ok:
        status = "error" if judgement.status == "error" else "undetermined"
        results = {name: MetricResult(name=name, status=status, reason=judgement.reason) for name in TRACE_SCORE_NAMES}
        return results, {**details, "raw_output": judgement.raw}
    scores = trace_scores(
        judgement.value,
        ctx.sample.sentences,
        mode=options.trace_mode,
        relevance_normalizer=options.relevance_normalizer,
    )
    results = scores.results()
    probability = judgement.notes.get("adherence_probability")
    if probability is not None:
        results["adherence_probability"] = MetricResult(
            name="adherence_probability",
            score=probability,
            reason="The judge's calibrated probability that every response sentence is supported.",
        )
    details.update(
        scores.details,
        overall_supported=scores.overall_supported,
        fully_supported_sentences=scores.fully_supported_sentences,
        partially_supported_sentences=scores.partially_supported_sentences,
        unsupported_sentences=scores.unsupported_sentences,
    )
    return results, details


def _lacking(ctx: SampleJudgements, uses: tuple[str, ...]) -> str | None:
    """Why a metric of one's own reading ``uses`` cannot be scored on the sample (contexts are decided in
    :func:`score_metric`), or None."""
    if "reference" in uses and not ctx.has_reference:
        return NEEDS_REFERENCE
    if "response" in uses and not ctx.sample.response.strip():
        return "Needs a response; the sample's is empty."
    return None


def score_criteria(definition: CriteriaDefinition, ctx: SampleJudgements) -> Scored:
    """A criteria metric: the judge's rubric level rescaled to [0, 1], with its reason (one call of its own;
    undetermined with a judge that cannot judge criteria, or without a field it uses)."""
    name = definition.name
    lacking = _lacking(ctx, definition.uses)
    if lacking:
        return _undetermined((name,), lacking), _details(ctx, name)
    verdict = ctx.criteria(definition)
    if not verdict.ok:
        return _missing((name,), verdict), _details(ctx, name, verdict)
    v = verdict.value
    levels = definition.levels
    reason = f"Rubric level {v.level:g} of {levels[0]:g}-{levels[-1]:g} ({definition.rubric[v.level]})"
    reason += f": {v.reason}" if v.reason else "."
    result = _ok(name, v.score, reason, level=v.level)
    return {name: result}, _details(ctx, name, verdict, level=v.level, criteria=definition.criteria)


def score_function(name: str, fn: Callable[[Any], Any], uses: tuple[str, ...], ctx: SampleJudgements) -> Scored:
    """A function metric: ``fn(sample)`` gives a float in [0, 1], a ``(float, reason)`` pair or a
    :class:`~rageval_lc.schema.MetricResult`. An exception, or a value that is none of these (a number outside
    [0, 1], NaN, a bool), makes an ``error`` result saying so; no judge is called.

    Example:
        >>> from rageval_lc.schema import RagSample
        >>> from rageval_lc.scoring.judgements import ScoringOptions
        >>> ctx = SampleJudgements(RagSample(question="Q?", contexts=[], response="Yes."), ScoringOptions())
        >>> score_function("short", lambda s: (1.0, "brief"), ("response",), ctx)[0]["short"].score
        1.0
        >>> score_function("short", lambda s: 2, ("response",), ctx)[0]["short"].reason
        "The 'short' metric's function returned 2: not a score in [0, 1] (a float, (float, reason) or a MetricResult)."
    """
    lacking = _lacking(ctx, uses)
    if lacking:
        return _undetermined((name,), lacking), _details(ctx, name)
    try:
        value = fn(ctx.sample)
    except Exception as exc:  # the user's code: its failure is this metric's, not the row's
        reason = f"The {name!r} metric's function raised {type(exc).__name__}: {exc}"
        error = {"type": type(exc).__name__, "message": str(exc)}
        return {name: MetricResult(name=name, status="error", reason=reason)}, _details(ctx, name, error=error)
    result = _function_result(name, value)
    return {name: result}, _details(ctx, name, function=getattr(fn, "__qualname__", repr(fn)))


def _function_result(name: str, value: Any) -> MetricResult:
    if isinstance(value, MetricResult):
        if value.score is not None and not 0.0 <= value.score <= 1.0:
            return _bad_value(name, value.score)
        return value.model_copy(update={"name": name})
    score, reason = value if isinstance(value, tuple) and len(value) == 2 else (value, None)
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0 or math.isnan(score):
        return _bad_value(name, value)
    if reason is not None and not isinstance(reason, str):
        return _bad_value(name, value)
    return MetricResult(name=name, score=float(score), reason=reason or f"Scored by the {name!r} metric's function.")


def _bad_value(name: str, value: Any) -> MetricResult:
    reason = (
        f"The {name!r} metric's function returned {value!r}: not a score in [0, 1] "
        "(a float, (float, reason) or a MetricResult)."
    )
    return MetricResult(name=name, status="error", reason=reason)


def score_metric(spec: MetricSpec, ctx: SampleJudgements) -> tuple[dict[str, MetricResult], dict[str, Any]]:
    """Score one metric of a sample: ``undetermined`` without a call when it lacks the evidence it needs.

    The one place where missing evidence is decided: a metric that ``needs_contexts`` on a sample without
    contexts gets every score ``undetermined`` with the reason (``ctx.options.no_contexts_reason``).
    """
    if spec.needs_contexts and not ctx.has_contexts:
        reason = ctx.options.no_contexts_reason
        results = {name: MetricResult(name=name, status="undetermined", reason=reason) for name in spec.scores}
        details = {
            "judge": ctx.judge.name,
            "scoring_mode": ctx.mode,
            "judgements": [],
            "usage": JudgeUsage().to_dict(),
            "missing_evidence": "contexts",
        }
        return results, details
    return spec.score(ctx)
