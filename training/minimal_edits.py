"""Minimal-edit NLI pairs made from encyclopedic sentences (the second stage of ``train_nli.py``).

An NLI model trained on SNLI-style data learns that a hypothesis sharing almost every word with its premise is
entailed, so "Mount Everest is 6,120 metres tall" passes against "Mount Everest is 8,849 metres tall". These
pairs teach the opposite: one small edit that changes the fact (a number, a year, a name that is not the
subject, a negation, two names swapped, a unit) is a contradiction, while edits that keep the fact (the copy
itself, a parenthesis or an appositive dropped, a number written another way) stay entailed.

The sentences are the premises of the *training* side of the NLI split (FEVER and Climate-FEVER evidence:
Wikipedia, CC BY-SA), never a held-out premise. A premise is the sentence alone or placed among one or two
other sentences (the judge scores single document sentences and three-sentence windows).

    >>> import random
    >>> edit_number("It has 1,642 metres of water.", random.Random(0))[0]
    'contradiction'
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Sequence

from rageval_lc.facts import MONTHS, WEEKDAYS
from rageval_lc.facts.units import UNIT_SWAPS

Edit = tuple[str, str, str]  # (label, hypothesis, kind)

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-4][0-9])\b")
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w]|[.,]\d)")
_NAME = re.compile(r"(?<!^)(?<![.!?] )\b([A-Z][a-z]+(?: [A-Z][a-z]+){0,2})\b")
_AUX = re.compile(r"\b(is|was|are|were|can|will|has|have|had|does|did|could|should|would)\b(?! not\b)")
_NEGATED = re.compile(r"\b(is|was|are|were|can|will|has|have|had|does|did|could|should|would) not\b")
_PAREN = re.compile(r"\s*\([^()]*\)")
_APPOSITIVE = re.compile(r", (?:a|an|the|which|who) [^,]{3,60},")
_UNIT = re.compile(r"(?<=\d )(" + "|".join(re.escape(u) for u in sorted(UNIT_SWAPS, key=len, reverse=True)) + r")\b")
_NOT_NAMES = frozenset(
    "The A An In On At It He She They This That These Those His Her Its Their Of For And But Or As By From".split()
) | frozenset(word.capitalize() for word in (*MONTHS, *WEEKDAYS))


def _replace(text: str, match: re.Match[str], new: str, group: int = 1) -> str:
    return text[: match.start(group)] + new + text[match.end(group) :]


def _other_number(token: str, rng: random.Random) -> str:
    digits = token.replace(",", "")
    value = float(digits)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    while True:
        new = value * rng.choice((0.5, 0.7, 1.3, 1.5, 2, 3)) + rng.choice((-3, -1, 1, 2, 5))
        new = round(new, decimals) if decimals else round(new)
        if new > 0 and new != value:
            break
    text = f"{new:.{decimals}f}" if decimals else str(new)
    if "," in token and new >= 1000:
        text = f"{int(new):,}"
    return text


def edit_number(sentence: str, rng: random.Random) -> Edit | None:
    """A number (not a year) changed: contradiction."""
    found = [m for m in _NUMBER.finditer(sentence) if not _YEAR.fullmatch(m.group(1))]
    if not found:
        return None
    m = rng.choice(found)
    return "contradiction", _replace(sentence, m, _other_number(m.group(1), rng)), "number"


def edit_year(sentence: str, rng: random.Random) -> Edit | None:
    """A year moved by 1–30 years: contradiction."""
    found = list(_YEAR.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    year = int(m.group(1)) + rng.choice((-1, 1)) * rng.randint(1, 30)
    return "contradiction", _replace(sentence, m, str(year)), "year"


def _names(sentence: str) -> list[re.Match[str]]:
    return [m for m in _NAME.finditer(sentence) if m.group(1).split()[0] not in _NOT_NAMES and m.start() > 0]


def edit_name(sentence: str, rng: random.Random, other_names: Sequence[str]) -> Edit | None:
    """A name after the subject replaced by a name from another sentence: contradiction."""
    found = [m for m in _names(sentence) if m.start() > len(sentence) // 4]
    candidates = [n for n in other_names if n not in sentence]
    if not found or not candidates:
        return None
    m = rng.choice(found)
    return "contradiction", _replace(sentence, m, rng.choice(candidates)), "name"


def edit_negation(sentence: str, rng: random.Random) -> Edit | None:
    """A negation added after the first auxiliary verb, or removed: contradiction."""
    negated = _NEGATED.search(sentence)
    if negated:
        return "contradiction", sentence[: negated.end(1)] + sentence[negated.end() :], "negation"
    m = _AUX.search(sentence)
    if not m:
        return None
    return "contradiction", sentence[: m.end(1)] + " not" + sentence[m.end(1) :], "negation"


def edit_role_swap(sentence: str, rng: random.Random) -> Edit | None:
    """Two names on either side of a verb swapped: contradiction (names joined by "and", "or" or a comma are
    left alone, as swapping them keeps the meaning)."""
    names = [m for m in _NAME.finditer(sentence) if m.group(1).split()[0] not in _NOT_NAMES]
    for a, b in itertools.pairwise(names):
        between = sentence[a.end() : b.start()]
        if a.group(1) == b.group(1) or re.search(r",|\band\b|\bor\b|\bwith\b|\(", between) or len(between) > 40:
            continue
        if not re.search(r"[a-z]{3,}", between):
            continue
        swapped = sentence[: a.start()] + b.group(1) + between + a.group(1) + sentence[b.end() :]
        return "contradiction", swapped, "role_swap"
    return None


def edit_unit(sentence: str, rng: random.Random) -> Edit | None:
    """A unit after a number changed (same number): contradiction."""
    found = list(_UNIT.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    return "contradiction", _replace(sentence, m, UNIT_SWAPS[m.group(1)]), "unit"


def keep_copy(sentence: str, rng: random.Random) -> Edit:
    """The sentence itself: entailment."""
    return "entailment", sentence, "copy"


def keep_shortened(sentence: str, rng: random.Random) -> Edit | None:
    """A parenthesis or an appositive dropped: entailment."""
    for pattern, new in ((_PAREN, ""), (_APPOSITIVE, "")):
        shorter = pattern.sub(new, sentence, count=1)
        if shorter != sentence and len(shorter.split()) >= 5:
            return "entailment", re.sub(r"\s+", " ", shorter).strip(), "shortened"
    return None


def keep_number_written_otherwise(sentence: str, rng: random.Random) -> Edit | None:
    """A number written another way (1,642 ↔ 1642; 20 per cent → 20%): entailment."""
    m = re.search(r"\b(\d{1,3}(?:,\d{3})+)\b", sentence)
    if m:
        return "entailment", _replace(sentence, m, m.group(1).replace(",", "")), "number_format"
    m = re.search(r"\b(\d+(?:\.\d+)?) (per cent|percent)\b", sentence)
    if m:
        return "entailment", sentence[: m.start()] + m.group(1) + "%" + sentence[m.end() :], "number_format"
    return None


CONTRADICTIONS: tuple[Callable[..., Edit | None], ...] = (
    edit_number, edit_year, edit_negation, edit_role_swap, edit_unit,
)  # fmt: skip
ENTAILMENTS: tuple[Callable[..., Edit | None], ...] = (keep_copy, keep_shortened, keep_number_written_otherwise)


def _passage(sentence: str, others: Sequence[str], rng: random.Random) -> str:
    """The sentence alone (half the time) or among one or two other sentences, in a random place."""
    if rng.random() < 0.5 or not others:
        return sentence
    parts = [*rng.sample(list(others), min(len(others), rng.randint(1, 2))), sentence]
    rng.shuffle(parts)
    return " ".join(parts)


def minimal_edit_pairs(sentences: Sequence[str], n: int, seed: int = 13) -> list[dict]:
    """``n`` pairs: about 50 % contradictions, 40 % entailments (each kind used where it applies) and 10 %
    neutral (the sentence against a passage of other sentences only).

    Args:
        sentences: source sentences (one fact each; 6–60 words are kept).
        n: how many pairs to make.
        seed: the random seed.

    Returns:
        rows with premise, hypothesis, label, kind and source ``minimal_edits``.
    """
    rng = random.Random(seed)
    pool = sorted({s.strip() for s in sentences if 6 <= len(s.split()) <= 60 and s.strip().endswith(".")})
    rng.shuffle(pool)
    names = sorted({m.group(1) for s in pool[:20000] for m in _names(s)})
    rows: list[dict] = []
    attempts = 0
    while len(rows) < n and attempts < 20 * n:
        attempts += 1
        sentence = pool[attempts % len(pool)]
        draw = rng.random()
        if draw < 0.1:
            others = [o for o in (pool[rng.randrange(len(pool))] for _ in range(rng.randint(1, 3))) if o != sentence]
            if not others:
                continue
            rows.append({"premise": " ".join(others), "hypothesis": sentence, "label": "neutral", "kind": "absent"})
            rows[-1]["source"] = "minimal_edits"
            continue
        kinds = [*CONTRADICTIONS, edit_name] if draw < 0.6 else list(ENTAILMENTS)
        rng.shuffle(kinds)
        if edit_negation in kinds and rng.random() < 0.6:  # it applies to most sentences: let the others go first
            kinds.remove(edit_negation)
            kinds.append(edit_negation)
        for make in kinds:
            edit = make(sentence, rng, names) if make is edit_name else make(sentence, rng)
            if edit and (edit[1] != sentence or edit[2] == "copy"):
                label, hypothesis, kind = edit
                others = [pool[rng.randrange(len(pool))] for _ in range(2)]
                premise = _passage(sentence, others, rng)
                rows.append({"premise": premise, "hypothesis": hypothesis, "label": label, "kind": kind})
                rows[-1]["source"] = "minimal_edits"
                break
    return rows
