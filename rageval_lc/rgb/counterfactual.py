"""Counterfactual passages for RGB's counterfactual-robustness testbed: a passage with every mention of the answer
replaced by a wrong value of the same kind, written in the same form as each mention (issue 36, item 1).

An answer is a **date** (a month name with a year, and a day when given: "July 21, 2017", "Jul. 21, 2017",
"21 July 2017", "21st of July 2017", "June 2020": the orders of :func:`~rageval_lc.facts.dates.date_pattern`), a
**number** (with its currency, scale word or unit: "$10.4 billion", "1,280 metres", "45%"; or in words, 2 to 99:
"three", "twenty-one", "two million") or a **name** (anything else), and a
name is a person, a place, an organisation, an event, a work or another name
(:func:`~rageval_lc.facts.names.name_kind`: from its own shape and the words around its mentions, no model). The
wrong value:

* a date moves by 1-9 years (and its day, when it has one, by 1-20 days within the month), each mention
  rewritten in its own spelling ("Jul. 21, 2017" → "Jul. 9, 2012");
* a number is scaled by a factor of 0.5-0.8 or 1.25-2.0 and written with the same decimals, separators, currency,
  scale word and unit ("$10.4 billion" → "$6.7 billion", "1,280 metres" → "1,920 metres"); a number in words stays
  in words ("three titles" → "five titles"), and a count of 2-99 stays within 2-99 so that its digits and its words
  get the same value; a bare count ("3") is stated by "3 goals" and "three of them" too;
* a name is another name of the same kind and shape from the pool given (the other questions' answers: as many
  words, the same "City, State" comma), never one the passage already names; a place stays a place of its level (a
  country another country, a US state another state, a city another city: the pool's, else one of the lists of
  :mod:`~rageval_lc.rgb.names`; "Tampa, Florida" another city of Florida when the pool has no "City, State"); a
  person's surname, a place's city or an organisation's name without its "Inc." standing alone becomes the other's;
  a city's region written after it goes too ("in Hangzhou, Zhejiang, China" → "in Hamadan") unless the other city
  lies there, and an organisation standing in a longer name is replaced with the whole name ("The Walt Disney
  Company" → "Facebook", not "The Walt Facebook Company"). With no candidate of its kind the passage is not made,
  and ``problem`` says why (rather than a company becoming a city).

Every choice comes from ``random.Random(seed)``, so the same seed gives the same passages.

Example:
    >>> cf = make_counterfactual("The tower, finished on July 21, 2017, is 1,280 metres tall.", "July 21 2017", seed=1)
    >>> cf.wrong, cf.passage
    ('July 8 2024', 'The tower, finished on July 8, 2024, is 1,280 metres tall.')
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rageval_lc.facts import CITIES, MONTHS, ONES, SCALES, TENS, month_number, number_in_words, number_value
from rageval_lc.facts.dates import date_pattern
from rageval_lc.facts.names import ORGANISATION_WORDS, bare_word, name_kind, place_level
from rageval_lc.rgb.names import known_places, merged_spans, whole_names, without_stale_region

__all__ = [
    "Counterfactual",
    "answer_kind",
    "date_parts",
    "find_mentions",
    "make_counterfactual",
    "number_parts",
]

# A month as RGB writes it: any word a month's first three letters open ("Sept", "Octo."); _month_index tells which
# month, if any. The dates: facts.dates' orders with a month's name and a year, month first before day first.
_MONTH = rf"(?:{'|'.join(m[:3] for m in MONTHS)})[a-z]*\.?"
_DATE_PATTERNS = [date_pattern(order, month=_MONTH) for order in ("mdy", "dmy", "my")]
_NUMBER = re.compile(  # not inside a word or a version ("G7", "MP3", "v2.3"); a space goes with a unit only
    r"(?<![\w.])(?P<currency>[$€£¥])?(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<decimals>\d+))?"
    r"(?P<rest>(?:\s*(?:%|percent|" + "|".join(sorted(w for w in SCALES if w != "hundred")) + r"|[a-zA-Z]+))?)"
)
_SCALES = frozenset([*SCALES, "dozen"])
# A number in words, 2 to 99 ("three", "twelve", "twenty-one"), with a scale word or a unit after it ("two million",
# "three goals"). "one" alone is no number here: it is a pronoun as often ("one of them") — but "one million" is.
_TENS_WORD, _DIGIT_WORD, _TEEN_WORD = "|".join(TENS), "|".join(ONES[1:10]), "|".join(reversed(ONES[2:]))
_NUMBER_WORDS = re.compile(
    rf"(?<![\w-])(?P<words>(?i:(?:{_TENS_WORD})(?:[- ](?:{_DIGIT_WORD}))?|{_TEEN_WORD}|"
    rf"one(?=\s+(?:{'|'.join(SCALES)})\b)))(?![\w-])(?P<rest>(?:\s*(?:%|percent|[a-z]+))?)"
)


@dataclass(frozen=True)
class Counterfactual:
    """A counterfactual passage, the wrong value written as the answer's first form, how many mentions were
    replaced, and why it was not built (``problem``; the passage is then the original)."""

    passage: str
    wrong: str
    replaced: int
    problem: str = ""


def _month_index(word: str) -> int | None:
    """The index (0-11) of the month ``word`` names: its full name or its first three or four letters (any
    month's: "Sept" and "Octo" alike, where :data:`~rageval_lc.facts.MONTH_NUMBERS` takes "Sept" only)."""
    number = month_number(word, any_four_letters=True)
    return None if number is None else number - 1


def date_parts(text: str) -> tuple[int, int | None, int] | None:
    """(month 1-12, day or None, year) of a date written alone, else None.

    Example:
        >>> date_parts("Jul. 21, 2017"), date_parts("June 2020"), date_parts("Tampa")
        ((7, 21, 2017), (6, None, 2020), None)
    """
    for pattern in _DATE_PATTERNS:
        m = pattern.fullmatch(text.strip())
        if m and _month_index(m["month"]) is not None:
            day = m.groupdict().get("day")
            return _month_index(m["month"]) + 1, int(day) if day else None, int(m["year"])
    return None


def number_parts(text: str) -> tuple[str, float, int, str] | None:
    """(currency, value, decimals, what follows) of a number written alone, else None.

    Example:
        >>> number_parts("$10.4 billion"), number_parts("1,280 metres"), number_parts("Norway")
        (('$', 10.4, 1, ' billion'), ('', 1280.0, 0, ' metres'), None)
        >>> number_parts("twenty-one"), number_parts("two million")
        (('', 21.0, 0, ''), ('', 2.0, 0, ' million'))
    """
    m = _NUMBER.fullmatch(text.strip())
    if not m:
        words = _NUMBER_WORDS.fullmatch(text.strip())
        if words is None:
            return None
        value, rest = number_value(words["words"]), words["rest"]  # a number of _NUMBER_WORDS: never None
        if rest.strip().lower() == "hundred":  # "one hundred": 100, no unit
            value, rest = value * 100, ""
        return "", float(value), 0, rest
    value = float(m["digits"].replace(",", "") + ("." + m["decimals"] if m["decimals"] else ""))
    return m["currency"] or "", value, len(m["decimals"] or ""), m["rest"] or ""


def _in_words(value: int, like: str) -> str:
    """``value`` (2-99) in words, capitalised and joined ("twenty-one", "twenty one") as ``like`` is."""
    return number_in_words(value, joiner=" " if " " in like else "-", capital=like[:1].isupper())


_PERCENT = ("%", "percent")
#: Words that open a sentence before a count ("In 3 games", "About 40 people").
_OPENING_WORDS = frozenset(
    "In On At By For With From About Over After Before Since During Of To Nearly Almost Only Some All Around Roughly "
    "Just Exactly Some Another Its His Her Their Our The These Those".split()
)
_NOT_UNITS = frozenset(["am", "pm", "a", "p", *(m[:3] for m in MONTHS), *MONTHS])  # "3 p.m.", "3 May 2019"


def _same_unit(found: str, wanted: str) -> bool:
    """Whether a mention's unit (what follows its number) states the answer's: the same ("3%" and "3 percent" alike),
    or, when the answer is a bare count ("3"), a word after a space that is no scale, percent, time or month ("3
    goals" and "three of them", not "3 million", "3rd", "3 p.m." or "3 May")."""
    unit, wanted = found.strip().lower(), wanted.strip().lower()
    if unit in _PERCENT and wanted in _PERCENT:
        return True
    if unit == wanted:
        return True
    spaced = found[:1].isspace()
    return not wanted and spaced and unit not in _SCALES and unit not in _PERCENT and unit.rstrip(".") not in _NOT_UNITS


def _names_a_thing(passage: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` is part of a name rather than a count: after a capitalised word that does
    not open the sentence ("Chapter 3", "Windows 7", "Route 66"), or a number word before a capitalised one ("Three
    Billboards")."""
    before = re.search(r"([A-Z][\w'’-]*)\s+$", passage[:start])
    opening = before is not None and passage[: before.start()].rstrip()[-1:] in ("", ".", "!", "?")
    if before and not (opening and before.group(1) in _OPENING_WORDS):
        return True  # "Chapter 3", "Windows 7" (even opening a sentence); but "In 3 games"
    return passage[start].isalpha() and re.match(r"\s+[A-Z]", passage[end:]) is not None


def answer_kind(answer: str) -> str:
    """``date``, ``number`` or ``name``.

    Example:
        >>> answer_kind("Dec. 1, 2017"), answer_kind("$6.3 billion"), answer_kind("Simona Halep")
        ('date', 'number', 'name')
    """
    if date_parts(answer):
        return "date"
    if number_parts(answer):
        return "number"
    return "name"


def find_mentions(passage: str, answer: str) -> list[tuple[int, int]]:
    """Where the answer stands in the passage, in any of its forms: a date in any spelling of the same day (or
    month), a number with or without thousands separators or in words (2 to 99: "three", "twenty-one"; with a
    scale word: "two million"), a name as written (case-insensitive).

    Example:
        >>> find_mentions("On 21 July 2017, and again on Jul 21, 2017.", "July 21 2017")
        [(3, 15), (30, 42)]
        >>> find_mentions("Three goals: 3 of them in May.", "3")
        [(0, 11), (13, 17)]
    """
    kind = answer_kind(answer)
    spans: list[tuple[int, int]] = []
    if kind == "date":
        target = date_parts(answer)
        for pattern in _DATE_PATTERNS:
            for m in pattern.finditer(passage):
                if _month_index(m["month"]) is None or any(s <= m.start() < e for s, e in spans):
                    continue
                parts = date_parts(m.group(0))
                if parts is not None and parts == target:
                    spans.append(m.span())
    elif kind == "number":
        _, value, _, rest = number_parts(answer)  # type: ignore[misc]
        for m in [*_NUMBER.finditer(passage), *_NUMBER_WORDS.finditer(passage)]:
            found = number_parts(m.group(0))
            if found is None or abs(found[1] - value) >= 1e-9 or not _same_unit(found[3], rest):
                continue
            if not rest.strip() and _names_a_thing(passage, *m.span()):
                continue  # "Windows 7" is no mention of 7
            spans.append(m.span())
    else:
        spans = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(answer)}(?!\w)", passage, re.I)]
    return sorted(spans)


def _write_date(mention: str, month: int, day: int | None, year: int) -> str:
    """``mention`` (a date) with its month, day and year replaced, in its own spelling."""
    for pattern in _DATE_PATTERNS:
        m = pattern.fullmatch(mention)
        if not m:
            continue
        written = m["month"]
        name = MONTHS[month - 1]
        if written.rstrip(".").lower() in (MONTHS[_month_index(written)][:3], MONTHS[_month_index(written)][:4]):
            name = name[: len(written.rstrip("."))]
        name = name.capitalize() if written[0].isupper() else name
        name += "." if written.endswith(".") else ""
        out = mention
        spans = sorted(
            (
                (m.span(g), value)
                for g, value in (("month", name), ("day", str(day)), ("year", str(year)))
                if m.groupdict().get(g) is not None
            ),
            reverse=True,
        )
        for (start, end), value in spans:
            out = out[:start] + value + out[end:]
        return out
    return mention


def _new_count(value: int, factor: float) -> int:
    """A whole number scaled by ``factor`` and rounded, never itself nor under 1; a count of 2-99 stays within 2-99,
    so that its digits and its words (:func:`_in_words`) get the same new value."""
    low, high = (2, 99) if 2 <= value <= 99 else (1, float("inf"))
    return next(
        n
        for n in (round(value * factor), round(value / factor), value + 1, value - 1)
        if n != value and low <= n <= high
    )


def _write_number(mention: str, factor: float) -> str:
    """``mention`` (a number) scaled by ``factor``, in its own form: digits with the same decimals, separators,
    currency and unit, words as words ("three goals" → "five goals")."""
    m = _NUMBER.fullmatch(mention)
    currency, value, decimals, rest = number_parts(mention)  # type: ignore[misc]
    if m is None:
        words = _NUMBER_WORDS.fullmatch(mention)
        return _in_words(_new_count(int(value), factor), words["words"]) + rest  # type: ignore[index]
    if decimals == 0:
        new = _new_count(int(value), factor)
        text = f"{new:,}" if "," in m["digits"] else str(new)
    else:
        text = f"{value * factor:,.{decimals}f}" if "," in m["digits"] else f"{value * factor:.{decimals}f}"
    return f"{currency}{text}{rest}"


def _short_name(name: str, kind: str) -> str | None:
    """The part of a name that names it alone: a person's last word, a place's part before its comma, an
    organisation's name without its organisation's words ("Fidelity Investments" → "Fidelity"); else None."""
    words = name.split()
    if "," in name and kind == "place":
        return name.split(",")[0].strip()
    if kind == "person" and len(words) >= 2:
        return words[-1]
    if kind == "organisation":  # only the organisation's words at its end go: "Bank of America" has no short name
        core = words[1:] if words[0] == "The" else list(words)
        while core and (bare_word(core[-1]) in ORGANISATION_WORDS or core[-1] in ("&", "and")):
            core.pop()
        return " ".join(core) if core and len(core) < len(words) and answer_kind(" ".join(core)) == "name" else None
    return None


def _with_short_mentions(passage: str, spans: list[tuple[int, int]], short: str) -> list[tuple[int, int]]:
    """``spans`` with the mentions of ``short`` alone (outside them) added."""
    alone = [
        m.span()
        for m in re.finditer(rf"(?<!\w){re.escape(short)}(?!\w)", passage, re.I)
        if not any(s <= m.start() < e for s, e in spans)
    ]
    return sorted(spans + alone)


def make_counterfactual(
    passage: str,
    answer: str | Sequence[str],
    *,
    seed: int = 0,
    pool: Sequence[str] = (),
    avoid: str = "",
    kinds: Callable[[str], str] | None = None,
) -> Counterfactual:
    """The passage with every mention of ``answer`` (a string, or spellings of one value) replaced by one wrong
    value of the same kind (see the module docstring); ``pool``: candidate names for a name answer; ``avoid``: more
    text whose names are never chosen (a question's other passages, so that all of them get the same name);
    ``kinds``: what tells a name's kind (a :class:`~rageval_lc.rgb.names.NameKinds` over the corpus); None:
    :func:`~rageval_lc.facts.names.name_kind` over the passage and ``avoid``."""
    forms = [answer] if isinstance(answer, str) else list(answer)
    first = forms[0]
    kind = answer_kind(first)
    rng = random.Random(f"{seed}:{first}")
    spans = sorted({s for form in forms for s in find_mentions(passage, form)})
    if not spans:
        return Counterfactual(passage, "", 0, "the passage does not mention the answer")
    short = None
    if kind == "date":
        month, day, year = date_parts(first)  # type: ignore[misc]
        new_year = year + rng.choice([-1, 1]) * rng.randint(1, 9)
        new_day = None if day is None else (day + rng.randint(1, 20) - 1) % 28 + 1
        if new_day == day:
            new_day = None if day is None else day % 28 + 1
        write = lambda mention: _write_date(mention, month, new_day, new_year)  # noqa: E731
    elif kind == "number":
        if any(passage[start].isalpha() and number_parts(passage[start:end])[1] >= 100 for start, end in spans):  # type: ignore[index]
            return Counterfactual(passage, "", 0, "the answer is written in words past ninety-nine")
        factor = rng.uniform(0.5, 0.8) if rng.random() < 0.5 else rng.uniform(1.25, 2.0)
        write = lambda mention: _write_number(mention, factor)  # noqa: E731
    else:
        kind_of = kinds or (lambda name: name_kind(name, [passage, avoid]))
        name_of = kind_of(first)
        level = place_level(first) if name_of == "place" else ""
        shape = (len(first.split()), "," in first)
        named = f"{passage} {avoid}".lower()

        def fits(p: str) -> bool:
            return (
                (len(p.split()), "," in p) == shape
                and p.lower() not in named
                and p.lower() != first.lower()
                and answer_kind(p) == "name"
                and kind_of(p) == name_of
                and (not level or place_level(p) == level)
            )

        candidates = sorted({p for p in pool if fits(p)})
        listed = level in ("country", "state") or first in CITIES or "," in first
        if not candidates and level and listed:  # a place of the lists: a city of the same state first
            candidates = [p for p in known_places(first, level) if fits(p)]
            if "," in first:
                state = first.partition(",")[2].strip()
                candidates = [p for p in candidates if p.endswith(f", {state}")] or candidates
        if not candidates:
            words = f"{shape[0]} word{'s' * (shape[0] > 1)}{', City, State' if shape[1] else ''}"
            what = {"other": "other name", "place": f"{level if level != 'city' else 'place'}"}.get(name_of, name_of)
            return Counterfactual(passage, "", 0, f"no other name of its kind ({what}) and shape ({words}) in the pool")
        other = rng.choice(candidates)
        short, other_short = _short_name(first, name_of), _short_name(other, name_of)
        if short:  # a surname, a city or a company's name alone is the answer too: it becomes the other's
            spans = _with_short_mentions(passage, spans, short)
        if name_of == "place" and level == "city" and "," not in first:
            spans = merged_spans(without_stale_region(passage, spans, other))
        elif name_of == "organisation":
            spans = merged_spans(whole_names(passage, spans))
        write = lambda mention: other if len(mention) > len(short or "") else (other_short or other)  # noqa: E731
    out = passage
    for start, end in reversed(spans):
        out = out[:start] + write(passage[start:end]) + out[end:]
    wrong = write(first)
    left = [form for form in forms if find_mentions(out, form)]
    if kind == "name" and short and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", out, re.I):
        left.append(short)
    if left:
        return Counterfactual(passage, wrong, 0, f"the answer is still there after the edit ({left[0]!r})")
    return Counterfactual(out, wrong, len(spans))
