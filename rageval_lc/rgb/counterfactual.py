"""Counterfactual passages for RGB's counterfactual-robustness testbed: a passage with every mention of the answer
replaced by a wrong value of the same kind, written in the same form as each mention (issue 36, item 1).

An answer is a **date** (a month name with a year, and a day when given: "July 21, 2017", "Jul. 21, 2017",
"21 July 2017", "June 2020"), a **number** (with its currency, scale word or unit: "$10.4 billion", "1,280
metres", "45%") or a **name** (anything else: a person, a place, an organisation). The wrong value:

* a date moves by 1-9 years (and its day, when it has one, by 1-20 days within the month), each mention
  rewritten in its own spelling ("Jul. 21, 2017" → "Jul. 9, 2012");
* a number is scaled by a factor of 0.5-0.8 or 1.25-2.0 and written with the same decimals, separators, currency,
  scale word and unit ("$10.4 billion" → "$6.7 billion", "1,280 metres" → "1,920 metres");
* a name is another answer of the same shape from the pool given (the other questions' answers: as many words,
  the same "City, State" comma), never one the passage already names; a country becomes another country (the
  pool's, else one of :data:`COUNTRIES`), any other name never a country; a person's surname or a place's city
  standing alone becomes the other's.

Every choice comes from ``random.Random(seed)``, so the same seed gives the same passages.

Example:
    >>> cf = make_counterfactual("The tower, finished on July 21, 2017, is 1,280 metres tall.", "July 21 2017", seed=1)
    >>> cf.wrong, cf.passage
    ('July 8 2024', 'The tower, finished on July 8, 2024, is 1,280 metres tall.')
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "COUNTRIES",
    "Counterfactual",
    "answer_kind",
    "date_parts",
    "find_mentions",
    "make_counterfactual",
    "number_parts",
]

#: The months' names, lower-cased.
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH = r"(?P<month>(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?)"
_DATE_PATTERNS = [
    re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?P<comma>,?)\s+(?P<year>\d{{4}})\b", re.I),
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}(?P<comma>,?)\s+(?P<year>\d{{4}})\b", re.I),
    re.compile(rf"\b{_MONTH}(?P<comma>,?)\s+(?P<year>\d{{4}})\b", re.I),
]
_NUMBER = re.compile(
    r"(?P<currency>[$€£¥])?(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<decimals>\d+))?"
    r"(?P<rest>\s*(?:%|percent|billion|million|thousand|trillion|[a-zA-Z]+)?)"
)


#: Countries (and the short names news writes), so that a country answer becomes another country.
COUNTRIES = frozenset(
    """Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria Azerbaijan Bahamas Bahrain
    Bangladesh Barbados Belarus Belgium Belize Benin Bhutan Bolivia Botswana Brazil Brunei Bulgaria Burundi Cambodia
    Cameroon Canada Chad Chile China Colombia Comoros Congo Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica
    Ecuador Egypt Eritrea Estonia Eswatini Ethiopia Fiji Finland France Gabon Gambia Georgia Germany Ghana Greece
    Grenada Guatemala Guinea Guyana Haiti Honduras Hungary Iceland India Indonesia Iran Iraq Ireland Israel Italy
    Jamaica Japan Jordan Kazakhstan Kenya Kiribati Kosovo Kuwait Kyrgyzstan Laos Latvia Lebanon Lesotho Liberia
    Libya Liechtenstein Lithuania Luxembourg Madagascar Malawi Malaysia Maldives Mali Malta Mauritania Mauritius
    Mexico Micronesia Moldova Monaco Mongolia Montenegro Morocco Mozambique Myanmar Namibia Nauru Nepal Netherlands
    Nicaragua Niger Nigeria Norway Oman Pakistan Palau Palestine Panama Paraguay Peru Philippines Poland Portugal
    Qatar Romania Russia Rwanda Samoa Senegal Serbia Seychelles Singapore Slovakia Slovenia Somalia Spain Sudan
    Suriname Sweden Switzerland Syria Taiwan Tajikistan Tanzania Thailand Togo Tonga Tunisia Turkey Turkmenistan
    Tuvalu Uganda Ukraine Uruguay Uzbekistan Vanuatu Venezuela Vietnam Yemen Zambia Zimbabwe England Scotland Wales
    U.S. US USA U.K. UK""".split()
)


def _name_kind(name: str) -> str:
    """``country`` for a country's name, else ``other`` (persons, places and organisations are not told apart)."""
    return "country" if name.strip() in COUNTRIES else "other"


@dataclass(frozen=True)
class Counterfactual:
    """A counterfactual passage, the wrong value written as the answer's first form, how many mentions were
    replaced, and why it was not built (``problem``; the passage is then the original)."""

    passage: str
    wrong: str
    replaced: int
    problem: str = ""


def _month_index(word: str) -> int | None:
    word = word.lower().rstrip(".")
    return next(
        (i for i, name in enumerate(MONTHS) if name.startswith(word[:3]) and word in (name, name[:3], name[:4])), None
    )


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
    """
    m = _NUMBER.fullmatch(text.strip())
    if not m:
        return None
    value = float(m["digits"].replace(",", "") + ("." + m["decimals"] if m["decimals"] else ""))
    return m["currency"] or "", value, len(m["decimals"] or ""), m["rest"] or ""


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
    month), a number with or without thousands separators, a name as written (case-insensitive).

    Example:
        >>> find_mentions("On 21 July 2017, and again on Jul 21, 2017.", "July 21 2017")
        [(3, 15), (30, 42)]
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
        for m in _NUMBER.finditer(passage):
            found = number_parts(m.group(0))
            if found and abs(found[1] - value) < 1e-9 and found[3].strip().lower() == rest.strip().lower():
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


def _write_number(mention: str, factor: float) -> str:
    m = _NUMBER.fullmatch(mention)
    if m is None:
        return mention
    currency, value, decimals, rest = number_parts(mention)  # type: ignore[misc]
    new = value * factor
    text = f"{new:,.{decimals}f}" if "," in m["digits"] else f"{new:.{decimals}f}"
    if decimals == 0 and text.rstrip("0").rstrip(".") == "":
        text = "1"
    return f"{currency}{text}{rest}"


def _short_name(name: str) -> str | None:
    """The part of a name that names it alone: a person's last word, a place's part before its comma."""
    if "," in name:
        return name.split(",")[0].strip()
    words = name.split()
    return words[-1] if len(words) >= 2 else None


def _with_short_mentions(passage: str, spans: list[tuple[int, int]], short: str) -> list[tuple[int, int]]:
    """``spans`` with the mentions of ``short`` alone (outside them) added."""
    alone = [
        m.span()
        for m in re.finditer(rf"(?<!\w){re.escape(short)}(?!\w)", passage, re.I)
        if not any(s <= m.start() < e for s, e in spans)
    ]
    return sorted(spans + alone)


def make_counterfactual(
    passage: str, answer: str | Sequence[str], *, seed: int = 0, pool: Sequence[str] = (), avoid: str = ""
) -> Counterfactual:
    """The passage with every mention of ``answer`` (a string, or spellings of one value) replaced by one wrong
    value of the same kind (see the module docstring); ``pool``: candidate names for a name answer; ``avoid``: more
    text whose names are never chosen (a question's other passages, so that all of them get the same name)."""
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
        factor = rng.uniform(0.5, 0.8) if rng.random() < 0.5 else rng.uniform(1.25, 2.0)
        write = lambda mention: _write_number(mention, factor)  # noqa: E731
    else:
        shape = (len(first.split()), "," in first)
        named = f"{passage} {avoid}".lower()
        kind_of_name = _name_kind(first)
        offered = [*pool, *sorted(COUNTRIES)] if kind_of_name == "country" else list(pool)
        candidates = sorted(
            {
                p
                for p in offered
                if (len(p.split()), "," in p) == shape
                and _name_kind(p) == kind_of_name
                and p.lower() not in named
                and p.lower() != first.lower()
                and answer_kind(p) == "name"
            }
        )
        if not candidates:
            return Counterfactual(passage, "", 0, "no other name of the same shape in the pool")
        other = rng.choice(candidates)
        short, other_short = _short_name(first), _short_name(other)
        if short:  # a surname or a city alone is the answer too: it becomes the other's
            spans = _with_short_mentions(passage, spans, short)
        write = lambda mention: other if len(mention) > len(short or "") else other_short  # noqa: E731
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
