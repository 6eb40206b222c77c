"""The offline judge's NLI pass: align each response sentence to document text, score the pairs, explain.

Each response sentence is paired with its two closest document sentences (by embedding similarity) and
with a window of three sentences around the closest one (for claims spread over two sentences). The NLI
model (:mod:`~rageval_lc.judges.nli`) scores every pair; per sentence this yields the features of
:data:`NLI_FEATURES` (fed to the calibrated support model) and a :class:`SentenceNli` verdict:
``supported`` (some pair is entailed), ``contradicted`` (some pair is contradicted and none entailed) or
``not_found``. A contradiction names the document sentence and, where it can, what conflicts.

Example:
    >>> conflict_detail("Mount Everest is 6,120 metres tall.", "0a", "Mount Everest is 8,849 metres tall.")
    'says 6,120 metres; 0a says 8,849 metres'
    >>> conflict_detail("The capital of Australia is Sydney.", "0a", "Canberra is the capital city of Australia.")
    'says Sydney; 0a says Canberra'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rageval_lc.text import KeyedSentences

__all__ = [
    "LEXICAL_CONFLICT_PROBABILITY",
    "NLI_FEATURES",
    "SentenceNli",
    "conflict_detail",
    "lexical_conflict",
    "nli_inputs",
    "nli_pairs",
    "nli_table",
]

#: Columns of the per-response-sentence NLI table (appended to the support features).
NLI_FEATURES: tuple[str, ...] = (
    "nli_entail_max",
    "nli_contradiction_max",
    "nli_entail_logit",
    "nli_contradiction_logit",
    "nli_neutral_at_best",
    "nli_contradicted",
    "lexical_conflict",
)
_WINDOW = 1  # sentences on each side of the closest one
_CONFLICT_CANDIDATES = 3  # closest document sentences checked for a conflict the words show
#: The contradiction probability given to a conflict the words show (a changed number, name, negation, role).
LEXICAL_CONFLICT_PROBABILITY = 0.95
_SINGLES = 2  # closest document sentences scored alone
_QUANTITY = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?:\s*(%|[A-Za-z°][A-Za-z°/]*))?")
_NAME = re.compile(r"\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*")
_NEGATION = re.compile(r"\b(not|no|never|none|nor|cannot|without|n't)\b", re.I)
_NEGATIONS = {"not", "no", "never", "none", "nor", "cannot", "without", "n't"}
_STOP = frozenset(
    "a an the of to in on at for and or is are was were be been being by with as it its this that these those "
    "has have had do does did from into than then there their they them he she his her which who what when "
    "where how also very can could would should will shall may might must".split()
)
_NOT_UNITS = frozenset("a an the and or of in on at to for by with is are was were be it its as than that".split())


@dataclass(frozen=True)
class SentenceNli:
    """The NLI outcome of one response sentence.

    Attributes:
        verdict: ``supported``, ``contradicted`` or ``not_found``.
        entailment: the highest entailment probability over its pairs.
        contradiction: the highest contradiction probability over its pairs.
        entailing_keys: the document keys of the most entailing pair.
        contradicting_keys: the document keys of the most contradicting pair.
        detail: for a contradiction, what conflicts (``"says X; 0a says Y"``), else "".
    """

    verdict: str
    entailment: float
    contradiction: float
    entailing_keys: tuple[str, ...]
    contradicting_keys: tuple[str, ...]
    detail: str = ""
    lexical: bool = False  # the conflict shows in the words (numbers, units, names, negation, roles)


def nli_pairs(
    sentences: KeyedSentences, best_matches: Sequence[Sequence[str]]
) -> list[list[tuple[tuple[str, ...], str]]]:
    """Per response sentence, its (document keys, premise text) candidates.

    Args:
        sentences: the sample's keyed sentences.
        best_matches: per response sentence, its closest document keys, closest first.
    """
    text_of = {key: text for doc in sentences.documents for key, text in doc}
    place = {key: (i, j) for i, doc in enumerate(sentences.documents) for j, (key, _) in enumerate(doc)}
    out = []
    for matches in best_matches:
        candidates: dict[tuple[str, ...], str] = {}
        for key in list(matches)[:_SINGLES]:
            candidates[(key,)] = text_of[key]
        if matches:
            i, j = place[matches[0]]
            doc = sentences.documents[i]
            window = doc[max(0, j - _WINDOW) : j + _WINDOW + 1]
            if len(window) > 1:
                candidates[tuple(k for k, _ in window)] = " ".join(t for _, t in window)
        out.append(list(candidates.items()))
    return out


def nli_inputs(
    sentences: KeyedSentences, best_matches: Sequence[Sequence[str]]
) -> tuple[list[list[tuple[tuple[str, ...], str]]], list[tuple[str, str]]]:
    """The candidates of :func:`nli_pairs` and, flattened in the same order, the (premise, hypothesis) pairs
    the NLI model scores."""
    candidates = nli_pairs(sentences, best_matches)
    hypotheses = [text for _, text in sentences.response]
    flat = [(premise, hypotheses[k]) for k, cands in enumerate(candidates) for _, premise in cands]
    return candidates, flat


def _logit(p: float) -> float:
    p = min(1 - 1e-4, max(1e-4, p))
    return float(np.log(p / (1 - p)))


def nli_table(
    sentences: KeyedSentences,
    best_matches: Sequence[Sequence[str]],
    predict: object,
) -> tuple[np.ndarray, tuple[SentenceNli, ...]]:
    """The NLI features (rows in response order, columns :data:`NLI_FEATURES`) and verdicts.

    Args:
        sentences: the sample's keyed sentences.
        best_matches: per response sentence, its closest document keys, closest first.
        predict: a callable taking (premise, hypothesis) pairs and returning probability rows
            (entailment, neutral, contradiction), e.g. :meth:`NliModel.predict`.
    """
    candidates, flat = nli_inputs(sentences, best_matches)
    hypotheses = [text for _, text in sentences.response]
    probabilities = np.asarray(predict(flat)) if flat else np.zeros((0, 3))  # type: ignore[operator]
    text_of = {key: text for doc in sentences.documents for key, text in doc}
    everything = " ".join(text_of.values())
    table = np.zeros((len(hypotheses), len(NLI_FEATURES)))
    verdicts = []
    start = 0
    for k, cands in enumerate(candidates):
        p = probabilities[start : start + len(cands)]
        start += len(cands)
        if not len(p):
            table[k] = (0.0, 0.0, _logit(0.0), _logit(0.0), 1.0, 0.0, 0.0)
            verdicts.append(SentenceNli("not_found", 0.0, 0.0, (), ()))
            continue
        best_e, best_c = int(np.argmax(p[:, 0])), int(np.argmax(p[:, 2]))
        entail, contra = float(p[best_e, 0]), float(p[best_c, 2])
        keys_c = cands[best_c][0]
        singles = [(key, text_of[key]) for key in list(best_matches[k])[:_CONFLICT_CANDIDATES]]
        lexical = lexical_conflict(hypotheses[k], singles, everything)
        entailed = bool((p.argmax(axis=1) == 0).any()) and lexical is None
        contradicted = lexical is not None or (not entailed and int(p[best_c].argmax()) == 2)
        detail = ""
        if lexical is not None:  # the words show the conflict
            keys_c, detail = (lexical[0],), lexical[1]
        elif contradicted:
            key = min(keys_c, key=lambda x: -_overlap(hypotheses[k], text_of[x]))
            detail = conflict_detail(hypotheses[k], key, text_of[key])
        nli_contradicted = not entailed and int(p[best_c].argmax()) == 2
        table[k] = (
            entail, contra, _logit(entail), _logit(contra), float(p[best_e, 1]), float(nli_contradicted),
            float(lexical is not None),
        )  # fmt: skip
        verdict = "supported" if entailed else "contradicted" if contradicted else "not_found"
        verdicts.append(SentenceNli(verdict, entail, contra, cands[best_e][0], keys_c, detail, lexical is not None))
    return table, tuple(verdicts)


def _overlap(a: str, b: str) -> int:
    return len(set(a.lower().split()) & set(b.lower().split()))


def _quantities(text: str) -> list[tuple[str, str]]:
    """(number, unit) pairs; the unit is the word right after the number, when it is not a common word.

    A bare number up to 10 is left out: list items and counts ("2.", "step 3") too often differ in wording.
    """
    out = []
    for number, unit in _QUANTITY.findall(text):
        unit = unit if unit and unit.lower() not in _NOT_UNITS else ""
        if not unit and number.isdigit() and int(number) <= 10:
            continue
        out.append((number, unit))
    return out


def conflict_detail(hypothesis: str, key: str, premise: str) -> str:
    """What a contradicted sentence says against document sentence ``key``, as far as words show it.

    Numbers (with their units) first, then names, then a negation present on one side only; "" when
    nothing specific shows (the reason then quotes the document sentence).
    """
    said, there = _quantities(hypothesis), _quantities(premise)
    there_numbers = {n.replace(",", "") for n, _ in there}
    said_numbers = {n.replace(",", "") for n, _ in said}
    new = [q for q in said if q[0].replace(",", "") not in there_numbers]
    old = [q for q in there if q[0].replace(",", "") not in said_numbers]
    if new and old:
        return f"says {_join(new)}; {key} says {_join(old)}"
    said_units = {(n.replace(",", ""), u.lower()) for n, u in said if u}
    for number, unit in there:
        for n, u in said_units:
            if n == number.replace(",", "") and unit and u != unit.lower():
                return f"says {number} {u}; {key} says {number} {unit}"
    names_said = _names(hypothesis)
    names_there = _names(premise)
    new_names = [n for n in names_said if n.lower() not in premise.lower()]
    old_names = [n for n in names_there if n.lower() not in hypothesis.lower()]
    if new_names and old_names:
        return f"says {', '.join(new_names)}; {key} says {', '.join(old_names[:3])}"
    neg_said, neg_there = bool(_NEGATION.search(hypothesis)), bool(_NEGATION.search(premise))
    if neg_said != neg_there:
        return f"{key} {'does not negate' if neg_said else 'negates'} what the sentence states"
    return ""


def _content(text: str, drop: set[str]) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z'-]*", text.lower()) if w not in _STOP and w not in drop}


def _share(words: set[str], other: set[str]) -> float:
    return len(words & other) / len(words) if words else 1.0


def lexical_conflict(
    hypothesis: str, candidates: Sequence[tuple[str, str]], documents: str | None = None
) -> tuple[str, str] | None:
    """A conflict the words alone show between a sentence and the document sentences closest to it.

    The sentence and a candidate must say nearly the same thing in other words (most of the sentence's
    other content words appear in it), and no candidate may state the sentence as it is. Then: numbers
    (a number of the sentence found nowhere in ``documents``, while the candidate has another), units (the
    same number, another unit), names (likewise found nowhere), negation (a shared word negated on one side
    only), or a role swap (the same two names in the other order, unless one side is passive). Returns
    (document key, what conflicts) or None. ``documents``: all the document text (default: the candidates).

    Example:
        >>> lexical_conflict("Microsoft acquired GitHub.", [("0a", "GitHub acquired Microsoft in 2018.")])
        ('0a', '0a names GitHub and Microsoft in the other roles')
        >>> lexical_conflict("GitHub was bought by Microsoft.", [("0a", "Microsoft acquired GitHub in 2018.")]) is None
        True
    """
    hypothesis = _tidy_numbers(hypothesis)
    candidates = [(key, _tidy_numbers(text)) for key, text in candidates]
    everywhere = _tidy_numbers(documents if documents is not None else " ".join(t for _, t in candidates))
    all_numbers = {n.replace(",", "") for n, _ in _quantities(everywhere)}
    all_lower = everywhere.lower()
    numbers = {n.replace(",", "") for n, _ in _quantities(hypothesis)}
    names = {n.lower() for n in _names(hypothesis, " ".join(t for _, t in candidates))}
    name_words = {w for n in names for w in n.split()}
    words = _content(hypothesis, name_words | numbers | _NEGATIONS)
    found = []
    for key, premise in candidates:
        p_numbers = {n.replace(",", "") for n, _ in _quantities(premise)}
        p_names = {n.lower() for n in _names(premise, hypothesis)}
        p_lower = premise.lower()
        overlap = _share(words, _content(premise, set()))
        found.append((key, premise, p_numbers, p_names, p_lower, overlap))
    if not found:
        return None
    same = [f for f in found if f[5] >= 0.6]
    # stated as it is somewhere: every number and name present, same polarity, units and roles, words shared
    for _, premise, p_numbers, _, p_lower, _ in same:
        if (
            numbers <= p_numbers
            and all(n in p_lower for n in names)
            and not _negation_flip(hypothesis, premise, words)
            and not _unit_conflict(hypothesis, premise)
            and not _role_swap(hypothesis, premise, names)
        ):
            return None
    for key, premise, p_numbers, p_names, _, overlap in same:
        new_numbers, old_numbers = numbers - all_numbers, p_numbers - numbers
        if new_numbers and old_numbers:
            return key, conflict_detail(hypothesis, key, premise) or f"{key} gives other figures"
        unit = _unit_conflict(hypothesis, premise)
        if unit:
            return key, f"says {unit[0]}; {key} says {unit[1]}"
        new_names = [n for n in names if n not in all_lower]
        old_names = [n for n in p_names if n not in hypothesis.lower()]
        if new_names and old_names:
            return key, conflict_detail(hypothesis, key, premise) or f"{key} names someone else"
        flipped = _negation_flip(hypothesis, premise, words)
        if flipped and overlap >= 0.7:
            side, word = flipped
            return key, f"{key} {'does not negate' if side == 'sentence' else 'negates'} '{word}'"
        if _role_swap(hypothesis, premise, names):
            shared = [n for n in _names(premise, hypothesis) if n.lower() in names]
            return key, f"{key} names {' and '.join(shared[:2])} in the other roles"
    return None


def _tidy_numbers(text: str) -> str:
    """ "13, 134" (a tokeniser's split thousands) back to "13,134"."""
    return re.sub(r"(?<=\d), (?=\d{3}\b)", ",", text)


def _negated_words(text: str) -> set[str]:
    """Words within two words after a negation ("not recommended", "never been approved")."""
    tokens = re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower())
    out = set()
    for i, token in enumerate(tokens):
        if token in _NEGATIONS or token.endswith("n't"):
            out.update(t for t in tokens[i + 1 : i + 3] if t not in _STOP)
    return out


def _negation_flip(hypothesis: str, premise: str, words: set[str]) -> tuple[str, str] | None:
    """(which side negates, the word) when a content word the two share is negated on one side only."""
    hypothesis = re.sub(r"^\s*(?:no|yes)\s*[,.:;!-]\s*", "", hypothesis, flags=re.I)  # an answer's "No, ..."
    h_neg, p_neg = _negated_words(hypothesis), _negated_words(premise)
    p_words = _content(premise, set())
    for word in sorted((p_neg - h_neg) & words):
        return ("document", word)
    for word in sorted((h_neg - p_neg) & p_words):
        return ("sentence", word)
    return None


_PASSIVE = re.compile(r"\b(?:was|were|is|are|been|being|be)\s+(?:\w+\s+)?\w+(?:ed|en|wn|ght|id)\s+by\b", re.I)


def _role_swap(hypothesis: str, premise: str, names: set[str]) -> bool:
    """The same two names in the other order, both sentences in the same voice (or the same order, voices differ)."""
    ordered_h = [n.lower() for n in _names(hypothesis, premise)]
    ordered_p = [n.lower() for n in _names(premise, hypothesis) if n.lower() in names]
    shared = [n for n in ordered_h if n in ordered_p]
    if len(ordered_h) != 2 or len(shared) != 2 or any(len(n.split()) > 3 for n in shared):
        return False
    a, b = shared[0], shared[1]
    reversed_order = ordered_p.index(a) > ordered_p.index(b)
    voices_differ = bool(_PASSIVE.search(hypothesis)) != bool(_PASSIVE.search(premise))
    return reversed_order != voices_differ


_UNITS = {
    "m": "metre", "metre": "metre", "metres": "metre", "meter": "metre", "meters": "metre",
    "km": "kilometre", "kilometre": "kilometre", "kilometres": "kilometre", "kilometer": "kilometre",
    "kilometers": "kilometre", "mi": "mile", "mile": "mile", "miles": "mile", "ft": "foot", "feet": "foot",
    "foot": "foot", "cm": "centimetre", "centimetres": "centimetre", "centimeters": "centimetre",
    "mm": "millimetre", "millimetres": "millimetre", "millimeters": "millimetre", "in": "inch", "inches": "inch",
    "g": "gram", "gram": "gram", "grams": "gram", "kg": "kilogram", "kilogram": "kilogram", "kilograms": "kilogram",
    "mg": "milligram", "milligram": "milligram", "milligrams": "milligram", "lb": "pound", "lbs": "pound",
    "pound": "pound", "pounds": "pound", "oz": "ounce", "ounce": "ounce", "ounces": "ounce", "l": "litre",
    "litre": "litre", "litres": "litre", "liter": "litre", "liters": "litre", "ml": "millilitre",
    "millilitres": "millilitre", "milliliters": "millilitre", "gallon": "gallon", "gallons": "gallon",
    "second": "second", "seconds": "second", "minute": "minute", "minutes": "minute", "hour": "hour",
    "hours": "hour", "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "year": "year", "years": "year", "%": "percent", "percent": "percent",
    "°c": "celsius", "°f": "fahrenheit", "celsius": "celsius", "fahrenheit": "fahrenheit",
    "million": "million", "billion": "billion", "thousand": "thousand", "mph": "mph", "kph": "kph",
    "w": "watt", "watts": "watt", "kw": "kilowatt", "kilowatts": "kilowatt", "v": "volt", "volts": "volt",
    "mb": "megabyte", "gb": "gigabyte", "tb": "terabyte",
}  # fmt: skip


def _unit_conflict(hypothesis: str, premise: str) -> tuple[str, str] | None:
    """(the sentence's quantity, the document's) when the same number carries two different known units."""
    theirs = {}
    for number, unit in _quantities(premise):
        if unit.lower() in _UNITS:
            theirs.setdefault(number.replace(",", ""), set()).add((_UNITS[unit.lower()], f"{number} {unit}"))
    for number, unit in _quantities(hypothesis):
        kind = _UNITS.get(unit.lower())
        there = theirs.get(number.replace(",", ""), set())
        if kind and there and kind not in {k for k, _ in there}:
            return f"{number} {unit}", sorted(there)[0][1]
    return None


def _names(text: str, context: str | None = None) -> list[str]:
    """Capitalised word runs that are names. A sentence's (or clause's) first word counts only when it is not a
    common opener and, given ``context`` (the other text of a pair), only when that text has it capitalised too.

    Example:
        >>> _names("However, Canberra is the capital. Table 2: Sydney (NSW) is larger. Brisbane is not.")
        ['Canberra', 'Sydney', 'Brisbane']
        >>> _names("Press the button. Canberra is far.", context="Canberra is the capital.")
        ['Canberra']
    """
    names = []
    for match in _NAME.finditer(text):
        words = match.group().split()
        before = text[: match.start()].rstrip()
        at_start = not before or before[-1] in ".!?:;(\"'\u201c\u2014" or before.endswith(("-", "\u2013"))
        first = words[0]
        if at_start and (
            first.lower() in _COMMON_STARTS
            or (context is not None and not re.search(rf"\b{re.escape(first)}\b", context))
        ):  # "Press", "However": a capital letter there says little unless the other text has the word too
            words = words[1:]
        run = " ".join(w for w in words if len(w) > 1)
        if run and not (run.isupper() and len(run) <= 5):  # acronyms are too often spelt out elsewhere
            names.append(run)
    return list(dict.fromkeys(names))


def _join(quantities: list[tuple[str, str]]) -> str:
    return ", ".join(f"{n} {u}".strip() for n, u in quantities[:3])


_COMMON_STARTS = frozenset(
    "the a an it its this that these those he she they we you i in on at by for from with as there their his her "
    "our my your after before during since when while if although however yes no additionally moreover furthermore "
    "also one two three first second third finally overall thus therefore then many most some several such both "
    "each all other another because table figure passage abstract background results methods conclusion note "
    "title summary source question answer according based".split()
)
