"""The offline judge: every judgement from the packaged sentence-transformers model, no LLM, no network.

It encodes each sentence once (sentence and token vectors), computes embedding, lexical and numeric
features (:mod:`~rageval_lc.judges.local_features`), and applies small linear models fitted on part of
RAGBench (:mod:`~rageval_lc.judges.local_model`). It returns the same verdict objects as the LLM judges:
TRACe labels with per-sentence explanations, claim and statement verdicts, context verdicts, GEval
criteria and a CORRECT/WRONG label; plus a calibrated ``adherence_probability`` for ranking.

It cannot write text, so it does not generate questions (answer relevance then uses the direct rubric,
which here is the embedding similarity of question and answer).

Example:
    >>> judge = LocalJudge()  # doctest: +SKIP
    >>> judge.trace_labels(sample).notes["adherence_probability"]  # doctest: +SKIP
    0.91
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rageval_lc.judges.base import (
    JUDGEMENTS,
    AnswerLabel,
    ClaimVerdict,
    ContextVerdict,
    FactualAccuracyVerdict,
    FullAssessment,
    Judgement,
    ReferenceAssessment,
    RubricScore,
    StatementVerdict,
)
from rageval_lc.judges.encoder import CachedEncoder, Encoder, SentenceTransformerEncoder
from rageval_lc.judges.local_features import SampleFeatures, sample_features
from rageval_lc.judges.local_model import LocalParams, adherence_row_features, share_row_features
from rageval_lc.judges.local_reference import key_term_overlap
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import KeyedSentences, sentence_letters, split_sentences

__all__ = ["LocalJudge", "labels_from_features"]


def _top_keys(keys: Sequence[str], probabilities: np.ndarray, share: float) -> list[str]:
    """The round(share × N) most probable keys, in document order."""
    count = round(min(1.0, max(0.0, share)) * len(keys))
    chosen = set(np.argsort(-probabilities, kind="stable")[:count].tolist())
    return [key for i, key in enumerate(keys) if i in chosen]


def labels_from_features(features: SampleFeatures, params: LocalParams) -> tuple[TraceLabels, dict[str, Any]]:
    """Turn a sample's features into TRACe labels and notes (``adherence_probability`` among them).

    Relevant and utilized keys are the most probable sentences, as many as the predicted share of the
    context; a response whose probability of being fully supported is below the threshold gets its
    doubtful sentences marked unsupported (at least the most doubtful one).
    """
    n = len(features.document_keys)
    m = len(features.response_keys)
    notes: dict[str, Any] = {}
    relevant: list[str] = []
    utilized: list[str] = []
    relevance_text = "The contexts have no sentences."
    if n:
        p_rel = params.relevance.predict(features.documents)
        p_use = params.utilization.predict(features.documents)
        share_rel = float(params.relevance_share.predict(share_row_features(p_rel, features.documents, m))[0])
        share_use = float(params.utilization_share.predict(share_row_features(p_use, features.documents, m))[0])
        relevant = _top_keys(features.document_keys, p_rel, share_rel)
        utilized = _top_keys(features.document_keys, p_use, share_use)
        relevance_text = (
            f"Estimated {len(relevant)} of {n} document sentences relevant (share {max(0.0, share_rel):.2f}) "
            f"and {len(utilized)} used by the response, from similarity to the question and the response."
        )
        notes["expected_relevance_share"] = round(min(1.0, max(0.0, share_rel)), 4)
        notes["expected_utilization_share"] = round(min(1.0, max(0.0, share_use)), 4)

    p_unsupported = params.support.predict(features.support) if m else np.zeros(0)
    probability = 1.0
    if m:
        probability = float(1.0 - params.hallucination.predict(adherence_row_features(p_unsupported))[0])
    supported = probability >= params.adherence_threshold
    flagged: set[str] = set()
    if not supported and m:
        flagged = {
            k for k, p in zip(features.response_keys, p_unsupported, strict=True) if p >= params.support_threshold
        }
        flagged = flagged or {features.response_keys[int(np.argmax(p_unsupported))]}
    support = []
    for i, key in enumerate(features.response_keys):
        best = features.best_matches[i]
        explanation = (
            f"Closest document sentence {best[0]} (similarity {features.best_similarity[i]:.2f})"
            if best
            else "No document sentence to compare with"
        )
        explanation += f"; estimated probability unsupported {p_unsupported[i]:.2f}"
        if features.missing_words[i]:
            explanation += f"; words not in the documents: {', '.join(features.missing_words[i])}"
        support.append(
            {
                "response_sentence_key": key,
                "explanation": explanation + ".",
                "supporting_sentence_keys": list(best) if key not in flagged else list(best[:1]),
                "fully_supported": key not in flagged,
            }
        )
    notes["adherence_probability"] = round(probability, 6)
    labels = TraceLabels(
        relevance_explanation=relevance_text,
        all_relevant_sentence_keys=relevant,
        overall_supported_explanation=(
            f"Estimated probability that every response sentence is supported: {probability:.2f}."
        ),
        overall_supported=supported,
        sentence_support_information=support,
        all_utilized_sentence_keys=utilized,
        unsupported_response_sentence_keys=sorted(flagged, key=features.response_keys.index),
    )
    return labels, notes


class LocalJudge:
    """Offline judge on a sentence-transformers model (default: the packaged all-MiniLM-L6-v2).

    Args:
        model: a model name, path or loaded ``SentenceTransformer``; None for the packaged model.
        encoder: an :class:`~rageval_lc.judges.encoder.Encoder` to use instead (tests inject fakes).
        params: fitted parameters (a :class:`LocalParams` or a path); None for the shipped ones.
        device: the torch device.
    """

    name = "local"
    supports = frozenset(JUDGEMENTS) - {"generate_questions"}

    def __init__(
        self,
        model: Any = None,
        *,
        encoder: Encoder | None = None,
        params: LocalParams | str | None = None,
        device: str = "cpu",
    ) -> None:
        base = encoder if encoder is not None else SentenceTransformerEncoder(model, device=device)
        self.encoder = CachedEncoder(base)
        self._params = params
        self._rare_cache: dict[str, bool] = {}

    @property
    def params(self) -> LocalParams:
        """The fitted parameters (the shipped ones unless others were given), loaded on first use."""
        if not isinstance(self._params, LocalParams):
            self._params = LocalParams.load(self._params)
        return self._params

    def planned_calls(self, judgement: str) -> int:
        """The local judge calls no LLM."""
        return 0

    # --- shared work -----------------------------------------------------------------------------

    def _is_rare(self, word: str) -> bool:
        """A word the tokenizer splits into several pieces: a name or a technical term, not a common word."""
        if word not in self._rare_cache:
            tokenizer = getattr(getattr(self.encoder.encoder, "model", None), "tokenizer", None)
            self._rare_cache[word] = tokenizer is not None and len(tokenizer.tokenize(word)) > 1
        return self._rare_cache[word]

    def features(self, question: str, sentences: KeyedSentences, response: str) -> SampleFeatures:
        """Encode what is not cached yet and compute the sample's feature tables."""
        doc_texts = [text for doc in sentences.documents for _, text in doc]
        resp_texts = [text for _, text in sentences.response]
        encoded = self.encoder.encode([question, response, *doc_texts, *resp_texts])
        q, r = encoded[0], encoded[1]
        docs = encoded[2 : 2 + len(doc_texts)]
        answers = encoded[2 + len(doc_texts) :]
        return sample_features(question, q, r, sentences, docs, answers, is_rare=self._is_rare)

    def _support_probabilities(self, statements: Sequence[str], contexts: Sequence[str], question: str) -> np.ndarray:
        """P(unsupported) of each statement against the contexts."""
        keyed = KeyedSentences.from_texts(contexts, "")
        keyed = KeyedSentences(
            documents=keyed.documents,
            response=tuple((sentence_letters(i), s) for i, s in enumerate(statements)),
        )
        features = self.features(question, keyed, " ".join(statements))
        return self.params.support.predict(features.support) if statements else np.zeros(0)

    def prepare(self, samples: Sequence[RagSample]) -> None:
        """Encode every text the TRACe labelling of ``samples`` needs in one batched pass.

        Texts sorted by length pad little, so a batch run that calls this per chunk of samples encodes
        far faster than sample by sample; the per-sample calls then read the cache.
        """
        texts: list[str] = []
        for sample in samples:
            keyed = sample.sentences
            texts += [sample.question, sample.response]
            texts += [text for doc in keyed.documents for _, text in doc] + [text for _, text in keyed.response]
        self.encoder.encode(list(dict.fromkeys(texts)))

    # --- judgements ------------------------------------------------------------------------------

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        """TRACe labels from the local models; ``notes["adherence_probability"]`` ranks hallucination."""
        features = self.features(sample.question, sample.sentences, sample.response)
        labels, notes = labels_from_features(features, self.params)
        return Judgement(name="trace_labels", value=labels, notes=notes, reason="Offline judge (local models).")

    def extract_claims(self, question: str, answer: str) -> Judgement[list[str]]:
        """The answer's sentences stand in for its claims."""
        return Judgement(
            name="extract_claims", value=split_sentences(answer), reason="Sentences of the answer (offline judge)."
        )

    def verify_claims(self, claims: Sequence[str], contexts: Sequence[str]) -> Judgement[list[ClaimVerdict]]:
        """Each claim is supported when its estimated probability of being unsupported is below the threshold."""
        p = self._support_probabilities(claims, contexts, "")
        verdicts = [
            ClaimVerdict(
                claim=claim,
                supported=bool(p_i < self.params.support_threshold),
                reason=f"Estimated probability unsupported {p_i:.2f}.",
            )
            for claim, p_i in zip(claims, p, strict=True)
        ]
        return Judgement(name="verify_claims", value=verdicts, reason="Offline support model.")

    def context_relevance(
        self, question: str, contexts: Sequence[str], reference: str | None = None
    ) -> Judgement[list[ContextVerdict]]:
        """A context is relevant when its most question-relevant sentence is probably relevant."""
        keyed = KeyedSentences.from_texts(contexts, reference or "")
        features = self.features(question, keyed, reference or "")
        p = self.params.question_relevance.predict(features.documents) if len(features.document_keys) else np.zeros(0)
        verdicts = []
        start = 0
        for i, doc in enumerate(keyed.documents):
            best = float(p[start : start + len(doc)].max()) if doc else 0.0
            start += len(doc)
            verdicts.append(
                ContextVerdict(
                    index=i,
                    relevant=best >= self.params.context_relevant_threshold,
                    score=round(best, 6),
                    reason=f"Its most relevant sentence scores {best:.2f}.",
                )
            )
        return Judgement(name="context_relevance", value=verdicts, reason="Offline relevance model.")

    def attribute_reference(
        self, question: str, reference: str, contexts: Sequence[str]
    ) -> Judgement[list[StatementVerdict]]:
        """The reference's sentences, each attributed when the contexts probably support it."""
        statements = split_sentences(reference)
        if not statements:
            return Judgement(name="attribute_reference", value=[], reason="The reference is empty.")
        keyed = KeyedSentences.from_texts(contexts, "")
        p = self._support_probabilities(statements, contexts, question)
        doc_vectors = self.encoder.encode([t for doc in keyed.documents for _, t in doc])
        owners = [i for i, doc in enumerate(keyed.documents) for _ in doc]
        verdicts = []
        for statement, p_i, enc in zip(statements, p, self.encoder.encode(statements), strict=True):
            index = None
            if doc_vectors:
                sims = np.array([d.sentence @ enc.sentence for d in doc_vectors])
                index = owners[int(np.argmax(sims))]
            attributed = bool(p_i < self.params.support_threshold)
            verdicts.append(
                StatementVerdict(
                    statement=statement,
                    attributed=attributed,
                    context_index=index if attributed else None,
                    reason=f"Estimated probability unsupported {p_i:.2f}.",
                )
            )
        return Judgement(name="attribute_reference", value=verdicts, reason="Offline support model.")

    def rate_answer_relevance(self, question: str, answer: str) -> Judgement[RubricScore]:
        """The cosine similarity of question and answer, floored at 0 (an uncalibrated stand-in for the rubric)."""
        if not answer.strip():
            return Judgement(name="rate_answer_relevance", value=RubricScore(score=0.0, reason="Empty answer."))
        q, a = self.encoder.encode([question, answer])
        score = float(min(1.0, max(0.0, q.sentence @ a.sentence)))
        reason = f"Embedding similarity of question and answer: {score:.2f}."
        return Judgement(name="rate_answer_relevance", value=RubricScore(score=score, reason=reason))

    def factual_accuracy(self, question: str, answer: str, reference: str) -> Judgement[FactualAccuracyVerdict]:
        """Correctness: the answer's sentences supported by the reference, averaged with the share of the
        answer's new key terms (names, numbers, rare words beyond the question) the reference contains;
        completeness: the reverse. Consistency (contradictions inside the answer) cannot be assessed offline
        and is left None.
        """
        answer_sentences, reference_sentences = split_sentences(answer), split_sentences(reference)
        if not answer_sentences or not reference_sentences:
            verdict = FactualAccuracyVerdict(
                correctness=0.0, completeness=0.0, overall_reason="The answer or the reference is empty."
            )
            return Judgement(name="factual_accuracy", value=verdict)
        correct = float((1.0 - self._support_probabilities(answer_sentences, [reference], question)).mean())
        complete = float((1.0 - self._support_probabilities(reference_sentences, [answer], question)).mean())
        overlap = key_term_overlap(question, answer, reference, is_rare=self._is_rare)
        correctness_reason = f"Support by the reference {correct:.2f} (mean over answer sentences)"
        if overlap.precision is not None:
            correct = (correct + overlap.precision) / 2
            missing = overlap.not_in_reference
            correctness_reason += f"; key terms found in the reference {overlap.precision:.2f}" + (
                f" (not there: {', '.join(missing)})" if missing else ""
            )
        if overlap.conflicting_numbers:  # a different date or quantity is wrong, however close the wording
            correct = min(correct, 0.4)
            correctness_reason += f"; numbers that contradict the reference: {', '.join(overlap.conflicting_numbers)}"
        completeness_reason = f"Coverage of the reference {complete:.2f} (mean over reference sentences)"
        if overlap.recall is not None:
            complete = (complete + overlap.recall) / 2
            completeness_reason += f"; reference key terms in the answer {overlap.recall:.2f}"
        verdict = FactualAccuracyVerdict(
            correctness=round(100.0 * correct, 4),
            completeness=round(100.0 * complete, 4),
            consistency=None,
            correctness_reason=correctness_reason + ".",
            completeness_reason=completeness_reason + ".",
            consistency_reason="Not assessable offline.",
        )
        return Judgement(name="factual_accuracy", value=verdict)

    def classify_answer(self, question: str, answer: str, reference: str) -> Judgement[AnswerLabel]:
        """CORRECT when the answer is mostly supported by, and mostly covers, the reference."""
        accuracy = self.factual_accuracy(question, answer, reference).value
        assert accuracy is not None
        return Judgement(name="classify_answer", value=_label_from(accuracy))

    def assess_reference(
        self, question: str, answer: str, reference: str, contexts: Sequence[str]
    ) -> Judgement[ReferenceAssessment]:
        """Statements with attribution, GEval's criteria and CORRECT/WRONG from the same offline models."""
        statements = self.attribute_reference(question, reference, contexts).value or []
        accuracy = self.factual_accuracy(question, answer, reference).value
        assert accuracy is not None
        value = ReferenceAssessment(statements=statements, accuracy=accuracy, label=_label_from(accuracy))
        return Judgement(name="assess_reference", value=value, reason="Offline models.")

    def assess_all(self, sample: RagSample, n: int = 3) -> Judgement[FullAssessment]:
        """TRACe labels and, with a reference, the reference assessment (no questions: nothing is generated)."""
        trace = self.trace_labels(sample)
        reference = None
        if sample.reference and sample.reference.strip():
            reference = self.assess_reference(sample.question, sample.response, sample.reference, sample.contexts).value
        value = FullAssessment(trace=trace.value, reference=reference, questions=[])  # type: ignore[arg-type]
        return Judgement(name="assess_all", value=value, notes=trace.notes, reason="Offline models.")


def _label_from(accuracy: FactualAccuracyVerdict) -> AnswerLabel:
    worst = min(accuracy.correctness or 0.0, accuracy.completeness or 0.0)
    label = "CORRECT" if worst >= 50.0 else "WRONG"
    reason = f"Correctness {accuracy.correctness or 0:.0f}, completeness {accuracy.completeness or 0:.0f} (offline)."
    return AnswerLabel(label=label, reason=reason)
