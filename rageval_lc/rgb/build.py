"""RGB's robustness testbeds built from a user's own passages and questions (issue 36, item 1).

For each question with its answer, as RGB built its own:

* **positives**: the passages that state an answer, in any of its forms
  (:func:`~rageval_lc.rgb.counterfactual.find_mentions`: a date in any spelling of the day, a number with or without
  separators, a name as written);
* **negatives**: the passages closest to the question by the packaged encoder (the near misses a retriever
  returns) that state no answer;
* **counterfactuals**: each positive with every mention of the answer replaced by one wrong value of the same kind
  (:func:`~rageval_lc.rgb.counterfactual.make_counterfactual`), the wrong value recorded as ``fakeanswer``; a
  name is another question's answer, or a name of the corpus standing after the same word ("designed by X");
* **integration**: a question with several answer elements (``answers``) that no single passage states together,
  its positives grouped by element.

The records are RGB's own format (``en``, ``fact`` and ``int`` records in one JSON Lines file), so ``rageval rgb
run`` and ``rgb score`` read them unchanged. A :class:`BuildReport` says how many questions got each kind and which
were dropped and why. The same seed gives the same file.

Example:
    >>> corpus = ["Everest is 8,849 metres tall.", "K2 is in Pakistan.", "Everest lies in Nepal."]
    >>> records, report = build_testbed(corpus, [{"question": "How tall is Everest?", "answer": "8,849 metres"}],
    ...                                 encoder=_WordsEncoder(), seed=1)
    >>> records[0]["positive"], records[0]["negative"][0]
    (['Everest is 8,849 metres tall.'], 'Everest lies in Nepal.')
    >>> records[1]["positive_wrong"], records[1]["fakeanswer"], report.kinds
    (['Everest is 6,848 metres tall.'], '6,848 metres', {'en': 1, 'fact': 1, 'int': 0})
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rageval_lc.facts import MONTHS, US_STATES, WEEKDAYS
from rageval_lc.rgb.counterfactual import answer_kind, date_parts, find_mentions, make_counterfactual
from rageval_lc.rgb.names import NameKinds

__all__ = [
    "BuildReport",
    "build_testbed",
    "counterfactual_record",
    "date_spellings",
    "name_pool",
    "read_corpus",
    "read_questions",
    "write_testbed",
]

NEGATIVES = 10  # negatives kept per question (RGB's records hold 8-20)
_TEXT_FIELDS = ("text", "passage", "contents", "content", "document", "body")


@dataclass
class BuildReport:
    """What a build made: the records of each kind, the questions read and those dropped (why → how many; and
    ``which``: each dropped question's index, text and why, a counterfactual left out included)."""

    questions: int = 0
    kinds: dict[str, int] = field(default_factory=lambda: {"en": 0, "fact": 0, "int": 0})
    dropped: Counter = field(default_factory=Counter)
    which: list[tuple[int, str, str]] = field(default_factory=list)

    def drop(self, index: int, question: str, why: str) -> None:
        """Count a question (or its counterfactual record) left out, and say which."""
        self.dropped[why] += 1
        self.which.append((index, question, why))

    def lines(self, *, named: int = 10) -> list[str]:
        """The report in words, a line each: the counts, then the first ``named`` questions dropped, by index."""
        out = [
            f"{self.questions} questions: {self.kinds['en']} noise/rejection, {self.kinds['fact']} "
            f"counterfactual, {self.kinds['int']} integration records"
        ]
        out += [f"dropped {n}: {why}" for why, n in sorted(self.dropped.items())]
        out += [f"  question {i} ({text[:60]!r}): {why}" for i, text, why in self.which[:named]]
        if len(self.which) > named:
            out.append(f"  and {len(self.which) - named} more")
        return out


def date_spellings(text: str) -> list[str]:
    """The spellings RGB lists for a date answer ("July 21 2017", "Jul 21, 2017", ...), or ``[text]``.

    Example:
        >>> date_spellings("21 July 2017")[:3]
        ['21 July 2017', 'July 21 2017', 'July 21, 2017']
    """
    parts = date_parts(text)
    if parts is None:
        return [text]
    month, day, year = parts
    name = MONTHS[month - 1].capitalize()
    short = name[:3]
    if day is None:
        forms = [f"{name} {year}", f"{short} {year}", f"{short}. {year}"]
    else:
        forms = [
            f"{name} {day} {year}",
            f"{name} {day}, {year}",
            f"{short} {day}, {year}",
            f"{short}. {day}, {year}",
            f"{day} {name} {year}",
            f"{day} {short} {year}",
        ]
    return list(dict.fromkeys([text, *forms]))


def _alternatives(answer: Any) -> list[str]:
    """An answer (a string, or a list of alternatives) as its alternatives, dates in every spelling."""
    items = [answer] if isinstance(answer, str) else [str(a) for a in answer]
    return list(dict.fromkeys(form for item in items for form in date_spellings(item)))


def _states(passage: str, alternatives: Sequence[str]) -> bool:
    return any(find_mentions(passage, form) for form in alternatives)


def build_testbed(
    corpus: Sequence[str],
    questions: Sequence[Mapping[str, Any]],
    *,
    seed: int = 0,
    negatives: int = NEGATIVES,
    encoder: Any = None,
) -> tuple[list[dict[str, Any]], BuildReport]:
    """Build RGB records from ``corpus`` (passages) and ``questions`` (``question``, ``answer``: a string or a
    list of alternatives; or ``answers``: a list of elements, each a string or alternatives, all required).

    Args:
        seed: the counterfactuals' random choices (the same seed, the same records).
        negatives: negatives kept per question.
        encoder: what ranks passages by closeness to a question (``encode(texts)`` returning vectors with a
            ``sentence`` attribute); None: the packaged sentence-transformers model.

    Raises:
        ValueError: If a question lacks its text or its answer (the message names its index).
    """
    passages = list(dict.fromkeys(p for p in corpus if p and p.strip()))
    report = BuildReport(questions=len(questions))
    if encoder is None:
        from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder

        encoder = SentenceTransformerEncoder()
    vectors = np.array([e.sentence for e in encoder.encode(passages)]) if passages else np.zeros((0, 1))
    kinds = NameKinds(passages)
    parsed = [_question(q, i) for i, q in enumerate(questions)]
    answers = [element[0] for _, elements in parsed for element in elements if answer_kind(element[0]) == "name"]
    records: list[dict[str, Any]] = []
    for index, (text, elements) in enumerate(parsed):
        every = [form for element in elements for form in element]
        question_vector = encoder.encode([text])[0].sentence
        order = np.argsort(-(vectors @ question_vector), kind="stable") if len(passages) else []
        near = [passages[i] for i in order if not _states(passages[i], every)][:negatives]
        if len(elements) > 1:
            groups = [[p for p in passages if _states(p, element)] for element in elements]
            if not all(groups):
                report.drop(index, text, "an answer element no passage states")
                continue
            if any(all(_states(p, element) for element in elements) for p in passages):
                report.drop(index, text, "one passage states every element (not an integration question)")
                continue
            records.append(
                {
                    "id": index,
                    "query": text,
                    "answer": [list(e) for e in elements],
                    "positive": groups,
                    "negative": near,
                }
            )
            report.kinds["int"] += 1
            continue
        alternatives = elements[0]
        positive = [p for p in passages if _states(p, alternatives)]
        if not positive:
            report.drop(index, text, "no passage states the answer")
            continue
        if not near:
            report.drop(index, text, "no passage without the answer to serve as a negative")
        records.append({"id": index, "query": text, "answer": [alternatives], "positive": positive, "negative": near})
        report.kinds["en"] += 1
        pool = name_pool(passages, positive, alternatives[0], answers, kinds=kinds)
        fact = counterfactual_record(index, text, alternatives, positive, near, seed=seed, pool=pool, kinds=kinds)
        if isinstance(fact, str):
            report.drop(index, text, f"counterfactual: {fact}")
        else:
            records.append(fact)
            report.kinds["fact"] += 1
    return records, report


_NAME_SPAN = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|da|van|von|del|la|le)){0,3}\b")


def name_pool(
    passages: Sequence[str],
    positive: Sequence[str],
    answer: str,
    answers: Sequence[str],
    *,
    kinds: Callable[[str], str] | None = None,
) -> list[str]:
    """The names a name answer may become, all of its kind (person, place, organisation, other name: ``kinds``, a
    :class:`~rageval_lc.rgb.names.NameKinds` over ``passages`` when None) and shape (as many words, the
    same "City, State" comma): the other questions' answers; when there is none, the corpus's names that stand
    where the answer stands (:func:`_cued_names`); for a "City, State", also the corpus's other "City, State" names.
    Empty for a date or a number (they shift instead).

    Example:
        >>> passages = ["Facebook bought Instagram.", "Disney bought Fox.", "Tim Cook spoke in London."]
        >>> name_pool(passages, passages[:1], "Facebook", ["Facebook", "Disney", "London", "Tim Cook"])
        ['Disney']
    """
    if answer_kind(answer) != "name":
        return []
    kinds = kinds or NameKinds(passages)
    kind = kinds(answer)
    shape = (len(answer.split()), "," in answer)

    def fits(name: str) -> bool:
        return (len(name.split()), "," in name) == shape and name.lower() != answer.lower() and kinds(name) == kind

    same = [a for a in dict.fromkeys(answers) if fits(a)]
    if not same:
        same = [n for n in _cued_names(passages, positive, answer) if fits(n)]
    if shape[1]:
        same += [n for n in _city_state_names(passages) if fits(n) and n not in same]
    return same


_STATE_NAMES = "|".join(sorted(US_STATES, key=len, reverse=True))
_CITY_STATE = re.compile(rf"\b[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){{0,2}},\s+(?:{_STATE_NAMES})\b")


def _city_state_names(passages: Sequence[str]) -> list[str]:
    """The "City, State" names of the corpus ("Glendale, Arizona"), US states only."""
    names = [m.group(0) for passage in passages for m in _CITY_STATE.finditer(passage)]
    return list(dict.fromkeys(n for n in names if not any(w.lower() in _NOT_NAMES for w in n.replace(",", "").split())))


_NOT_NAMES = (
    {
        "the",
        "a",
        "an",
        "do",
        "does",
        "i",
        "in",
        "on",
        "of",
        "and",
        "for",
        "to",
        "with",
        "by",
        "at",
        "this",
        "that",
        "it",
        "he",
        "she",
        "they",
        "we",
        "you",
        "his",
        "her",
        "their",
        "our",
        "my",
    }
    | set(WEEKDAYS)
    | set(MONTHS)
)


def _cued_names(passages: Sequence[str], positive: Sequence[str], answer: str) -> list[str]:
    """Names of the corpus that stand where the answer stands: after the word that comes before the answer in a
    positive ("designed by", "born in", "engineer"), as many words long. A name of the same kind, most often."""
    cues = set()
    for passage in positive:
        for start, _ in find_mentions(passage, answer):
            before = re.findall(r"[\w'’]+", passage[:start])
            if before:
                cues.add(before[-1].lower())
    words = len(answer.split())
    names = []
    for passage in passages:
        for m in _NAME_SPAN.finditer(passage):
            before = re.findall(r"[\w'’]+", passage[: m.start()])
            name = m.group(0)
            cued = bool(before) and before[-1].lower() in cues and len(name.split()) == words
            if cued and not any(w.lower().strip(".") in _NOT_NAMES for w in name.split()):
                names.append(name)
    return list(dict.fromkeys(names))


def counterfactual_record(
    index: int,
    text: str,
    alternatives: list[str],
    positive: list[str],
    near: list[str],
    *,
    seed: int,
    pool: Sequence[str],
    kinds: Callable[[str], str] | None = None,
) -> dict[str, Any] | str:
    """The ``fact`` record of a question, or why none could be made. Every positive gets the same wrong value (the
    names that any positive holds are never chosen); ``kinds`` tells a name's kind (see
    :func:`~rageval_lc.rgb.counterfactual.make_counterfactual`)."""
    holding = " ".join(positive)
    wrong_passages, wrong = [], None
    for passage in positive:
        cf = make_counterfactual(passage, alternatives, seed=seed, pool=pool, avoid=holding, kinds=kinds)
        if cf.problem:
            return cf.problem
        if wrong is not None and cf.wrong != wrong:
            return "the passages would need different wrong values"
        wrong = cf.wrong
        wrong_passages.append(cf.passage)
    answer = alternatives[0] if len(alternatives) == 1 else [alternatives]
    return {
        "id": index,
        "query": text,
        "answer": answer,
        "fakeanswer": wrong,
        "positive_wrong": wrong_passages,
        "positive": positive,
        "negative": near,
    }


def _question(row: Mapping[str, Any], index: int) -> tuple[str, list[list[str]]]:
    if not isinstance(row, Mapping):
        msg = f"Question {index} must be an object with question and answer. Got {type(row).__name__}."
        raise TypeError(msg)
    text = row.get("question") or row.get("query")
    if not isinstance(text, str) or not text.strip():
        msg = f"Question {index} has no 'question' (or 'query') text."
        raise ValueError(msg)
    if row.get("answers"):
        elements = [_alternatives(element) for element in row["answers"]]
    elif row.get("answer"):
        elements = [_alternatives(row["answer"])]
    else:
        msg = f"Question {index} ({text[:60]!r}) has no 'answer' (or 'answers')."
        raise ValueError(msg)
    return text.strip(), elements


def read_corpus(path: str | Path) -> list[str]:
    """The passages of a JSON Lines file (each row's ``text``, ``passage``, ``contents``, ``content``, ``document``
    or ``body``, after its ``title`` when it has one) or of a text file (one passage a line)."""
    path = Path(path)
    passages = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if not line.lstrip().startswith("{"):
            passages.append(line.strip())
            continue
        row = json.loads(line)
        text = next((row[f] for f in _TEXT_FIELDS if isinstance(row.get(f), str)), None)
        if text is None:
            msg = f"{path}:{line_no}: a passage needs one of {', '.join(_TEXT_FIELDS)}."
            raise ValueError(msg)
        passages.append(f"{row['title']}: {text}" if isinstance(row.get("title"), str) and row["title"] else text)
    return passages


def read_questions(path: str | Path) -> list[dict[str, Any]]:
    """The question-answer rows of a JSON Lines file."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def write_testbed(records: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write the records as RGB's JSON Lines (one record a line, UTF-8)."""
    path = Path(path)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


class _WordsEncoder:
    """Word-count vectors (for the example): enough to rank passages by shared words."""

    def encode(self, texts: list[str]) -> list[Any]:
        from types import SimpleNamespace

        vocabulary = ["everest", "tall", "metres", "k2", "pakistan", "nepal", "how", "is"]
        out = []
        for text in texts:
            words = text.lower().replace("?", " ").replace(".", " ").replace(",", " ").split()
            vector = np.array([float(words.count(w)) for w in vocabulary])
            out.append(SimpleNamespace(sentence=vector / (np.linalg.norm(vector) or 1.0)))
        return out
