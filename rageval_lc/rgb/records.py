"""RGB benchmark records (github chen700564/RGB) and the documents the benchmark builds for each question.

Three record shapes (JSON Lines, although the files end in ``.json``):

* ``en`` (``en.json``, ``en_refine.json``): ``id``, ``query``, ``answer``, ``positive``, ``negative``;
* ``int`` (``en_int.json``): ``positive`` is a list of groups, one per sub-question;
* ``fact`` (``en_fact.json``): also ``positive_wrong`` (``positive`` with the answer replaced) and
  ``fakeanswer``.

:func:`build_documents` reproduces the benchmark's ``processdata`` exactly, including its random state:
``random.seed(2333)`` before each question, then the same shuffles and samples in the same order.

Example:
    >>> record = RgbRecord(id=0, query="Q?", answer="A", positive=["p1", "p2", "p3"], negative=["n1", "n2"])
    >>> sorted(build_documents(record, 0.4))
    ['n1', 'n2', 'p1', 'p2', 'p3']
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from rageval_lc.errors import one_line_message
from rageval_lc.files import decode_line, raw_lines

__all__ = [
    "RGB_INSTRUCTION",
    "RGB_SEED",
    "RGB_SYSTEM_PROMPT",
    "RgbKind",
    "RgbRecord",
    "build_documents",
    "load_rgb",
    "rgb_prompt",
]

RgbKind = Literal["en", "int", "fact"]
RGB_SEED = 2333
PASSAGE_NUM = 5
#: The benchmark's English system prompt (config/instruction.yaml), quotes included as they are there.
RGB_SYSTEM_PROMPT = (
    "You are an accurate and reliable AI assistant that can answer questions with the help of external "
    "documents. Please note that external documents may contain noisy or factually incorrect information. "
    "If the information in the document contains the correct answer, you will give an accurate answer. "
    "If the information in the document does not contain the answer, you will generate \u2019I can not "
    "answer the question because of the insufficient information in documents.\u2018. If there are "
    "inconsistencies with the facts in some of the documents, please generate the response 'There are "
    "factual errors in the provided documents.' and provide the correct answer."
)
#: The benchmark's English instruction (``{DOCS}`` are the documents joined by newlines).
RGB_INSTRUCTION = "Document:\n{DOCS} \n\nQuestion:\n{QUERY}"


class RgbRecord(BaseModel):
    """One RGB question with its passages."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: Any = None
    query: str
    answer: Any
    positive: list[Any]
    negative: list[str] = []
    positive_wrong: list[str] | None = None
    fakeanswer: str | None = None
    kind: RgbKind = "en"

    @model_validator(mode="before")
    @classmethod
    def _detect_kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and "kind" not in data:
            data = dict(data)
            if data.get("positive_wrong") is not None:
                data["kind"] = "fact"
            elif data.get("positive") and all(isinstance(p, list) for p in data["positive"]):
                data["kind"] = "int"
            else:
                data["kind"] = "en"
        return data


def load_rgb(path: str | Path) -> list[RgbRecord]:
    """Read an RGB file (one JSON record per line, UTF-8, a byte-order mark ignored); the kind is detected
    per record.

    Raises:
        ValueError: On a line that is not a valid record, naming the file and line.
    """
    path = Path(path)
    records = []
    for line_no, line in raw_lines(path):  # decoded one by one, a byte-order mark dropped
        if not line.strip():
            continue
        try:
            records.append(RgbRecord.model_validate(json.loads(decode_line(line, line_no))))
        except (ValueError, TypeError) as exc:
            msg = f"{path}:{line_no}: not a valid RGB record: {one_line_message(exc)}"
            raise ValueError(msg) from exc
    return records


def build_documents(
    record: RgbRecord,
    noise_ratio: float,
    *,
    passage_num: int = PASSAGE_NUM,
    correct_rate: float = 0.0,
    seed: int = RGB_SEED,
    fill: bool = True,
) -> list[str]:
    """The documents the benchmark shows for ``record`` at ``noise_ratio``, in the benchmark's order.

    ``en``: ceil(passage_num × ratio) negatives and the rest positives, the first ones of each; when one
    kind runs short the other fills in (negatives checked first); at ratio 1 only negatives. ``int``: the
    first passage of each shuffled group, then the next ones round-robin, then negatives. ``fact``: a
    random sample of counterfactual passages (``positive_wrong``), ceil(passage_num × correct_rate)
    true ones, then negatives. Finally a shuffle. The record is not modified.

    ``fill=False`` sends fewer documents instead of filling with negatives when the positives run short:
    ceil(passage_num × ratio) negatives beside the positives there are, never more than ``passage_num`` documents
    (an ``int`` record's first passage of each group comes first). A testbed built from one's own corpus
    (:func:`~rageval_lc.rgb.build.build_testbed`) often holds one positive per question, and RGB's filling
    would give it 4 negatives in 5 documents at every ratio below 0.8; without it, ratio 0 is the positive
    alone and each step adds a near miss beside it.

    Example:
        >>> record = RgbRecord(query="Who won?", answer="Ann", positive=["Ann won."], negative=["A", "B", "C"])
        >>> len(build_documents(record, 0.0)), len(build_documents(record, 0.0, fill=False))
        (4, 1)
        >>> sorted(build_documents(record, 0.4, fill=False))
        ['A', 'Ann won.', 'B']

    Raises:
        ValueError: If ``noise_ratio`` or ``correct_rate`` is outside [0, 1].
    """
    for name, value in (("noise_ratio", noise_ratio), ("correct_rate", correct_rate)):
        if not 0.0 <= value <= 1.0:
            msg = f"The {name!r} parameter of build_documents must be in [0, 1]. Got {value!r} instead."
            raise ValueError(msg)
    rng = random.Random(seed)
    neg_num = math.ceil(passage_num * noise_ratio)
    pos_num = passage_num - neg_num
    positive, negative = list(record.positive), list(record.negative)
    if record.kind == "int":
        groups = [list(group) for group in positive]
        for group in groups:
            rng.shuffle(group)
        docs = [group[0] for group in groups]
        if len(docs) < pos_num:
            longest = max(len(group) for group in groups)
            for i in range(1, longest):
                for group in groups:
                    if len(group) > i:
                        docs.append(group[i])
                        if len(docs) == pos_num:
                            break
                if len(docs) == pos_num:
                    break
        neg_num = passage_num - len(docs) if fill else min(neg_num, passage_num - len(docs))
        if neg_num > 0:
            docs += negative[:neg_num]
    elif record.kind == "fact":
        wrong = list(record.positive_wrong or [])
        correct_num = math.ceil(passage_num * correct_rate)
        pos_num = passage_num - neg_num - correct_num
        indexes = list(range(len(positive)))
        selected = rng.sample(indexes, min(len(indexes), pos_num))
        docs = [wrong[i] for i in selected]
        remain = [i for i in indexes if i not in selected]
        if correct_num > 0 and remain:
            docs += [positive[i] for i in rng.sample(remain, min(len(remain), correct_num))]
        if neg_num > 0:
            docs += negative[:neg_num]
    else:
        if noise_ratio == 1:
            neg_num, pos_num = passage_num, 0
        elif neg_num > len(negative):
            neg_num = len(negative)
            pos_num = passage_num - neg_num
        elif pos_num > len(positive):
            pos_num = len(positive)
            neg_num = passage_num - pos_num if fill else neg_num
        docs = positive[:pos_num] + negative[:neg_num]
    rng.shuffle(docs)
    return docs


def rgb_prompt(query: str, documents: list[str]) -> str:
    """The benchmark's user prompt: its instruction filled with the documents (newline-joined) and the query."""
    return RGB_INSTRUCTION.format(QUERY=query, DOCS="\n".join(documents))
