"""The offline judge: every judgement from the packaged sentence-transformers model, no LLM, no network.

It encodes each sentence once (sentence and token vectors), computes embedding, lexical and numeric
features (:mod:`~rageval_lc.judges.offline.features`), and applies small linear models fitted on part of
RAGBench (:mod:`~rageval_lc.judges.offline.model`). It returns the same verdict objects as the LLM judges:
TRACe labels with per-sentence explanations, claim and statement verdicts, context verdicts, GEval
criteria and a CORRECT/WRONG label; plus a calibrated ``adherence_probability`` for ranking.

It cannot write text, so it does not generate questions (answer relevance then uses the direct rubric,
which here is the embedding similarity of question and answer).

Example:
    >>> judge = OfflineJudge()  # doctest: +SKIP
    >>> judge.trace_labels(sample).notes["adherence_probability"]  # doctest: +SKIP
    0.91
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np

from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.declarations import BUILT_IN_JUDGEMENTS, DECLARATIONS, Declaration
from rageval_lc.judges.offline.confidence import (
    ConfidenceModels,
    claim_inputs,
    context_confidence,
    shipped_confidence,
    verdict_confidence,
)
from rageval_lc.judges.offline.contradiction import figures_stated_otherwise
from rageval_lc.judges.offline.cross_encoder import nli_for_judge
from rageval_lc.judges.offline.decision import SupportDecision, closest_documents, nli_adjusted
from rageval_lc.judges.offline.encoder import CachedEncoder, Encoder, SentenceTransformerEncoder
from rageval_lc.judges.offline.features import SampleFeatures, sample_features
from rageval_lc.judges.offline.heap import release_free_memory
from rageval_lc.judges.offline.labelling import confidence_inputs, labels_from_features, sentence_explanation
from rageval_lc.judges.offline.limits import MAX_INPUT_CHARS, UnreadableInput, guard_judgements, too_long
from rageval_lc.judges.offline.model import LocalParams
from rageval_lc.judges.offline.nli import NliModel
from rageval_lc.judges.offline.nli_pass import SentenceNli, nli_inputs
from rageval_lc.judges.offline.reference import key_term_overlap
from rageval_lc.judges.portable import Portable
from rageval_lc.schema import RagSample, TraceLabels
from rageval_lc.text import KeyedSentences, sentence_letters, split_sentences
from rageval_lc.verdicts import (
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

__all__ = ["LocalJudge", "OfflineJudge"]

T = TypeVar("T")

_FEATURE_CACHE = 512  # feature tables remembered (two of the engine's chunks of 256; a reference adds 3 a sample)
#: The NLI pass's verdicts on a sample's response sentences, one each.
Verdicts = tuple[SentenceNli, ...]
_NLI_CACHE = 20_000  # NLI pairs remembered (~6 chunks: a RAGBench row has ~12); memory flat over a run
_PREPARE_GROUP = 32  # samples encoded together by prepare (their encodings fit the encoder's cache)
_PENDING_SAMPLES = 1024  # samples announced by prepare and not judged yet, per kind of work, kept at most

#: The kinds of work prepare batches: ``trace``, the TRACe feature tables; ``attribution``, the reference's
#: sentences against the contexts; ``accuracy``, the answer's sentences against the reference and back.
_WORK = ("trace", "attribution", "accuracy")


def _work_key(
    kind: str, question: str, *, response: str = "", reference: str = "", contexts: Sequence[str] = ()
) -> tuple[Any, ...]:
    """What a sample's work of ``kind`` goes by: the texts its judgements are given."""
    if kind == "trace":
        return (question, response, tuple(contexts))
    if kind == "attribution":
        return (question, reference, tuple(contexts))
    return (question, response, reference)


def _sample_key(kind: str, sample: RagSample) -> tuple[Any, ...]:
    return _work_key(
        kind, sample.question, response=sample.response, reference=sample.reference or "", contexts=sample.contexts
    )


@dataclass(frozen=True, eq=False)  # one entry is only ever itself (compared by identity)
class _Pending:
    """Work of one kind that prepare announced for some samples and no judgement has asked for yet."""

    kind: str
    keys: frozenset[tuple[Any, ...]]
    samples: tuple[RagSample, ...]


def _statement_sentences(statements: Sequence[str], contexts: Sequence[str]) -> KeyedSentences:
    """The contexts' sentences with ``statements`` as the response (keyed a, b, …): what a support pass reads."""
    keyed = KeyedSentences.from_texts(contexts, "")
    return KeyedSentences(
        documents=keyed.documents, response=tuple((sentence_letters(i), s) for i, s in enumerate(statements))
    )


def _support_passes(sample: RagSample, kind: str) -> list[tuple[list[str], list[str]]]:
    """The (statements, contexts) of each support pass that the reference judgements of ``kind`` make for
    ``sample`` (``attribution``: :meth:`OfflineJudge.attribute_reference`; ``accuracy``:
    :meth:`OfflineJudge.factual_accuracy`), those with a statement to check."""
    reference = split_sentences(sample.reference or "")
    if kind == "attribution":
        return [(reference, list(sample.contexts))] if reference else []
    answer = split_sentences(sample.response)
    if not answer or not reference:
        return []
    return [(answer, [sample.reference or ""]), (reference, [sample.response])]


@guard_judgements  # oversized input: an error; contexts without a readable word: undetermined (limits.py)
class OfflineJudge(Portable, BaseJudge):
    """Offline judge on a sentence-transformers model (default: the packaged all-MiniLM-L6-v2).

    Args:
        model: a model name, path or loaded ``SentenceTransformer``; None for the packaged model.
        encoder: an :class:`~rageval_lc.judges.offline.encoder.Encoder` to use instead (tests inject fakes).
        params: fitted parameters (a :class:`LocalParams` or a path); None for the shipped ones.
        nli: the NLI model: an :class:`~rageval_lc.judges.offline.nli.NliModel`, an adapter folder, or a
            sequence-classification NLI or consistency model of one's own (a folder or a model id:
            :class:`~rageval_lc.judges.offline.cross_encoder.CrossEncoderNli`); None for the one ``params`` were
            aligned with, else the shipped one. With a model the parameters were not fitted on, a
            :class:`~rageval_lc.judges.offline.cross_encoder.CalibrationWarning` says so (``rageval align`` refits
            them).
        device: ``auto`` (CUDA, else MPS, else the CPU), ``cpu``, ``cuda`` (``cuda:N``) or ``mps``: see
            :func:`~rageval_lc.judges.offline.devices.resolve_device`. The encoder and the NLI model run on it; the
            chosen device is :attr:`device`.

    Raises:
        ValueError: If the device is unknown or not on this machine.
    """

    name = "offline"
    max_input_chars: int | None = MAX_INPUT_CHARS  # characters one judgement reads at most (None: no limit)
    _fresh: ClassVar[Mapping[str, Callable[[], Any]]] = {  # pickled without its caches and pending work
        "_features": OrderedDict,
        "_pending": list,
        "_prepare_lock": threading.Lock,
    }

    def __init__(
        self,
        model: Any = None,
        *,
        encoder: Encoder | None = None,
        params: LocalParams | str | None = None,
        nli: NliModel | str | Path | None = None,
        device: str = "auto",
    ) -> None:
        from rageval_lc.judges.offline.devices import resolve_device

        self.device = resolve_device(device)
        device = self.device
        base = encoder if encoder is not None else SentenceTransformerEncoder(model, device=device)
        self.encoder = CachedEncoder(base)
        self._params, self.nli = nli_for_judge(nli, params, device=device, cache_size=_NLI_CACHE)
        self._rare_cache: dict[str, bool] = {}
        #: per sample: its feature tables, and beside them the NLI pass's verdicts once it has run (else None)
        self._features: OrderedDict[tuple[Any, ...], tuple[SampleFeatures, Verdicts | None]] = OrderedDict()
        self._pending: list[_Pending] = []
        self._prepare_lock = threading.Lock()

    @property
    def params(self) -> LocalParams:
        """The fitted parameters (the shipped ones unless others were given), loaded on first use."""
        if not isinstance(self._params, LocalParams):
            self._params = LocalParams.load(self._params)
        return self._params

    @property
    def confidence(self) -> ConfidenceModels:
        """The models giving each verdict the probability that it is right (fitted for the shipped parameters)."""
        return shipped_confidence()

    @property
    def supports(self) -> frozenset[str]:
        """Every built-in judgement but question generation, and each declared one with an ``offline`` way."""
        offline = {name for name, d in DECLARATIONS.items() if d.offline is not None}
        return frozenset(BUILT_IN_JUDGEMENTS - {"generate_questions"}) | offline

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        """Make ``judgement`` with this judge's own method of its name, or with its declared offline way."""
        if self.method_for(judgement.name) is None and judgement.offline is not None:
            return judgement.offline(self, **inputs)
        return super().make(judgement, inputs)

    def planned_calls(self, judgement: str) -> int:
        """The offline judge calls no LLM."""
        return 0

    def cache_identity(self) -> dict[str, str]:
        """What shapes this judge's answers, for a judge cache's key: the sentence model, the fitted
        parameters and the NLI model (two offline judges share cached judgements only when all three match)."""
        spec = getattr(self.encoder.encoder, "_model_spec", None)
        model = "packaged" if spec is None else spec if isinstance(spec, str) else type(spec).__name__
        return {
            "model": f"{type(self.encoder.encoder).__name__}:{model}",
            "params": hashlib.sha256(self.params.to_json().encode("utf-8")).hexdigest(),
            "nli": self.nli.identity(),
            "device": str(self.device).split(":")[0],  # the NLI model's precision follows the device
            "runtime": str(getattr(self.nli, "runtime", "torch")),  # numpy on the CPU: float32, not bfloat16
        }

    # --- shared work -----------------------------------------------------------------------------

    def _is_rare(self, word: str) -> bool:
        """A word the tokenizer splits into several pieces: a name or a technical term, not a common word."""
        if word not in self._rare_cache:
            tokenizer = getattr(getattr(self.encoder.encoder, "model", None), "tokenizer", None)
            self._rare_cache[word] = tokenizer is not None and len(tokenizer.tokenize(word)) > 1
        return self._rare_cache[word]

    def _base_features(self, question: str, sentences: KeyedSentences, response: str) -> SampleFeatures:
        """Encode what is not cached yet and compute the embedding / lexical feature tables."""
        doc_texts = [text for doc in sentences.documents for _, text in doc]
        resp_texts = [text for _, text in sentences.response]
        encoded = self.encoder.encode([question, response, *doc_texts, *resp_texts])
        q, r = encoded[0], encoded[1]
        docs = encoded[2 : 2 + len(doc_texts)]
        answers = encoded[2 + len(doc_texts) :]
        return sample_features(question, q, r, sentences, docs, answers, is_rare=self._is_rare)

    def _support_base(self, sentences: KeyedSentences) -> SampleFeatures:
        """The support table of ``sentences``' response sentences against its documents (no document table: no
        support pass reads it, so neither the question nor the whole response is encoded)."""
        doc_texts = [text for doc in sentences.documents for _, text in doc]
        encoded = self.encoder.encode([*doc_texts, *(text for _, text in sentences.response)])
        docs, answers = encoded[: len(doc_texts)], encoded[len(doc_texts) :]
        return sample_features("", None, None, sentences, docs, answers, is_rare=self._is_rare, document_table=False)

    def features(self, question: str, sentences: KeyedSentences, response: str) -> tuple[SampleFeatures, Verdicts]:
        """The sample's feature tables, the NLI pass's table included, and beside them its verdicts, one per
        response sentence (remembered for the next judgement)."""
        key = (question, response, sentences)
        return self._with_nli(key, sentences, lambda: self._base_features(question, sentences, response))

    def _support_features(self, sentences: KeyedSentences) -> tuple[SampleFeatures, Verdicts]:
        """The support table of statements (``sentences``' response) against contexts, the NLI pass included."""
        return self._with_nli(("support", sentences), sentences, lambda: self._support_base(sentences))

    def _with_nli(
        self, key: tuple[Any, ...], sentences: KeyedSentences, base: Callable[[], SampleFeatures]
    ) -> tuple[SampleFeatures, Verdicts]:
        """The feature tables of ``sentences`` remembered as ``key`` (made by ``base`` when not), with the NLI pass's
        table, and its verdicts."""
        features, verdicts = self._features.get(key) or (None, None)
        if features is None or verdicts is None:
            features, verdicts = (features or base()).with_nli(
                sentences,
                self.nli.predict,
                threshold=self.params.contradiction_threshold,
                slots=self.params.lexical_conflicts,
            )
            self._features[key] = (features, verdicts)
            self._trim_features()
        self._features.move_to_end(key)
        return features, verdicts

    def _support_probabilities(
        self, statements: Sequence[str], contexts: Sequence[str]
    ) -> tuple[np.ndarray, list[str], list[bool], list[bool]]:
        """P(unsupported) of each statement against the contexts, with a reason, whether it is flagged as
        unsupported, and whether it is contradicted outright."""
        if not statements:
            return np.zeros(0), [], [], []
        features, verdicts = self._support_features(_statement_sentences(statements, contexts))
        p, contradicted = nli_adjusted(
            self.params.support.predict(features.support_inputs), verdicts, self.params, closest_documents(features)
        )
        flagged = [bool(c or p_i >= self.params.support_threshold) for c, p_i in zip(contradicted, p, strict=True)]
        marks = enumerate(zip(flagged, contradicted, strict=True))
        reasons = [sentence_explanation(features, verdicts, i, float(p[i]), f, contradicted=c) for i, (f, c) in marks]
        return p, reasons, flagged, contradicted

    def _claim_confidence(
        self,
        statements: Sequence[str],
        contexts: Sequence[str],
        p: np.ndarray,
        flagged: list[bool],
        contradicted: list[bool],
    ) -> list[float]:
        """The probability that each statement's support verdict is right, from what :meth:`_support_probabilities`
        gave (``p``, ``flagged``, ``contradicted``) and its feature tables (remembered). A statement is judged alone:
        the claim model reads no answer-level input (the decision's answer figures are placeholders)."""
        if not statements:
            return []
        features, verdicts = self._support_features(_statement_sentences(statements, contexts))
        before = self.params.support.predict(features.support_inputs)
        keys = features.response_keys
        forced = {k: v for k, v, c in zip(keys, verdicts, contradicted, strict=True) if c}
        marked = [k for k, f in zip(keys, flagged, strict=True) if f]
        decision = SupportDecision(before, p, forced, 1.0, not marked, marked)
        inputs = confidence_inputs(features, verdicts, decision, self.params)
        q = self.confidence.probability("claim", claim_inputs(inputs))
        return [round(float(c), 4) for c in verdict_confidence(q, flagged)]

    def _encode_samples(self, samples: Sequence[RagSample]) -> None:
        """Encode every text of ``samples`` in one length-sorted pass (the per-sample calls read the cache)."""
        texts: list[str] = []
        for sample in samples:
            keyed = sample.sentences
            texts += [sample.question, sample.response]
            texts += [text for doc in keyed.documents for _, text in doc] + [text for _, text in keyed.response]
        self.encoder.encode(list(dict.fromkeys(texts)))

    def prepare(self, samples: Sequence[RagSample]) -> None:
        """Announce the samples about to be judged: each kind of work their judgements share is then done for
        all of them at once, when a judgement first asks for it.

        The TRACe labelling's (:meth:`trace_labels`, :meth:`assess_all`) encodes every text and scores every NLI pair of
        the chunk in one batched pass; the reference judgements' (:meth:`attribute_reference`, :meth:`factual_accuracy`,
        :meth:`classify_answer`, :meth:`assess_reference`) do the same for their support passes, :data:`_PREPARE_GROUP`
        samples at a time. Texts sorted by length pad little, so this is far faster than sample by sample; the
        per-sample calls then read the caches. Nothing is done, and no model loaded, for work no judgement asks for
        (``semantic_similarity`` alone loads no NLI model, ``context_recall`` alone makes no TRACe table). Samples the
        judge will not read (:mod:`~rageval_lc.judges.offline.limits`) are left to their judgements, which say why.
        """
        samples = [sample for sample in samples if too_long(self, sample) is None]
        referenced = [sample for sample in samples if sample.reference and sample.reference.strip()]
        entries = [_Pending("trace", frozenset(_sample_key("trace", s) for s in samples), tuple(samples))]
        for start in range(0, len(referenced), _PREPARE_GROUP):
            group = referenced[start : start + _PREPARE_GROUP]
            for kind in ("attribution", "accuracy"):
                chosen = tuple(s for s in group if kind != "attribution" or s.has_contexts)
                entries.append(_Pending(kind, frozenset(_sample_key(kind, s) for s in chosen), chosen))
        with self._prepare_lock:
            self._pending += [entry for entry in entries if entry.samples]
            for kind in _WORK:  # a judge reused for other metrics: what was never asked for goes
                held = 0
                for entry in reversed([e for e in self._pending if e.kind == kind]):
                    held += len(entry.samples)
                    if held > _PENDING_SAMPLES:
                        self._pending.remove(entry)

    def _prepared(self, wanted: Mapping[str, tuple[Any, ...]]) -> None:
        """Do the pending work (see :meth:`prepare`) of each kind in ``wanted`` that the sample of that key belongs
        to, for its whole batch at once (a sample prepare did not announce: nothing, it is judged alone)."""
        if not self._pending:
            return
        with self._prepare_lock:
            due = [e for e in self._pending if e.kind in wanted and wanted[e.kind] in e.keys]
            if not due:
                return
            self._pending = [e for e in self._pending if e not in due]
            passes = [
                (statements, contexts)
                for entry in due
                if entry.kind != "trace"
                for s in entry.samples
                for statements, contexts in _support_passes(s, entry.kind)
            ]
            try:  # as the engine does with prepare: a failed batch leaves each sample to be judged alone
                for entry in due:
                    if entry.kind == "trace":
                        self._prepare_trace(entry.samples)
                if passes:
                    self._prepare_support(passes)
            except Exception:
                pass

    def _prepare_trace(self, samples: Sequence[RagSample]) -> None:
        """Encode every text, and score every NLI pair, that the TRACe labelling of ``samples`` needs.

        Samples are encoded :data:`_PREPARE_GROUP` at a time, their feature tables computed before the next
        group, so the encoder's cache (bounded in bytes) never has to hold a whole chunk.
        """
        pairs: list[tuple[str, str]] = []
        for start in range(0, len(samples), _PREPARE_GROUP):
            group = samples[start : start + _PREPARE_GROUP]
            self._encode_samples(group)
            for sample in group:
                key = (sample.question, sample.response, sample.sentences)
                if key in self._features:
                    continue
                try:
                    base = self._base_features(sample.question, sample.sentences, sample.response)
                except UnreadableInput:
                    continue
                self._features[key] = (base, None)
                pairs += nli_inputs(sample.sentences, base.evidence)[1]
        self.nli.predict(pairs)
        release_free_memory()  # the NLI passes' freed activations, back to the system (glibc)
        self._trim_features()

    def _prepare_support(self, passes: Sequence[tuple[Sequence[str], Sequence[str]]]) -> None:
        """Encode every text, and score every NLI pair, of these support passes ((statements, contexts), as
        :meth:`_support_probabilities` reads them) in one batched pass each."""
        jobs = [
            key
            for key in dict.fromkeys(_statement_sentences(*p) for p in passes)
            if ("support", key) not in self._features
        ]
        texts = [text for keyed in jobs for doc in keyed.documents for _, text in doc]
        texts += [text for keyed in jobs for _, text in keyed.response]
        self.encoder.encode(list(dict.fromkeys(texts)))
        pairs: list[tuple[str, str]] = []
        for keyed in jobs:
            try:
                base = self._support_base(keyed)
            except UnreadableInput:
                continue
            self._features[("support", keyed)] = (base, None)
            pairs += nli_inputs(keyed, base.evidence)[1]
        self.nli.predict(pairs)
        release_free_memory()
        self._trim_features()

    def _trim_features(self) -> None:
        while len(self._features) > _FEATURE_CACHE:
            self._features.popitem(last=False)

    # --- judgements ------------------------------------------------------------------------------

    def trace_labels(self, sample: RagSample) -> Judgement[TraceLabels]:
        """TRACe labels from the local models; ``notes["adherence_probability"]`` ranks hallucination."""
        self._prepared({"trace": _sample_key("trace", sample)})
        features, verdicts = self.features(sample.question, sample.sentences, sample.response)
        labels, notes = labels_from_features(features, verdicts, self.params, self.confidence)
        return Judgement(name="trace_labels", value=labels, notes=notes, reason="Offline judge (local models).")

    def extract_claims(self, question: str, answer: str) -> Judgement[list[str]]:
        """The answer's sentences stand in for its claims."""
        return Judgement(
            name="extract_claims", value=split_sentences(answer), reason="Sentences of the answer (offline judge)."
        )

    def verify_claims(self, claims: Sequence[str], contexts: Sequence[str]) -> Judgement[list[ClaimVerdict]]:
        """Each claim is supported when its estimated probability of being unsupported is below the threshold."""
        p, reasons, flagged, contradicted = self._support_probabilities(claims, contexts)
        verdicts = [
            ClaimVerdict(claim=claim, supported=not unsupported, reason=reason)
            for claim, reason, unsupported in zip(claims, reasons, flagged, strict=True)
        ]
        notes = {"claim_confidence": self._claim_confidence(claims, contexts, p, flagged, contradicted)}
        return Judgement(name="verify_claims", value=verdicts, reason="Offline support model.", notes=notes)

    def context_relevance(
        self, question: str, contexts: Sequence[str], reference: str | None = None
    ) -> Judgement[list[ContextVerdict]]:
        """A context is relevant when its most question-relevant sentence is probably relevant."""
        keyed = KeyedSentences.from_texts(contexts, reference or "")
        features = self._base_features(question, keyed, reference or "")
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
        threshold = self.params.context_relevant_threshold
        notes = {"context_confidence": [round(context_confidence(v.score or 0.0, threshold), 4) for v in verdicts]}
        return Judgement(name="context_relevance", value=verdicts, reason="Offline relevance model.", notes=notes)

    def attribute_reference(
        self, question: str, reference: str, contexts: Sequence[str]
    ) -> Judgement[list[StatementVerdict]]:
        """The reference's sentences, each attributed when the contexts probably support it."""
        statements = split_sentences(reference)
        if not statements:
            return Judgement(name="attribute_reference", value=[], reason="The reference is empty.")
        self._prepared({"attribution": _work_key("attribution", question, reference=reference, contexts=contexts)})
        keyed = KeyedSentences.from_texts(contexts, "")
        p, reasons, flagged, contradicted = self._support_probabilities(statements, contexts)
        doc_vectors = self.encoder.encode([t for doc in keyed.documents for _, t in doc])
        owners = [i for i, doc in enumerate(keyed.documents) for _ in doc]
        verdicts = []
        encoded = self.encoder.encode(statements)
        for statement, reason, unsupported, enc in zip(statements, reasons, flagged, encoded, strict=True):
            index = None
            if doc_vectors:
                sims = np.array([d.sentence @ enc.sentence for d in doc_vectors])
                index = owners[int(np.argmax(sims))]
            verdicts.append(
                StatementVerdict(
                    statement=statement,
                    attributed=not unsupported,
                    context_index=None if unsupported else index,
                    reason=reason,
                )
            )
        notes = {"statement_confidence": self._claim_confidence(statements, contexts, p, flagged, contradicted)}
        return Judgement(name="attribute_reference", value=verdicts, reason="Offline support model.", notes=notes)

    def rate_answer_relevance(self, question: str, answer: str) -> Judgement[RubricScore]:
        """The cosine similarity of question and answer, floored at 0 (an uncalibrated stand-in for the rubric)."""
        if not answer.strip():
            return Judgement(name="rate_answer_relevance", value=RubricScore(score=0.0, reason="Empty answer."))
        q, a = self.encoder.encode([question, answer])
        score = float(min(1.0, max(0.0, q.sentence @ a.sentence)))
        reason = f"Embedding similarity of question and answer: {score:.2f}."
        return Judgement(name="rate_answer_relevance", value=RubricScore(score=score, reason=reason))

    def factual_accuracy(self, question: str, answer: str, reference: str) -> Judgement[FactualAccuracyVerdict]:
        """Correctness: the answer's sentences supported by the reference, averaged with the share of the answer's new
        key terms (names, numbers, rare words beyond the question) the reference contains; completeness: the reverse.
        Consistency (contradictions inside the answer) cannot be assessed offline and is left None.
        """
        answer_sentences, reference_sentences = split_sentences(answer), split_sentences(reference)
        if not answer_sentences or not reference_sentences:
            verdict = FactualAccuracyVerdict(
                correctness=0.0, completeness=0.0, overall_reason="The answer or the reference is empty."
            )
            return Judgement(name="factual_accuracy", value=verdict)
        self._prepared({"accuracy": _work_key("accuracy", question, response=answer, reference=reference)})
        p_wrong, _, _, contradicted = self._support_probabilities(answer_sentences, [reference])
        correct = float((1.0 - p_wrong).mean())
        complete = float((1.0 - self._support_probabilities(reference_sentences, [answer])[0]).mean())
        overlap = key_term_overlap(question, answer, reference, is_rare=self._is_rare)
        correctness_reason = f"Support by the reference {correct:.2f} (mean over answer sentences)"
        if overlap.precision is not None:
            correct = (correct + overlap.precision) / 2
            missing = overlap.not_in_reference
            correctness_reason += f"; key terms found in the reference {overlap.precision:.2f}" + (
                f" (not there: {', '.join(missing)})" if missing else ""
            )
        # a wrong date or quantity is wrong, however close the wording (the contradiction detector's figure rule)
        if conflicting := figures_stated_otherwise(answer, reference, question):
            correct = min(correct, 0.4)
            correctness_reason += f"; figures the reference gives otherwise: {', '.join(conflicting)}"
        if any(contradicted):  # the NLI model finds an answer sentence the reference contradicts
            correct = min(correct, 0.4)
            correctness_reason += f"; {sum(contradicted)} answer sentence(s) contradicted by the reference"
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
        keys = {"response": answer, "reference": reference, "contexts": contexts}
        self._prepared({kind: _work_key(kind, question, **keys) for kind in ("attribution", "accuracy")})
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


#: The offline judge's old name (``local``), kept so that code and pickles written with it still work.
LocalJudge = OfflineJudge
