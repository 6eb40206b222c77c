"""The grounding model's input: one (evidence, claim) pair per response sentence, built the same way at run time
and in training (``training/grounding_pairs.py`` calls these functions).

The evidence is drawn from the documents holding a sentence nearly as close to the response sentence as the
closest one (within :data:`EVIDENCE_MARGIN` cosine similarity, as the judge's lexical features read it): their
sentences closest to it by embedding similarity (:data:`EVIDENCE_SENTENCES` of them) plus the one sharing the most
content words with it when that is another sentence, in document order, joined by spaces. A passage far from every
sentence of the answer never enters it, so adding an unrelated passage changes no verdict.

The claim is the response sentence; a short one (fewer than :data:`SHORT_CLAIM_WORDS` words, "In 1889.") is read
after the question, which it answers.

The grounding model (the shipped NLI model trained on these pairs, :mod:`~rageval_lc.judges.offline.nli`) reads
the pair and gives P(supported), P(not found), P(contradicted) (its entailment, neutral, contradiction columns).

Example:
    >>> import numpy as np
    >>> from rageval_lc.text import KeyedSentences
    >>> keyed = KeyedSentences.from_texts(["Paris is big. The tower was finished in 1889."], "It was finished in 1889.")
    >>> sims = np.array([[0.1, 0.8]])
    >>> keys, evidence, claim = grounding_pairs(keyed, sims, "When was the tower finished?")[0]
    >>> keys, claim
    (('0a', '0b'), 'When was the tower finished? It was finished in 1889.')
"""

from __future__ import annotations

import numpy as np

from rageval_lc.metrics.overlap import overlap_words
from rageval_lc.text import KeyedSentences

__all__ = [
    "EVIDENCE_MARGIN",
    "EVIDENCE_SENTENCES",
    "GROUNDING_MAX_LENGTH",
    "SHORT_CLAIM_WORDS",
    "claim_text",
    "content_words",
    "grounding_pairs",
]

EVIDENCE_SENTENCES = 4  # the closest document sentences by embedding similarity
EVIDENCE_MARGIN = 0.25  # a document holding a sentence this much less similar than the closest one is evidence
SHORT_CLAIM_WORDS = 6  # a claim shorter than this is read after its question
GROUNDING_MAX_LENGTH = 256  # word pieces of a pair (the evidence is truncated first)


def content_words(text: str) -> set[str]:
    """The words the evidence's word match reads: the word-overlap baseline's (:mod:`rageval_lc.metrics.overlap`).

    >>> sorted(content_words("The tower was finished in 1889."))
    ['1889', 'finished', 'tower']
    """
    return set(overlap_words(text))


def claim_text(question: str, sentence: str) -> str:
    """The hypothesis the grounding model reads: the sentence, after the question when the sentence is short.

    >>> claim_text("Who wrote Emma?", "Jane Austen.")
    'Who wrote Emma? Jane Austen.'
    """
    if question.strip() and len(sentence.split()) < SHORT_CLAIM_WORDS:
        return f"{question.strip()} {sentence.strip()}"
    return sentence.strip()


def grounding_pairs(
    sentences: KeyedSentences, similarities: np.ndarray, question: str = ""
) -> list[tuple[tuple[str, ...], str, str]]:
    """Per response sentence: (evidence keys in document order, evidence text, claim text).

    Args:
        sentences: the sample's keyed sentences.
        similarities: cosine similarities, one row per response sentence, one column per document sentence
            (in ``sentences.document_keys`` order).
        question: the question (read before short claims).
    """
    keys = sentences.document_keys
    texts = [text for doc in sentences.documents for _, text in doc]
    doc_of = np.array([d for d, doc in enumerate(sentences.documents) for _ in doc], dtype=int)
    words = [content_words(t) for t in texts]
    out = []
    for k, (_, sentence) in enumerate(sentences.response):
        chosen: list[int] = []
        if keys:
            row = np.asarray(similarities[k], dtype=float)
            near_docs = np.unique(doc_of[row >= row.max() - EVIDENCE_MARGIN])
            pool = np.flatnonzero(np.isin(doc_of, near_docs))
            chosen = [int(i) for i in pool[np.argsort(-row[pool], kind="stable")[:EVIDENCE_SENTENCES]]]
            own = content_words(sentence)
            if own:
                overlap = [len(own & words[i]) for i in pool]
                best = int(pool[int(np.argmax(overlap))])
                if max(overlap) and best not in chosen:
                    chosen.append(best)
        chosen.sort()
        out.append((tuple(keys[i] for i in chosen), " ".join(texts[i] for i in chosen), claim_text(question, sentence)))
    return out
