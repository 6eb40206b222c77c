"""Features of the offline judge: embedding similarities plus cheap lexical and numeric signals.

Two feature tables per sample, both computed from one encoding of every sentence (sentence vectors and
contextual token vectors of the same model):

* one row per **document sentence**, for relevance and utilization (:data:`DOCUMENT_FEATURES`);
* one row per **response sentence**, for support (:data:`SUPPORT_FEATURES`).

The same code computes the features when the judge is calibrated (``benchmarks/calibrate_local_judge.py``)
and when it judges, so the learned weights always meet the features they were fitted on.

Example:
    >>> content_words("The Eiffel Tower is 330 m tall.")
    ['eiffel', 'tower', '330', 'm', 'tall']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

import numpy as np

from rageval_lc.judges.offline.encoder import Encoded
from rageval_lc.judges.offline.grounding import EVIDENCE_MARGIN, grounding_pairs
from rageval_lc.judges.offline.limits import NO_READABLE_WORD, UnreadableInput
from rageval_lc.judges.offline.nli_pass import SentenceNli, nli_table
from rageval_lc.text import KeyedSentences, claim_free_kind

__all__ = [
    "DOCUMENT_FEATURES",
    "SUPPORT_FEATURES",
    "SampleFeatures",
    "content_words",
    "greedy_cover",
    "sample_features",
]

STOPWORDS = frozenset(
    "a an the of to in on for and or is are was were be been being by with as at from that this these those it its "
    "into than then there their they them he she his her we our you your i not no do does did can could would should "
    "will shall may might must has have had which who whom what when where why how about also such any all each more "
    "most other some only own same so too very just if but because while".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z]+")
_META = re.compile(
    r"\b(context|document|passage|provided|mention|information|not (?:specified|stated|clear)|unable|cannot|"
    r"sorry|does not|doesn't)\b",
    re.I,
)
_HEDGE = re.compile(
    r"\b(may|might|could|likely|suggests?|impl(?:y|ies)|typically|generally|possibly|probably|perhaps|usually|"
    r"often|presumably|appears?|seems?|based on|in general|overall|it is possible|can be inferred)\b",
    re.I,
)

#: Columns of the document-sentence table.
DOCUMENT_FEATURES: tuple[str, ...] = (
    "sim_question",
    "sim_response_best",
    "sim_response_full",
    "words_from_question",
    "words_in_response",
    "response_words_covered",
    "bigrams_in_response",
    "numbers_in_response",
    "best_match_of_a_response_sentence",
    "top3_match_of_a_response_sentence",
    "log_best_rank",
    "sim_question_z",
    "sim_question_gap",
    "sim_response_z",
    "sim_response_gap",
    "log_question_rank",
    "position_in_document",
    "log_document_sentences",
    "log_words",
    "heading_like",
    "mean_sim_question",
    "mean_sim_response",
    "response_sentences",
    "prev_sim_question",
    "next_sim_question",
    "prev_sim_response",
    "next_sim_response",
    "cover_chosen",
    "cover_gain",
    "prev_cover_gain",
    "next_cover_gain",
)
#: Columns of the response-sentence (support) table.
SUPPORT_FEATURES: tuple[str, ...] = (
    "sim_best",
    "sim_top3",
    "words_in_documents",
    "words_in_best",
    "words_in_top3",
    "words_greedy_covered",
    "numbers_missing",
    "any_number_missing",
    "names_missing",
    "words_missing",
    "log_words",
    "meta_statement",
    "numbers",
    "token_sim_min",
    "token_sim_mean",
    "tokens_below_0.6",
    "tokens_below_0.5",
    "pieces_not_in_documents",
    "rare_words_missing",
    "hedges",
)


def content_words(text: str) -> list[str]:
    """Lower-cased words without stopwords (numbers and decimals kept whole)."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def _bigrams(words: list[str]) -> set[tuple[str, str]]:
    return set(pairwise(words))


def greedy_cover(
    target: set[str], candidates: list[set[str]], *, min_gain: int, max_steps: int = 50
) -> dict[int, float]:
    """Pick candidates that cover ``target``'s words, most new words first, while each adds ``min_gain``.

    Returns the chosen candidate indices with the share of ``target`` each newly covered.

    Example:
        >>> greedy_cover({"a", "b", "c"}, [{"a"}, {"b", "c"}, {"z"}], min_gain=1)
        {1: 0.6666666666666666, 0: 0.3333333333333333}
    """
    covered: set[str] = set()
    chosen: dict[int, float] = {}
    for _ in range(max_steps):
        gains = [len((target & words) - covered) for words in candidates]
        if not gains:
            break
        best = int(np.argmax(gains))
        if gains[best] < min_gain:
            break
        chosen[best] = max(chosen.get(best, 0.0), gains[best] / max(1, len(target)))
        covered |= target & candidates[best]
    return chosen


@dataclass(frozen=True)
class SampleFeatures:
    """The feature tables of one sample, with the keys their rows belong to."""

    document_keys: tuple[str, ...]
    documents: np.ndarray  # (N, len(DOCUMENT_FEATURES))
    response_keys: tuple[str, ...]
    support: np.ndarray  # (M, len(SUPPORT_FEATURES))
    best_matches: tuple[tuple[str, ...], ...]  # per response sentence: its closest document keys
    best_similarity: tuple[float, ...]  # per response sentence: similarity to its closest document sentence
    missing_words: tuple[tuple[str, ...], ...]  # per response sentence: content words absent from every document
    #: per response sentence: the grounding model's input, (evidence keys, evidence text, claim text)
    evidence: tuple[tuple[tuple[str, ...], str, str], ...] = ()
    #: per response sentence: None for a claim, else the kind of sentence that makes none (:mod:`rageval_lc.text`)
    claim_free: tuple[str | None, ...] = ()
    nli: np.ndarray | None = None  # (M, len(NLI_FEATURES)), added by the judge's NLI pass

    @property
    def support_inputs(self) -> np.ndarray:
        """What the support model reads: the support table, then the NLI table.

        Raises:
            ValueError: If the NLI pass has not been added (see :meth:`with_nli`).
        """
        if self.nli is None:
            msg = "The NLI features are missing: call with_nli() first."
            raise ValueError(msg)
        return np.hstack([self.support, self.nli])

    def with_nli(
        self, sentences: KeyedSentences, predict: object, *, threshold: float, slots: bool = True
    ) -> tuple[SampleFeatures, tuple[SentenceNli, ...]]:
        """These features with the NLI table of :func:`~rageval_lc.judges.offline.nli_pass.nli_table`, and beside
        them its verdicts, one per response sentence (``threshold``, ``slots``: the contradiction detector's
        settings). The verdicts are no feature: the judge's decisions read them apart
        (:mod:`~rageval_lc.judges.offline.decision`)."""
        table, verdicts = nli_table(sentences, self.evidence, predict, threshold=threshold, slots=slots)
        return replace(self, nli=table), verdicts


def sample_features(
    question_text: str,
    question: Encoded | None,
    response: Encoded | None,
    sentences: KeyedSentences,
    documents: list[Encoded],
    answer_sentences: list[Encoded],
    *,
    is_rare: object = None,
    document_table: bool = True,
) -> SampleFeatures:
    """Compute both feature tables of one sample.

    Args:
        question_text: the question.
        question, response: the encoded question and whole response (read by the document table only).
        sentences: the sample's keyed sentences.
        documents: the encoded document sentences, in ``sentences.document_keys`` order.
        answer_sentences: the encoded response sentences, in ``sentences.response_keys`` order.
        is_rare: a callable telling whether a word is rare (split into several word pieces).
        document_table: False to leave the document table zeros, for a caller that reads only the support
            table (``question`` and ``response`` may then be None).

    Raises:
        UnreadableInput: If there are document sentences but none has a word piece the model can read
            (the judge's verdict is then ``undetermined``).
    """
    doc_texts = [text for doc in sentences.documents for _, text in doc]
    doc_pos = [(j, len(doc)) for doc in sentences.documents for j in range(len(doc))]
    doc_of = [i for i, doc in enumerate(sentences.documents) for _ in doc]
    resp_texts = [text for _, text in sentences.response]
    n, m = len(doc_texts), len(resp_texts)
    dim = next((e.sentence.shape[0] for e in (question, *documents, *answer_sentences) if e is not None), 0)
    d_vecs = np.stack([e.sentence for e in documents]) if n else np.zeros((0, dim))
    r_vecs = np.stack([e.sentence for e in answer_sentences]) if m else np.zeros((0, dim))
    doc_words = [content_words(t) for t in doc_texts]
    doc_word_sets = [set(w) for w in doc_words]
    resp_words = content_words(" ".join(resp_texts))
    resp_set, resp_bigrams = set(resp_words), _bigrams(resp_words)
    question_set = set(content_words(question_text))
    resp_numbers = set(_NUMBER.findall(" ".join(resp_texts)))

    documents_table = np.zeros((n, len(DOCUMENT_FEATURES)))
    if n and document_table:
        assert question is not None and response is not None
        sim_q = d_vecs @ question.sentence
        sims = d_vecs @ r_vecs.T if m else np.zeros((n, 1))
        sim_r = sims.max(axis=1)
        sim_full = d_vecs @ response.sentence
        best_rank = np.argsort(np.argsort(-sims, axis=0), axis=0).min(axis=1) if m else np.full(n, n)
        q_rank = np.argsort(np.argsort(-sim_q))
        cover: dict[int, float] = {}
        for words in (set(content_words(t)) for t in resp_texts):
            for index, gain in greedy_cover(words, doc_word_sets, min_gain=2).items():
                cover[index] = max(cover.get(index, 0.0), gain)
        gain = np.array([cover.get(t, 0.0) for t in range(n)])
        for t in range(n):
            words = doc_words[t]
            word_set = doc_word_sets[t]
            shared = len(word_set & resp_set)
            j, length = doc_pos[t]
            same_doc_prev = t > 0 and doc_of[t - 1] == doc_of[t]
            same_doc_next = t + 1 < n and doc_of[t + 1] == doc_of[t]
            text = doc_texts[t]
            documents_table[t] = _row(
                DOCUMENT_FEATURES,
                {
                    "sim_question": sim_q[t],
                    "sim_response_best": sim_r[t],
                    "sim_response_full": sim_full[t],
                    "words_from_question": len(word_set & question_set) / max(1, len(question_set)),
                    "words_in_response": shared / max(1, len(word_set)),
                    "response_words_covered": shared / max(1, len(resp_set)),
                    "bigrams_in_response": len(_bigrams(words) & resp_bigrams) / max(1, len(_bigrams(words))),
                    "numbers_in_response": len(set(_NUMBER.findall(text)) & resp_numbers),
                    "best_match_of_a_response_sentence": float(best_rank[t] == 0),
                    "top3_match_of_a_response_sentence": float(best_rank[t] <= 2),
                    "log_best_rank": np.log1p(best_rank[t]),
                    "sim_question_z": (sim_q[t] - sim_q.mean()) / (sim_q.std() + 1e-6),
                    "sim_question_gap": sim_q[t] - sim_q.max(),
                    "sim_response_z": (sim_r[t] - sim_r.mean()) / (sim_r.std() + 1e-6),
                    "sim_response_gap": sim_r[t] - sim_r.max(),
                    "log_question_rank": np.log1p(q_rank[t]),
                    "position_in_document": j / max(1, length),
                    "log_document_sentences": np.log(n),
                    "log_words": np.log1p(len(word_set)),
                    "heading_like": float(not text.rstrip().endswith((".", "!", "?")) and len(text.split()) <= 12),
                    "mean_sim_question": sim_q.mean(),
                    "mean_sim_response": sim_r.mean(),
                    "response_sentences": m,
                    "prev_sim_question": sim_q[t - 1] if same_doc_prev else 0.0,
                    "next_sim_question": sim_q[t + 1] if same_doc_next else 0.0,
                    "prev_sim_response": sim_r[t - 1] if same_doc_prev else 0.0,
                    "next_sim_response": sim_r[t + 1] if same_doc_next else 0.0,
                    "cover_chosen": float(gain[t] > 0),
                    "cover_gain": gain[t],
                    "prev_cover_gain": gain[t - 1] if same_doc_prev else 0.0,
                    "next_cover_gain": gain[t + 1] if same_doc_next else 0.0,
                },
            )

    support_table = np.zeros((m, len(SUPPORT_FEATURES)))
    best_matches: list[tuple[str, ...]] = []
    best_similarity: list[float] = []
    missing_words: list[tuple[str, ...]] = []
    readable = [e.tokens for e in documents if len(e.pieces)]
    if n and not readable:
        raise UnreadableInput(NO_READABLE_WORD)
    evidence_tokens: dict[tuple[int, ...], tuple[np.ndarray, set[str]]] = {}
    for k, (text, enc) in enumerate(zip(resp_texts, answer_sentences, strict=True)):
        words = set(content_words(text))
        n_words = max(1, len(words))
        sims = d_vecs @ enc.sentence if n else np.zeros(1)
        order = np.argsort(-sims)
        best = int(order[0]) if n else None
        # the evidence: the documents holding a sentence nearly as close as the closest one. What the sentence is
        # checked against stays the same when an unrelated passage is added (its sentences are far from it).
        near = [int(i) for i in order if sims[int(i)] >= sims[order[0]] - EVIDENCE_MARGIN] if n else []
        evidence_docs = {doc_of[i] for i in near}
        evidence = [t for t in range(n) if doc_of[t] in evidence_docs]
        top3 = near[:3]
        near_words = set().union(*(doc_word_sets[i] for i in top3)) if n else set()
        evidence_sets = [doc_word_sets[i] for i in evidence]
        all_words = set().union(*evidence_sets) if evidence_sets else set()
        all_numbers = {x for t in evidence for x in _NUMBER.findall(doc_texts[t])}
        all_text = " ".join(doc_texts[t] for t in evidence).lower()
        covered = greedy_cover(words, evidence_sets, min_gain=1, max_steps=4)
        covered_words = set().union(*(words & evidence_sets[i] for i in covered)) if covered else set()
        numbers = set(_NUMBER.findall(text))
        names = {w.lower() for w in _CAPITALISED.findall(text)[1:]}
        missing = words - all_words
        content = [j for j, p in enumerate(enc.pieces) if _is_content_piece(p)]
        key = tuple(sorted(evidence_docs))
        if key not in evidence_tokens:  # response sentences often share their evidence: stack it once
            stacked = [documents[t].tokens for t in evidence if len(documents[t].pieces)]
            evidence_tokens[key] = (
                np.vstack(stacked) if stacked else np.zeros((0, dim)),
                {p for t in evidence for p in documents[t].pieces},
            )
        context, pieces = evidence_tokens[key]
        if content and len(context):
            token_sims = (enc.tokens[content] @ context.T).max(axis=1)
            token_stats = {
                "token_sim_min": token_sims.min(),
                "token_sim_mean": token_sims.mean(),
                "tokens_below_0.6": (token_sims < 0.6).mean(),
                "tokens_below_0.5": (token_sims < 0.5).sum(),
            }
            not_exact = float(np.mean([enc.pieces[j] not in pieces for j in content]))
        else:
            token_stats, not_exact = dict.fromkeys(("token_sim_min", "token_sim_mean"), 1.0), 0.0
            token_stats |= dict.fromkeys(("tokens_below_0.6", "tokens_below_0.5"), 0.0)
        rare_missing = sum(1 for w in words if w not in all_text and callable(is_rare) and is_rare(w))
        support_table[k] = _row(
            SUPPORT_FEATURES,
            {
                "sim_best": float(sims[order[0]]) if n else 0.0,
                "sim_top3": float(sims[top3].mean()) if n else 0.0,
                "words_in_documents": len(words & all_words) / n_words,
                "words_in_best": len(words & doc_word_sets[best]) / n_words if best is not None else 0.0,
                "words_in_top3": len(words & near_words) / n_words,
                "words_greedy_covered": len(covered_words) / n_words,
                "numbers_missing": sum(1 for x in numbers if x not in all_numbers),
                "any_number_missing": float(any(x not in all_numbers for x in numbers)),
                "names_missing": sum(1 for w in names if w not in all_text),
                "words_missing": len(missing),
                "log_words": np.log1p(len(words)),
                "meta_statement": float(bool(_META.search(text))),
                "numbers": len(numbers),
                **token_stats,
                "pieces_not_in_documents": not_exact,
                "rare_words_missing": rare_missing,
                "hedges": len(_HEDGE.findall(text)),
            },
        )
        keys = sentences.document_keys
        best_matches.append(tuple(keys[i] for i in near[:3] if sims[i] > 0) if n else ())
        best_similarity.append(float(sims[order[0]]) if n else 0.0)
        # the reason names only words that no passage holds (not merely the passages it was checked against)
        missing_words.append(tuple(sorted(w for w in missing if not any(w in s for s in doc_word_sets)))[:8])
    similarities = r_vecs @ d_vecs.T if n and m else np.zeros((m, n))
    return SampleFeatures(
        evidence=tuple(grounding_pairs(sentences, similarities, question_text)),
        claim_free=tuple(claim_free_kind(text) for text in resp_texts),
        document_keys=sentences.document_keys,
        documents=documents_table,
        response_keys=sentences.response_keys,
        support=support_table,
        best_matches=tuple(best_matches),
        best_similarity=tuple(best_similarity),
        missing_words=tuple(missing_words),
    )


def _row(columns: tuple[str, ...], values: dict[str, float]) -> tuple[float, ...]:
    """A table row: ``values`` by column name, in ``columns`` order.

    Raises:
        ValueError: If a column has no value or a value no column (a feature added in one place only).

    Example:
        >>> _row(("a", "b"), {"b": 2.0, "a": 1.0})
        (1.0, 2.0)
    """
    if values.keys() != set(columns):
        missing, unknown = sorted(set(columns) - values.keys()), sorted(values.keys() - set(columns))
        msg = f"Feature values do not match the columns: missing {missing}, unknown {unknown}."
        raise ValueError(msg)
    return tuple(values[name] for name in columns)


def _is_content_piece(piece: str) -> bool:
    word = piece[2:] if piece.startswith("##") else piece
    return any(c.isalnum() for c in word) and word.lower() not in STOPWORDS
