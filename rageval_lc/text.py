"""Sentence splitting and the TRACe sentence keys; what is a claim (:func:`claim_free_kind`); :func:`plural`.

Document ``i`` (0-based), sentence ``j`` gets the key ``f"{i}{sentence_letters(j)}"``; response sentence
``j`` gets ``sentence_letters(j)``. Letters run a, b, …, z, aa, ab, … (bijective base 26), the scheme of
every row released with RAGBench (documents of up to 550 sentences, keys up to ``0ud``).

Example:
    >>> [sentence_letters(j) for j in (0, 25, 26, 27, 701, 702)]
    ['a', 'z', 'aa', 'ab', 'zz', 'aaa']
    >>> keyed = KeyedSentences.from_texts(["Paris is in France. It is large."], "Paris is French.")
    >>> keyed.document_keys, keyed.response_keys
    (('0a', '0b'), ('a',))
    >>> keyed.sentence("0b")
    'It is large.'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = [
    "CLAIM_FREE_KINDS",
    "SPECIAL_SUPPORT_KEYS",
    "KeyedSentences",
    "claim_free_kind",
    "document_key",
    "is_claim",
    "is_empty_answer",
    "letters_index",
    "normalize_key",
    "parse_key",
    "plural",
    "sentence_letters",
    "split_sentences",
]

#: Values a judge may put among ``supporting_sentence_keys`` instead of a document key; they count as support.
SPECIAL_SUPPORT_KEYS = frozenset({"supported_without_sentence", "general", "well_known_fact", "numerical_reasoning"})

_KEY = re.compile(r"(\d*)([a-z]+)")
_KEY_JUNK = " \t\r\n.,;:!?()[]{}\"'`*<>"
_LINE_BREAK = re.compile(r"\s*\n\s*")
# A piece that is only a list marker ("1.", "2)", "a)", "•") belongs to the sentence after it.
_LIST_MARKER = re.compile(r"\(?\d{1,3}[.)]|\(?[A-Za-z]\)|[-*•▪●◦]")


def plural(n: int, noun: str) -> str:
    """``n`` and the noun, its plural (an ``s`` added) unless ``n`` is 1: the counts in reasons and messages.

    Example:
        >>> plural(1, "claim"), plural(0, "claim"), plural(3, "document sentence")
        ('1 claim', '0 claims', '3 document sentences')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def sentence_letters(index: int) -> str:
    """Return the letters for a 0-based sentence index: 0 → 'a', 25 → 'z', 26 → 'aa'.

    Raises:
        ValueError: If ``index`` is negative.
    """
    if index < 0:
        msg = f"A sentence index must be >= 0. Got {index!r} instead."
        raise ValueError(msg)
    letters = ""
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(97 + rem) + letters
    return letters


def letters_index(letters: str) -> int:
    """Return the 0-based sentence index of a letter sequence: 'a' → 0, 'aa' → 26.

    Example:
        >>> letters_index("ud")
        549
    """
    if not letters or not letters.isascii() or not letters.isalpha() or not letters.islower():
        msg = f"Sentence letters must be lower-case ascii letters. Got {letters!r} instead."
        raise ValueError(msg)
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 96)
    return n - 1


def document_key(document_index: int, sentence_index: int) -> str:
    """Return the key of a document sentence, e.g. ``document_key(1, 2) == '1c'``."""
    return f"{document_index}{sentence_letters(sentence_index)}"


def parse_key(key: str) -> tuple[int | None, int]:
    """Split a key into (document index or None for a response sentence, sentence index).

    Example:
        >>> parse_key("12ab"), parse_key("c")
        ((12, 27), (None, 2))
    """
    match = _KEY.fullmatch(key)
    if match is None:
        msg = f"Not a sentence key: {key!r}. Keys look like '0a', '12ab' or 'c'."
        raise ValueError(msg)
    digits, letters = match.groups()
    return (int(digits) if digits else None), letters_index(letters)


def normalize_key(raw: object) -> str | None:
    """Return the canonical form of a key as judges write it, or None if it is not key-shaped.

    Tolerates what RAGBench's annotator and LLM judges emit: trailing dots (``"a."``), brackets,
    quotes, surrounding spaces and upper case.

    Example:
        >>> [normalize_key(k) for k in ("a.", " 0B ", "(1c)", "well_known_fact", 7)]
        ['a', '0b', '1c', None, None]
    """
    if not isinstance(raw, str):
        return None
    text = raw.strip(_KEY_JUNK).lower()
    return text if _KEY.fullmatch(text) else None


def split_sentences(text: str) -> list[str]:
    """Split text into sentences: line breaks first, then sentencex within each line.

    Bare list markers ("1.", "a)") are joined to the sentence they introduce. On a hand-made gold set of
    40 tricky cases (``benchmarks/data/sentence_gold.jsonl``) this gets 37 right; see
    ``benchmarks/sentence_splitting.py`` for the comparison with other splitters.

    Example:
        >>> split_sentences("Dr. Smith paid $4.5 million. See https://x.org/a.b for more.\\n1. Open Settings.")
        ['Dr. Smith paid $4.5 million.', 'See https://x.org/a.b for more.', '1. Open Settings.']
    """
    if not isinstance(text, str):
        msg = f"split_sentences expects a str. Got {type(text).__name__} instead."
        raise TypeError(msg)
    from sentencex import segment  # imported on first use: `import rageval_lc` stays light

    sentences: list[str] = []
    marker = ""
    for line in _LINE_BREAK.split(text):
        if not line.strip():
            continue
        for piece in segment("en", line):
            piece = piece.strip()
            if not piece:
                continue
            if _LIST_MARKER.fullmatch(piece):
                marker += piece + " "
                continue
            sentences.append(marker + piece)
            marker = ""
    if marker:
        sentences.append(marker.strip())
    return sentences


class KeyedSentences(BaseModel):
    """The keyed sentences of one sample: the inventory every label and verdict refers to.

    Attributes:
        documents: per document, its ``(key, sentence)`` pairs.
        response: the response's ``(key, sentence)`` pairs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    documents: tuple[tuple[tuple[str, str], ...], ...]
    response: tuple[tuple[str, str], ...]

    @model_validator(mode="after")
    def _unique_keys(self) -> KeyedSentences:
        keys = [k for doc in self.documents for k, _ in doc] + [k for k, _ in self.response]
        if len(keys) != len(set(keys)):
            seen: set[str] = set()
            dup = next(k for k in keys if k in seen or seen.add(k))  # type: ignore[func-returns-value]
            msg = f"Sentence keys must be unique within a sample. Got {dup!r} twice."
            raise ValueError(msg)
        return self

    @classmethod
    def from_texts(cls, contexts: Sequence[str], response: str) -> KeyedSentences:
        """Split and key the contexts and the response."""
        documents = tuple(
            tuple((document_key(i, j), s) for j, s in enumerate(split_sentences(text)))
            for i, text in enumerate(contexts)
        )
        answer = tuple((sentence_letters(j), s) for j, s in enumerate(split_sentences(response)))
        return cls(documents=documents, response=answer)

    @classmethod
    def from_pairs(
        cls, documents_sentences: Sequence[Sequence[Sequence[str]]], response_sentences: Sequence[Sequence[str]]
    ) -> KeyedSentences:
        """Build from pre-keyed pairs as RAGBench ships them (``[[key, sentence], ...]`` per document)."""
        documents = tuple(tuple(_pair(p, "documents_sentences") for p in doc) for doc in documents_sentences)
        answer = tuple(_pair(p, "response_sentences") for p in response_sentences)
        return cls(documents=documents, response=answer)

    @cached_property
    def document_keys(self) -> tuple[str, ...]:
        """Every document sentence key, in order."""
        return tuple(k for doc in self.documents for k, _ in doc)

    @cached_property
    def response_keys(self) -> tuple[str, ...]:
        """Every response sentence key, in order."""
        return tuple(k for k, _ in self.response)

    @property
    def num_document_sentences(self) -> int:
        """N, the number of document sentences over all documents."""
        return len(self.document_keys)

    @cached_property
    def _lookup(self) -> dict[str, str]:
        return {k: s for doc in self.documents for k, s in doc} | dict(self.response)

    def sentence(self, key: str) -> str:
        """Return the sentence behind a key (document or response).

        Raises:
            KeyError: If the key is not in this sample's inventory.
        """
        try:
            return self._lookup[key]
        except KeyError:
            msg = f"No sentence has the key {key!r} in this sample."
            raise KeyError(msg) from None

    def __contains__(self, key: object) -> bool:
        return key in self._lookup


def _pair(pair: Sequence[str], field: str) -> tuple[str, str]:
    if isinstance(pair, (str, bytes)) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
        msg = f"Each entry of {field!r} must be a [key, sentence] pair of strings. Got {pair!r} instead."
        raise TypeError(msg)
    return pair[0], pair[1]


# --- what is a claim --------------------------------------------------------------------------------------------------
# A sentence that states something about the world. Headings, list markers, code, greetings, sign-offs, meta
# sentences ("Here is how:") and hedges or refusals ("I don't know.", "I do not have information about X") make no
# claim: they are neither supported nor unsupported, and no support metric counts them. Decided here once, for every
# judge and metric that reads sentence support; asked only of the answer's own sentences.

#: The kinds of sentence that make no claim, with what the explanation calls them.
CLAIM_FREE_KINDS: dict[str, str] = {
    "empty": "nothing but punctuation or list marks",
    "heading": "a heading",
    "code": "code",
    "greeting": "a greeting or sign-off",
    "meta": "a sentence about the answer itself",
    "refusal": "a hedge or refusal",
}

_MARKS = re.compile(r"^\s*(?:[-*•+>#]+|\d{1,2}[.)]|[a-zA-Z][.)](?=\s))\s*")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+\S.*|\*\*[^*]{1,80}\*\*:?|__[^_]{1,80}__:?)\s*$")
_CODE = re.compile(r"^\s*(?:```|~~~|\$ |>>> |[A-Za-z_][\w.]*\(.*\)\s*;?\s*$|[{}\[\]();]+\s*$)")
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear \w+|thanks?(?: you)?(?: for [^.!]*)?|thank you[^.!]*|you'?re welcome|"
    r"(?:best|kind) regards|cheers|good luck|hope (?:this|that) helps[^.!]*|i hope (?:this|that) helps[^.!]*|"
    r"let me know if[^.!]*|feel free to [^.!]*|(?:please )?don'?t hesitate to [^.!]*|happy to help[^.!]*|"
    r"sure|certainly|of course|great question)\s*[.!,:]*\s*$",
    re.I,
)
_META = re.compile(
    r"^\s*(?:here(?:'s| is| are)\b[^.!?]{0,60}|(?:the )?(?:steps|answer|summary|details|instructions|options)"
    r"(?: are| is)?(?: as follows)?|(?:to (?:do|answer) (?:this|that)[^.!?]{0,40})|in summary|to summarize|in short|"
    r"for example|such as|as follows|(?:the )?following(?: steps)?(?: are)?)\s*[:.]?\s*$",
    re.I,
)
_REFUSAL = re.compile(
    r"(?:^|\b)(?:i (?:do not|don'?t|cannot|can'?t|am (?:not|unable)|'m (?:not|unable)) (?:know|have|find|see|"
    r"answer|determine|provide|sure|able)|(?:i'?m|i am) sorry|unfortunately,? (?:i|the (?:context|documents?|"
    r"passages?|information)|there is no)|"
    r"(?:the )?(?:provided )?(?:context|documents?|passages?|sources?|information)(?: provided)? (?:does|do) not "
    r"(?:contain|provide|mention|specify|say|include|state|give)|(?:there is|there's) (?:no|not enough) "
    r"(?:information|data|mention)|(?:is|are) not (?:mentioned|specified|provided|stated|given|available) in the "
    r"(?:context|documents?|passages?|sources?|information)|(?:no|insufficient) information (?:is )?"
    r"(?:available|provided|given)|cannot be determined|not enough information)",
    re.I,
)


def is_empty_answer(answer: str | None) -> bool:
    """True when the answer is missing or nothing but whitespace (every metric that judges it is undetermined)."""
    return answer is None or not str(answer).strip()


def claim_free_kind(sentence: str) -> str | None:
    """The kind of claim-free sentence this is (a key of :data:`CLAIM_FREE_KINDS`), or None for a claim.

    A refusal or hedge is claim-free only when it is the whole sentence's point: "I don't know when it opened" is,
    "It opened in 1990, but I don't know the month" states a fact and is a claim.

    Example:
        >>> claim_free_kind("Here is how:"), claim_free_kind("1."), claim_free_kind("Hope this helps!")
        ('meta', 'empty', 'greeting')
        >>> claim_free_kind("The context does not mention the tower's height.")
        'refusal'
    """
    text = sentence.strip()
    if _HEADING.match(text):
        return "heading"
    if _CODE.match(text):
        return "code"
    body = _MARKS.sub("", text, count=1).strip()
    if not re.search(r"[A-Za-z0-9]", body):
        return "empty"
    if _GREETING.match(body):
        return "greeting"
    if _META.match(body) or (body.endswith(":") and len(body.split()) <= 8):
        return "meta" if not _HEADING.match(text) else "heading"
    if _REFUSAL.search(body) and not _states_more(body):
        return "refusal"
    return None


def _states_more(body: str) -> bool:
    """A refusal joined to a statement of fact ("It opened in 1990, but I don't know the month")."""
    parts = re.split(r",?\s+\b(?:but|however|although|though)\b\s*,?|;\s*", body, maxsplit=1)
    return len(parts) == 2 and all(len(p.split()) >= 3 for p in parts) and not _REFUSAL.search(parts[0])


def is_claim(sentence: str) -> bool:
    """True when the sentence makes a claim (see :func:`claim_free_kind`).

    Example:
        >>> is_claim("The tower is 330 m tall."), is_claim("**Steps**")
        (True, False)
    """
    return claim_free_kind(sentence) is None
