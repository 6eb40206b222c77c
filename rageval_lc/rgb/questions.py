"""Questions written from passages, for a testbed when a user has passages but no questions (issue 36, item 2).

An LLM judge (a ``DspyJudge``) reads a passage and writes a question and a short answer span that occurs in the
passage (:data:`PASSAGE_QUESTION`, a judgement declared here: the DSPy Signature
:class:`~rageval_lc.rgb.question_signature.PassageQuestion`); an answer the passage does not hold is sent back
(the judge's retries), then the passage is dropped with the reason. :func:`question_cost` is the dry run: the calls
and the prompt tokens, nothing sent.

Example:
    >>> from dspy.utils import DummyLM
    >>> from rageval_lc.judges.llm.dspy_judge import DspyJudge
    >>> judge = DspyJudge(DummyLM([{"question": "How long is the viaduct?", "answer": "2,460 metres"}]))
    >>> rows, dropped = generate_questions(["The viaduct is 2,460 metres long."], judge, count=1)
    >>> rows, dict(dropped)
    ([{'question': 'How long is the viaduct?', 'answer': '2,460 metres', 'passage': 0}], {})
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from rageval_lc.judges.declarations import Declaration
from rageval_lc.rgb.counterfactual import find_mentions

__all__ = ["PASSAGE_QUESTION", "PassageQA", "generate_questions", "question_cost"]


class PassageQA(BaseModel):
    """A question a passage answers, and the answer as the passage writes it."""

    question: str
    answer: str


def _read(prediction: Any, inputs: dict[str, Any]) -> tuple[PassageQA | None, dict[str, Any], str | None]:
    question, answer = (
        str(getattr(prediction, "question", "") or "").strip(),
        str(getattr(prediction, "answer", "") or "").strip(),
    )
    value = PassageQA(question=question, answer=answer)
    return value, {}, _problem(value, inputs)


def _problem(value: PassageQA, inputs: dict[str, Any]) -> str | None:
    if not value.question or not value.answer:
        return "the question or the answer is empty"
    if not find_mentions(inputs["passage"], value.answer):
        return f"the answer {value.answer!r} is not in the passage"
    return None


#: The judgement: a passage in, a question and its answer span out.
PASSAGE_QUESTION = Declaration(
    name="passage_question",
    about="a question the passage answers, with a short answer span copied from it (one call)",
    inputs=("passage",),
    verdict=PassageQA,
    signature="rageval_lc.rgb.question_signature:PassageQuestion",
    module="PassageQuestionJudge",
    prompt=lambda x: {"passage": x["passage"]},
    read=_read,
    problem=_problem,
)


def _chosen(passages: Sequence[str], count: int, seed: int) -> list[int]:
    """``count`` passages drawn without replacement (all of them when fewer), in corpus order."""
    indices = list(range(len(passages)))
    return sorted(random.Random(seed).sample(indices, min(count, len(indices))))


def generate_questions(
    passages: Sequence[str], judge: Any, *, count: int, seed: int = 0
) -> tuple[list[dict[str, Any]], Counter]:
    """Question-answer rows for :func:`~rageval_lc.rgb.build.build_testbed`, one per passage drawn (``count``
    passages, seeded), each with the index of the passage it came from; and why the others were dropped."""
    rows: list[dict[str, Any]] = []
    dropped: Counter = Counter()
    for index in _chosen(passages, count, seed):
        made = judge.make(PASSAGE_QUESTION, {"passage": passages[index]})
        if not made.ok:
            dropped[f"no usable question ({made.status})"] += 1
            continue
        rows.append({"question": made.value.question, "answer": made.value.answer, "passage": index})
    return rows, dropped


def question_cost(passages: Sequence[str], judge: Any, *, count: int, seed: int = 0) -> tuple[int, int | None]:
    """The dry run: the calls :func:`generate_questions` makes before retries, and their prompt tokens (characters
    ÷ 4 of the prompts the judge would send; None for a judge that cannot say)."""
    chosen = _chosen(passages, count, seed)
    tokens = getattr(judge, "declaration_prompt_tokens", None)
    if tokens is None:
        return len(chosen), None
    return len(chosen), sum(tokens(PASSAGE_QUESTION, {"passage": passages[i]}) for i in chosen)
