"""Test doubles shared by several test modules: a chat model that answers per judgement and counts its
calls, and a bag-of-words encoder (no model download, exact arithmetic)."""

from __future__ import annotations

import json
import os
import zlib
from collections import Counter
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from rageval_lc.judges.offline.encoder import CachedEncoder, Encoded


def chat(**fields: object) -> str:
    """An answer in DSPy's chat format; lists and dicts as JSON."""
    parts = [f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}" for k, v in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


class JudgementChatModel(BaseChatModel):
    """Answers each DSPy judgement with a canned reply, recognising the judgement by its Signature's
    instruction in the system prompt; counts the calls per judgement."""

    answers: dict[str, str]
    _calls: Counter = PrivateAttr(default_factory=Counter)

    @property
    def _llm_type(self) -> str:
        return "judgement-fake"

    @property
    def calls(self) -> Counter:
        return self._calls

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        from rageval_lc.judges.llm.signatures import SIGNATURES

        system = str(messages[0].content)
        for name, signature in SIGNATURES.items():
            if signature.instructions.strip().splitlines()[0] in system:
                self._calls[name] += 1
                reply = self.answers.get(name, "")
                return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])
        msg = "no Signature instruction found in the prompt"
        raise AssertionError(msg)


class BagOfWordsEncoder:
    """Sentence vectors from hashed lower-cased word counts (unit length); identical texts → cosine 1."""

    def encode(self, texts: list[str]) -> list[Encoded]:
        out = []
        for text in texts:
            vector = np.zeros(64)
            for word in text.lower().replace("?", " ").replace(".", " ").split():
                vector[zlib.crc32(word.encode()) % 64] += 1.0
            norm = np.linalg.norm(vector)
            out.append(Encoded(vector / norm if norm else vector, np.zeros((0, 64)), ()))
        return out


def bag_of_words_embeddings() -> Any:
    from rageval_lc.judges.offline.embeddings import EmbeddingScorer

    return EmbeddingScorer(encoder=CachedEncoder(BagOfWordsEncoder()))


# --- a counting judge that makes every judgement (the registry-driven common suite) ---------------

from rageval_lc.judges.base import JUDGEMENTS, BaseJudge  # noqa: E402
from rageval_lc.judges.labels import LabelsJudge  # noqa: E402
from rageval_lc.schema import RagSample, TraceLabels  # noqa: E402
from rageval_lc.text import split_sentences  # noqa: E402
from rageval_lc.verdicts import (  # noqa: E402
    AnswerLabel,
    ClaimVerdict,
    ContextVerdict,
    FactualAccuracyVerdict,
    FullAssessment,
    Judgement,
    JudgeUsage,
    ReferenceAssessment,
    RubricScore,
    StatementVerdict,
)


def canned_trace_labels(sample: RagSample) -> TraceLabels:
    """TRACe labels for any sample: each document's first sentence relevant, the first one utilized,
    the first response sentence supported by it and the others unsupported."""
    sentences = sample.sentences
    firsts = [doc[0][0] for doc in sentences.documents if doc]
    support = [
        {
            "response_sentence_key": key,
            "explanation": "canned",
            "supporting_sentence_keys": firsts[:1] if index == 0 else [],
            "fully_supported": index == 0 and bool(firsts),
        }
        for index, (key, _) in enumerate(sentences.response)
    ]
    return TraceLabels(
        relevance_explanation="canned",
        all_relevant_sentence_keys=firsts,
        all_utilized_sentence_keys=firsts[:1],
        overall_supported=all(s["fully_supported"] for s in support),
        sentence_support_information=support,
        unsupported_response_sentence_keys=[s["response_sentence_key"] for s in support if not s["fully_supported"]],
    )


class CountingJudge(BaseJudge):
    """Makes every judgement of ``JUDGEMENTS`` with valid canned verdicts (every one but
    ``generate_questions`` when ``questions=False``): one model call each, counted per judgement in ``calls``."""

    def __init__(self, *, questions: bool = True) -> None:
        self.name = "counting" if questions else "counting-no-questions"
        self.supports = frozenset(JUDGEMENTS) - (frozenset() if questions else {"generate_questions"})
        self.calls: Counter = Counter()

    def planned_calls(self, judgement: str) -> int:
        return 1 if judgement in self.supports else 0

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample) -> int | None:
        return 10

    def _made(self, name: str, value: Any) -> Any:
        if name not in self.supports:
            return self._cannot(name)
        self.calls[name] += 1
        usage = JudgeUsage(calls=1, prompt_tokens=10, completion_tokens=5, estimated_tokens=15)
        return Judgement(name=name, value=value, attempts=1, usage=usage, reason="canned")

    # --- canned verdicts (no call counted) ---

    @staticmethod
    def _statements(reference: str, contexts: Any) -> list[StatementVerdict]:
        return [
            StatementVerdict(
                statement=s, attributed=bool(contexts) and i % 2 == 0, context_index=0 if contexts else None
            )
            for i, s in enumerate(split_sentences(reference))
        ]

    @staticmethod
    def _accuracy() -> FactualAccuracyVerdict:
        return FactualAccuracyVerdict(correctness=80, completeness=60, consistency=100, overall_reason="canned")

    @staticmethod
    def _questions(answer: str, n: int) -> list[str]:
        return [f"Question {i + 1} that '{answer}' answers?" for i in range(n)]

    def _reference(self, reference: str, contexts: Any) -> ReferenceAssessment:
        label = AnswerLabel(label="CORRECT", reason="canned")
        return ReferenceAssessment(
            statements=self._statements(reference, contexts), accuracy=self._accuracy(), label=label
        )

    # --- the judgements ---

    def trace_labels(self, sample: RagSample) -> Any:
        return self._made("trace_labels", canned_trace_labels(sample))

    def extract_claims(self, question: str, answer: str) -> Any:
        return self._made("extract_claims", split_sentences(answer))

    def verify_claims(self, claims: Any, contexts: Any) -> Any:
        verdicts = [ClaimVerdict(claim=c, supported=i % 2 == 0, reason="canned") for i, c in enumerate(claims)]
        return self._made("verify_claims", verdicts)

    def context_relevance(self, question: str, contexts: Any, reference: str | None = None) -> Any:
        verdicts = [ContextVerdict(index=i, relevant=i == 0, reason="canned") for i in range(len(contexts))]
        return self._made("context_relevance", verdicts)

    def attribute_reference(self, question: str, reference: str, contexts: Any) -> Any:
        return self._made("attribute_reference", self._statements(reference, contexts))

    def generate_questions(self, answer: str, n: int = 3) -> Any:
        return self._made("generate_questions", self._questions(answer, n))

    def rate_answer_relevance(self, question: str, answer: str) -> Any:
        return self._made("rate_answer_relevance", RubricScore(score=0.75, reason="canned"))

    def factual_accuracy(self, question: str, answer: str, reference: str) -> Any:
        return self._made("factual_accuracy", self._accuracy())

    def classify_answer(self, question: str, answer: str, reference: str) -> Any:
        return self._made("classify_answer", AnswerLabel(label="CORRECT", reason="canned"))

    def assess_reference(self, question: str, answer: str, reference: str, contexts: Any) -> Any:
        return self._made("assess_reference", self._reference(reference, contexts))

    def assess_all(self, sample: RagSample, n: int = 3) -> Any:
        reference = self._reference(sample.reference, sample.contexts) if (sample.reference or "").strip() else None
        questions = self._questions(sample.response, n) if "generate_questions" in self.supports else []
        value = FullAssessment(trace=canned_trace_labels(sample), reference=reference, questions=questions)
        return self._made("assess_all", value)


class WorkerKillingJudge(LabelsJudge):
    """The labels judge, except that labelling a sample whose id starts with ``kill`` ends the process at once
    (a worker's crash: segfault, out-of-memory kill), as often as it is tried."""

    def trace_labels(self, sample: RagSample) -> Any:
        if (sample.id or "").startswith("kill"):
            os._exit(3)
        return super().trace_labels(sample)


class SlowLabelsJudge(LabelsJudge):
    """The labels judge, taking ``seconds`` per TRACe labelling (a slow model)."""

    def __init__(self, seconds: float = 0.5) -> None:
        super().__init__()
        self.seconds = seconds

    def trace_labels(self, sample: RagSample) -> Any:
        import time

        time.sleep(self.seconds)
        return super().trace_labels(sample)


class ProbabilityLabelsJudge(LabelsJudge):
    """The labels judge, adding an ``adherence_probability`` note (as the offline judge does) read from the
    sample's metadata ``probability``."""

    name = "labels-with-probability"

    def trace_labels(self, sample: RagSample) -> Any:
        judgement = super().trace_labels(sample)
        return judgement.model_copy(update={"notes": {"adherence_probability": sample.metadata["probability"]}})


from dspy.utils import DummyLM  # noqa: E402


class VerifyingLM(DummyLM):
    """A DSPy LM (DSPy's ``DummyLM``, answering from the prompt) for a cascade's LLM: it verifies each claim it is
    asked (unsupported when the claim holds ``unsupported_word``), says a context is relevant unless it holds that
    word, records every call's claims or contexts, and fails every call with ``fail`` (an error message) set."""

    def __init__(self, unsupported_word: str = "moon", fail: str | None = None) -> None:
        super().__init__([], follow_examples=True)
        self.unsupported_word, self.fail = unsupported_word, fail
        self.asked: list[list[str]] = []
        self.calls = 0

    def _use_example(self, messages: list[dict[str, Any]]) -> str:
        import re

        self.calls += 1
        if self.fail is not None:
            raise RuntimeError(self.fail)
        text = messages[-1]["content"]
        field = "claims" if "[[ ## claims ## ]]" in text else "contexts"
        body = text.split(f"[[ ## {field} ## ]]", 1)[1].split("[[ ##", 1)[0]
        found = re.findall(r"^\s*(?:\[Context (\d+)\]|(\d+)\.)\s*(.*)$", body, re.M)
        items = [(a or b, t.strip()) for a, b, t in found]
        self.asked.append([t for _, t in items])
        word = self.unsupported_word
        if field == "claims":
            verdicts = [
                {"claim_number": int(n), "supported": word not in t.lower(), "reason": "fake"} for n, t in items
            ]
        else:
            verdicts = [
                {
                    "context_number": int(n),
                    "is_relevant": word not in t.lower(),
                    "relevance_score": 90,
                    "reasoning": "fake",
                }
                for n, t in items
            ]
        return self._format_answer_fields({"verdicts": json.dumps(verdicts)})
