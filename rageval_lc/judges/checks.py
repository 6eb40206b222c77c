"""What makes a judgement's value usable for its inputs — one set of rules for fresh and cached answers.

A DSPy judge's readers call these checks on the value they read from the model; the disk cache calls the
judgement's declared check (:attr:`~rageval_lc.judges.declarations.Declaration.problem`, made of these) on a
value it reads back, so an edited or stale entry (a sentence key that does not exist, a claim left without a
verdict, a context number out of range) is refused exactly as a fresh answer would be.
:func:`cap_raw` bounds the raw model output a judgement keeps.

Example:
    >>> from rageval_lc.verdicts import ClaimVerdict
    >>> claim_verdicts_problem([ClaimVerdict(claim="A.", supported=True)], ["A.", "B."])
    'no verdict for claims [2]'
    >>> len(cap_raw("x" * 100_000)) < 5_000
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import KeyedSentences
from rageval_lc.verdicts import ContextVerdict, FullAssessment, ReferenceAssessment, StatementVerdict

__all__ = [
    "MAX_RAW_CHARS",
    "assess_all_problem",
    "cap_raw",
    "claim_verdicts_problem",
    "context_verdicts_problem",
    "reference_problem",
    "statements_problem",
    "strings_problem",
    "trace_problem",
]

#: The most characters of raw model output a judgement keeps: the head and the tail, halves of this.
MAX_RAW_CHARS = 4_000


def cap_raw(raw: str | None, limit: int = MAX_RAW_CHARS) -> str | None:
    """The raw output whole when short, else its head and tail around a line saying how much was cut.

    Texts up to ``limit`` + 64 characters are kept whole, so a text cut once is never cut again.
    """
    if raw is None or len(raw) <= limit + 64:
        return raw
    half = limit // 2
    return f"{raw[:half]}\n[… {len(raw) - 2 * half:,} characters cut …]\n{raw[-half:]}"


def trace_problem(labels: TraceLabels, sentences: KeyedSentences, notes: dict[str, Any]) -> str | None:
    """Unknown sentence keys or response sentences without a support verdict (noted in ``notes``)."""
    clean, report = labels.cleaned(sentences)
    judged = {e.response_sentence_key for e in clean.sentence_support_information}
    missing = [k for k in sentences.response_keys if k not in judged]
    problems = []
    if report.dropped:
        notes["dropped_keys"] = report.dropped
        unknown = sorted({k for keys in report.dropped.values() for k in keys})
        problems.append(f"it names sentence keys that do not exist: {', '.join(unknown)}")
    if missing:
        problems.append(f"no support verdict for response sentences {', '.join(missing)}")
    return "; ".join(problems) or None


def claim_verdicts_problem(verdicts: Sequence[Any], claims: Sequence[str]) -> str | None:
    """One verdict per claim, in claim order."""
    judged = [v.claim for v in verdicts]
    if judged == list(claims):
        return None
    missing = [i + 1 for i, claim in enumerate(claims) if claim not in judged]
    return f"no verdict for claims {missing}" if missing else "the verdicts do not match the claims"


def context_verdicts_problem(verdicts: Sequence[ContextVerdict], n_contexts: int) -> str | None:
    """One verdict per context (0-based indexes), scores within 0-1."""
    indexes = [v.index for v in verdicts]
    missing = [i + 1 for i in range(n_contexts) if i not in indexes]
    if missing:
        return f"no verdict for contexts {missing}"
    if sorted(indexes) != list(range(n_contexts)):
        return "the verdicts name contexts that do not exist or name one twice"
    if any(v.score is not None and not 0.0 <= v.score <= 1.0 for v in verdicts):
        return "a relevance score is outside 0-1"
    return None


def statements_problem(statements: Sequence[StatementVerdict], n_contexts: int) -> str | None:
    if any(not s.statement.strip() for s in statements):
        return "a statement is empty"
    if any(s.context_index is not None and not 0 <= s.context_index < n_contexts for s in statements):
        return "a statement names a context that does not exist"
    return None


def strings_problem(items: Sequence[str], what: str, most: int | None = None) -> str | None:
    if any(not item.strip() for item in items) or len(set(items)) != len(items):
        return f"the {what} hold an empty or repeated entry"
    if most is not None and len(items) > most:
        return f"{len(items)} {what} where at most {most} were asked for"
    return None


def reference_problem(value: ReferenceAssessment, n_contexts: int) -> str | None:
    return statements_problem(value.statements, n_contexts)


def assess_all_problem(value: FullAssessment, sample: RagSample, n: int) -> str | None:
    problems = []
    if sample.has_contexts:
        problems.append(trace_problem(value.trace, sample.sentences, {}))
    has_reference = bool(sample.reference and sample.reference.strip())
    if has_reference != (value.reference is not None):
        problems.append("the reference part does not match the sample")
    elif value.reference is not None:
        problems.append(reference_problem(value.reference, len(sample.contexts)))
    problems.append(strings_problem(value.questions, "questions", n))
    return "; ".join(p for p in problems if p) or None
