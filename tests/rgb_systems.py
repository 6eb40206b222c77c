"""Systems under test for the RGB runner tests (importable as ``tests.rgb_systems:<name>``)."""

from __future__ import annotations

import json
from pathlib import Path

_SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "rgb" / "en_fact.json"
_ANSWERS = {}
if _SHARED.exists():
    for _line in _SHARED.read_text(encoding="utf-8").splitlines():
        _record = json.loads(_line)
        _answer = _record["answer"]
        _ANSWERS[_record["query"]] = _answer if isinstance(_answer, str) else _answer[0][0]


def oracle(question: str, documents: list[str]) -> str:
    """Flags the counterfactual documents and gives the true answer (it knows the answers)."""
    return f"There are factual errors in the provided documents. The correct answer is {_ANSWERS[question]}."


def echo_first_document(question: str, documents: list[str]) -> str:
    """Answers with the first document, as a naive system would."""
    return documents[0] if documents else ""
