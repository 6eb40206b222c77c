"""The offline judge's contradiction detector: is a response sentence contradicted by the documents?

A verdict of its own, apart from the support model fitted on RAGBench (whose hallucinations are nearly all
additions). Two kinds of evidence, each speaking only where the rest of the sentence *aligns* with the
document text (most of its other content words are there), so that an unrelated passage never changes a
verdict:

* **slot checks** (the facts of :mod:`rageval_lc.facts`: numbers, dates, names, negations, comparisons): a
  number with its unit, a date, a name, a negation, who did what to whom, or a comparison that differs between the
  sentence and an aligned document sentence, window of sentences or passage — while no aligned document sentence
  states it as it is;
* **the grounding model's** contradiction probability for the sentence against its evidence (its closest document
  sentences, :mod:`~rageval_lc.judges.offline.grounding`) where that evidence aligns, at least ``threshold`` and
  above its entailment probability.

The document texts compared are :mod:`~rageval_lc.judges.offline.contradiction.reading` units, matched slot by
slot by :class:`~rageval_lc.judges.offline.contradiction.matching.SlotMatch`; here, the verdicts and their reasons.
The threshold was set for precision on a development set of our own (``benchmarks/contradiction_dev.py``), never
on RAGBench.

Example:
    >>> from rageval_lc.judges.offline.contradiction.reading import evidence_units
    >>> document = [("0a", "Canberra is the capital city of Australia."), ("0b", "Sydney is its largest city.")]
    >>> units = evidence_units([document])
    >>> find_conflict("The capital of Australia is Sydney.", units).detail
    'says Sydney; 0a says Canberra'
    >>> find_conflict("Canberra is Australia's capital.", units) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rageval_lc.facts.names import same_name
from rageval_lc.facts.polarity import ANTONYMS, NEGATIONS
from rageval_lc.facts.words import stem
from rageval_lc.judges.offline.contradiction.matching import (
    SlotMatch,
    distinctive,
    side_values,
    unmatched_figures,
)
from rageval_lc.judges.offline.contradiction.reading import (
    LEADING_PRONOUN,
    MIN_CLAUSE_WORDS,
    SINGLE,
    EvidenceUnit,
    Slots,
    alignment,
    frame_words,
    read_slots,
    with_previous,
)

__all__ = ["Conflict", "find_conflict", "keys_label", "nli_conflict", "said_verbatim", "stating_sentence"]

#: Share of a sentence's content words (names, numbers and dates aside) a document text must hold to be compared.
MIN_ALIGNMENT = 0.6
#: Stricter for a negation, which turns on one word.
MIN_NEGATION_ALIGNMENT = 0.8
#: Share of a document sentence's frame words the response sentence must hold for a name, role or negation
#: conflict: the two say nearly the same thing, not a long sentence of many facts that shares a few words.
MIN_FOCUS = 0.5
#: The same for a number or date conflict.
MIN_FIGURE_FOCUS = 0.3
#: The same for a negation ("not recommended for children because of the risk of Reye's syndrome").
MIN_NEGATION_FOCUS = 0.4
#: A name conflict: the share of the sentence's frame words the document sentence holds (it adds nothing else).
MIN_NAME_ALIGNMENT = 0.8
#: How sure a slot conflict is taken to be (the NLI model's probability is used when higher).
SLOT_CONFLICT_STRENGTH = 0.95
#: An evidence unit that entails a sentence at least this probably rules out an NLI contradiction from another
#: (documents may disagree; the sentence is grounded in the one that states it).
ENTAILMENT_VETO = 0.5
#: Words that judge an action rather than state a fact ("aspirin is safe to give" says "aspirin may be given"): a
#: document sentence need not repeat them to be compared for a negation.
_VERDICT_WORDS = frozenset(stem(w) for w in "safe okay ok fine acceptable".split())
_CONDITIONAL = re.compile(r"\b(?:if|unless|whether|in case|otherwise)\b", re.I)


@dataclass(frozen=True)
class Conflict:
    """Why a response sentence is contradicted.

    Attributes:
        kind: ``number``, ``unit``, ``date``, ``name``, ``negation``, ``role_swap``, ``comparison`` or ``nli``.
        keys: the document sentence keys that say otherwise.
        detail: the conflict in words, e.g. ``"says 1991; 1b says 9 November 1989"``.
        strength: how sure the detector is (the NLI contradiction probability, or a slot conflict's).
    """

    kind: str
    keys: tuple[str, ...]
    detail: str
    strength: float


def _numeric_comparison(said: Slots, units: Sequence[EvidenceUnit]) -> Conflict | None:
    """ "A is cheaper than B" where a document text gives both amounts the other way round."""
    for comparison in said.comparisons:
        left, right = comparison.left - comparison.right, comparison.right - comparison.left
        if not left or not right:
            continue
        for unit in units:
            if unit.kind == "passage":
                continue
            values = side_values(unit.text, left, right, comparison.measure)
            if values is None:
                continue
            (a, a_text), (b, b_text) = values
            if a == b:
                continue
            if (a - b) * comparison.direction < 0:
                detail = f'says "{comparison.text}"; {_where(unit)} gives {a_text} against {b_text}'
                return Conflict("comparison", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
            return None  # the document's figures agree
    return None


def _slot_conflict(match: SlotMatch) -> Conflict | None:
    """The conflict between a sentence and one aligned document text, slot by slot."""
    said, unit, where = match.said, match.unit, _where(match.unit)
    new_n, old_n = match.names
    same_subject = _same_subject(match)
    if same_subject and (rival := match.quantity_rival()):
        kind, q, e = rival
        return Conflict(kind, unit.keys, f"says {q.describe()}; {where} says {e.describe()}", SLOT_CONFLICT_STRENGTH)
    if same_subject and (dated := match.date_rival()):
        detail = f"says {dated[0].describe()}; {where} says {dated[1].describe()}"
        return Conflict("date", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    # another name both share (or the one a leading pronoun stands for): the same subject, another filler
    anchored = len(said.names) - len(new_n) >= 1 or (bool(said.meant) and match.meant_found)
    focused = match.focus >= MIN_FOCUS
    if new_n and old_n and anchored and len(new_n) == 1 and len(old_n) <= 2 and unit.kind in SINGLE and focused:
        if match.alignment < MIN_NAME_ALIGNMENT:  # it adds more than the other name
            return None
        if LEADING_PRONOUN.match(unit.text) and not unit.context:  # "He later tutored ...": he may be the name
            return None
        detail = f"says {', '.join(new_n)}; {where} says {', '.join(old_n[:2])}"
        return Conflict("name", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    swapped = match.swapped_roles(resolve_pronouns=True) if focused else None
    if swapped:
        detail = f"{where} names {swapped[0]} and {swapped[1]} in the other roles"
        return Conflict("role_swap", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    compared = match.comparison_conflict
    if compared and match.alignment >= MIN_ALIGNMENT:
        detail = f'says "{compared[0].text}"; {where} says "{compared[1].text}"'
        return Conflict("comparison", unit.keys, detail, SLOT_CONFLICT_STRENGTH)
    return _negation_conflict(match)


def _same_subject(match: SlotMatch) -> bool:
    """Whether the text speaks of the sentence's subject: every name found, and enough of the text in the sentence
    (another entity's number is no conflict)."""
    return not match.names[0] and match.meant_found and match.focus >= MIN_FIGURE_FOCUS


def _negation_conflict(match: SlotMatch) -> Conflict | None:
    """A frame word negated on one side only, in a single statement that otherwise says the same."""
    said, unit = match.said, match.unit
    aligned = alignment(match.frame - _VERDICT_WORDS, unit.text) >= MIN_NEGATION_ALIGNMENT
    figures_differ = (_same_subject(match) and match.quantities[0]) or match.dates[0] or match.names[0]
    if not aligned or match.focus < MIN_NEGATION_FOCUS or unit.kind not in SINGLE or figures_differ:
        return None
    if _CONDITIONAL.search(unit.text) or _CONDITIONAL.search(said.text):
        return None  # "if the picture is not correct, ..." states a condition, not that it is not correct
    if match.negation_flip is None:
        return None
    side, word = match.negation_flip
    detail = _negation_detail(said.text, unit.text, word, side, _where(unit))
    return Conflict("negation", unit.keys, detail, SLOT_CONFLICT_STRENGTH)


def _negation_detail(sentence: str, document: str, word: str, side: str, where: str) -> str:
    """'says "recommended"; 0a says "not recommended"' — the words as each side writes them."""
    negated_text, plain_text = (document, sentence) if side == "document" else (sentence, document)
    tokens = re.findall(r"[A-Za-z]+(?:['’][a-z]+)?", negated_text)
    phrase = ""
    for i, token in enumerate(tokens):
        if token.lower() in NEGATIONS or token.lower().endswith(("n't", "n’t")):
            for j in range(i + 1, min(i + 3, len(tokens))):
                if stem(tokens[j]) == word:
                    phrase = " ".join(tokens[i : j + 1])
                    break
        if phrase:
            break
    plain = next((t for t in re.findall(r"[A-Za-z]+", plain_text) if stem(t) == word), word)
    if not phrase:  # an antonym ("closed" for "not open")
        phrase = next((t for t in re.findall(r"[A-Za-z]+", negated_text) if ANTONYMS.get(t.lower()) and
                       stem(ANTONYMS[t.lower()]) == word), f"not {plain}")  # fmt: skip
    if side == "document":
        return f'says "{plain}"; {where} says "{phrase}"'
    return f'says "{phrase}"; {where} says "{plain}"'


def keys_label(keys: Sequence[str]) -> str:
    """How a reason names document sentences: "1b", or "1b–1d" for a window or passage."""
    return keys[0] if len(keys) == 1 else f"{keys[0]}–{keys[-1]}"


def _where(unit: EvidenceUnit) -> str:
    return keys_label(unit.keys)


def _states(match: SlotMatch) -> bool:
    """A document sentence says what the sentence says: aligned, every number, date and name found, the same
    polarity, roles and comparisons."""
    if match.alignment < MIN_ALIGNMENT:
        return False
    if match.context_means_another:  # "It was chosen as the capital over Sydney": "it" is another name
        return False
    return match.holds_every_fact and match.swapped_roles() is None and match.comparison_conflict is None


def _named_elsewhere(match: SlotMatch, others: Sequence[SlotMatch]) -> bool:
    """Whether the sentence's names all stand in another document sentence about the same thing (half its frame
    words): the name said is then found where it belongs, not in place of another. A sentence that names the
    rival too, or whose pronoun stands for it ("It was chosen as the capital over Sydney", after "Canberra is the
    capital"), speaks for the rival, not for the name said."""
    rivals = match.names[1]
    for other in others:
        unit = other.unit
        if unit.kind != "sentence" or unit.keys == match.unit.keys or other.alignment < 0.5:
            continue
        if any(same_name(r, [], f"{unit.context} {unit.text}") for r in rivals):
            continue
        if not other.names[0]:
            return True
    return False


def _figures_stated_elsewhere(match: SlotMatch, aligned: Sequence[SlotMatch]) -> bool:
    """Whether another single statement, as aligned, gives every number and date of the sentence and names what
    it names: the sentence then restates that one ("$50" from one seller's passage, "$60" in another's), and the
    figure it differs from belongs to another statement."""
    said = match.said
    if not (said.quantities or said.dates):
        return False
    for other in aligned:
        if other.unit.kind not in SINGLE or other.unit.keys == match.unit.keys:
            continue
        if not other.quantities[0] and not other.dates[0] and not other.names[0] and other.meant_found:
            return True
    return False


def _name_alignment(said: Slots, text: str) -> float:
    """For a sentence of names alone ("Mount Kilimanjaro is in Kenya"): 1 when all but one of its names are in
    ``text``, else 0."""
    found = sum(same_name(n, [], text) for n in said.names)
    return 1.0 if len(said.names) >= 2 and found == len(said.names) - 1 else 0.0


def find_conflict(sentence: str, units: Sequence[EvidenceUnit], previous: str | None = None) -> Conflict | None:
    """The slot conflict between a response sentence and the documents, or None.

    A document sentence that states the sentence as it is clears it. Otherwise the aligned document texts are
    read, sentences first, then windows, then passages, most aligned first; the first conflict found is returned.
    ``previous``: the response sentence before it, whose first name a leading "it", "its", "she", ... stands for.
    """
    clauses = [c for c in re.split(r";\s+", sentence) if c.strip()]
    if len(clauses) > 1:
        return next((c for c in (find_conflict(c, units, previous) for c in clauses) if c is not None), None)
    documents = " ".join(u.text for u in units if u.kind == "sentence")
    if said_verbatim(sentence, units):
        return None
    said = with_previous(read_slots(sentence, documents), sentence, previous, documents)
    if not (said.quantities or said.dates or said.names or said.comparisons or frame_words(said.text)):
        return None
    frame = frame_words(said.text, said.names)
    matches = [SlotMatch(said, frame, u) for u in units]
    if any(_states(m) for m in matches if m.unit.kind in SINGLE):
        return None
    if said.comparisons:
        compared = _numeric_comparison(said, units)
        if compared is not None:
            return compared
    order = {"sentence": 0, "clause": 0, "window": 1, "passage": 2}
    scored = [(m.alignment if frame else _name_alignment(said, m.unit.text), m) for m in matches]
    ranked = sorted(scored, key=lambda sm: (order[sm[1].unit.kind], -sm[0]))
    for score, match in ranked:  # the same distinctive number in another unit ("42.195 miles" for kilometres)
        if match.unit.kind == "sentence" and score < MIN_ALIGNMENT and any(distinctive(q) for q in said.quantities):
            conflict = _slot_conflict(match)
            if conflict is not None and conflict.kind == "unit":
                return conflict
    aligned = [m for score, m in ranked if score >= MIN_ALIGNMENT]
    for match in aligned:
        conflict = _slot_conflict(match)
        if conflict is None:
            continue
        if conflict.kind == "name" and _named_elsewhere(match, matches):
            continue
        figure = conflict.kind in ("number", "unit", "date")
        if figure and _figures_stated_elsewhere(match, aligned):
            continue  # another statement of the same thing gives the sentence's figures: passages may differ
        if match.unit.kind == "sentence" or not figure:
            return conflict
        if unmatched_figures(said, [m.there for m in aligned]):  # in no aligned text at all
            return conflict
    return None


_LIST_MARK = re.compile(r"^\s*(?:(?:step\s+)?\d{1,2}[.):]|[-•*])\s+", re.I)


def _plain_words(text: str) -> str:
    """A text as a run of lower-case words and numbers: list marks, punctuation and spacing gone."""
    text = _LIST_MARK.sub("", text.replace("’", "'"))
    return " ".join(re.findall(r"[a-z0-9]+(?:['.,][a-z0-9]+)*", text.lower()))


def _document(key: str) -> str:
    """The document a sentence key belongs to: "12" for "12c"."""
    return key.rstrip("abcdefghijklmnopqrstuvwxyz")


def _unit(text: str) -> EvidenceUnit:
    return EvidenceUnit((), text, "window")


def said_verbatim(sentence: str, units: Sequence[EvidenceUnit]) -> bool:
    """Whether a document text holds the sentence word for word (list marks, case and punctuation aside): what a
    passage says verbatim is never contradicted by it. The slot checks then find no conflict at all, as for a
    sentence a document sentence states; the NLI model's reading of another passage may still contradict it.

    Example:
        >>> from rageval_lc.judges.offline.contradiction.reading import evidence_units
        >>> units = evidence_units([[("0a", "3. Press and hold the power button for 10 seconds, then release it.")]])
        >>> said_verbatim("Press and hold the power button for 10 seconds.", units)
        True
        >>> said_verbatim("Press and hold the power button for 15 seconds.", units)
        False
    """
    words = _plain_words(sentence)
    if len(words.split()) < MIN_CLAUSE_WORDS:
        return False
    return any(f" {words} " in f" {_plain_words(u.text)} " for u in units if u.kind != "passage")


def stating_sentence(sentence: str, units: Sequence[EvidenceUnit], previous: str | None = None) -> tuple[str, ...]:
    """The keys of a document sentence holding every specific the sentence states — each number with its unit,
    each date and each name, at least one number or date among them — or () when there is none.

    A restatement in other words ("Everest rises 8,849 m above sea level" for "Mount Everest is 8,849 metres
    tall") shares few words with its source but all of its facts; the judge counts it as support when the two
    sentences are also close in meaning (see :func:`~rageval_lc.judges.offline.decision.nli_adjusted`).

    Example:
        >>> from rageval_lc.judges.offline.contradiction.reading import evidence_units
        >>> units = evidence_units([[("0a", "Mount Everest is 8,849 metres tall.")]])
        >>> stating_sentence("Everest rises 8,849 m above sea level.", units)
        ('0a',)
        >>> stating_sentence("Everest rises 8,849 m above Nepal.", units)
        ()
    """
    documents = " ".join(u.text for u in units if u.kind == "sentence")
    said = with_previous(read_slots(sentence, documents), sentence, previous, documents)
    if not (said.quantities or said.dates):
        return ()
    frame = frame_words(said.text, said.names)
    for unit in units:
        if unit.kind == "sentence" and SlotMatch(said, frame, unit).holds_every_fact:
            return unit.keys
    return ()


def nli_conflict(
    sentence: str,
    candidates: Sequence[tuple[tuple[str, ...], str]],
    probabilities: Sequence[Sequence[float]],
    threshold: float,
    min_alignment: float = MIN_ALIGNMENT,
) -> Conflict | None:
    """A contradiction the NLI model sees: the most contradicting aligned pair, when at least ``threshold``
    probable and above its entailment, and no pair entails the sentence more than it contradicts it or at least
    :data:`ENTAILMENT_VETO` probably.

    Args:
        sentence: the response sentence.
        candidates: the (document keys, premise) pairs scored.
        probabilities: per candidate, (entailment, neutral, contradiction).
        threshold: the contradiction probability needed.
        min_alignment: the share of the sentence's frame words the premise must hold.
    """
    # what a passage says verbatim it does not contradict (another passage may: documents can disagree)
    holding = {_document(k) for keys, premise in candidates for k in keys if said_verbatim(sentence, [_unit(premise)])}
    said = read_slots(sentence)
    frame = frame_words(said.text, said.names)
    best: tuple[float, tuple[str, ...]] | None = None
    top_entailment = max((float(p[0]) for p in probabilities), default=0.0)
    for (keys, premise), p in zip(candidates, probabilities, strict=True):
        entail, contra = float(p[0]), float(p[2])
        if contra < threshold or contra <= entail or alignment(frame, premise) < min_alignment:
            continue
        if any(_document(k) in holding for k in keys):
            continue
        if best is None or contra > best[0]:
            best = (contra, keys)
    if best is None or top_entailment >= min(best[0], ENTAILMENT_VETO):
        return None
    return Conflict("nli", best[1], "", best[0])
