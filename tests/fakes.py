"""Test doubles shared by several test modules: a chat model that answers per judgement and counts its
calls, and a bag-of-words encoder (no model download, exact arithmetic)."""

from __future__ import annotations

import json
import zlib
from collections import Counter
from typing import Any

import numpy as np
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from rageval_lc.judges.encoder import CachedEncoder, Encoded


def chat(**fields: object) -> str:
    """An answer in DSPy's chat format; lists and dicts as JSON."""
    parts = [f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}" for k, v in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


class JudgementChatModel(BaseChatModel):
    """Answers each DSPy judgement with a canned reply, recognising the judgement by its Signature's
    instruction in the system prompt; counts the calls per judgement."""

    answers: dict[str, str]
    _calls: Counter = PrivateAttr(default_factory=Counter)

    @property
    def _llm_type(self) -> str:
        return "judgement-fake"

    @property
    def calls(self) -> Counter:
        return self._calls

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        from rageval_lc.judges.signatures import SIGNATURES

        system = str(messages[0].content)
        for name, signature in SIGNATURES.items():
            if signature.instructions.strip().splitlines()[0] in system:
                self._calls[name] += 1
                reply = self.answers.get(name, "")
                return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])
        msg = "no Signature instruction found in the prompt"
        raise AssertionError(msg)


class BagOfWordsEncoder:
    """Sentence vectors from hashed lower-cased word counts (unit length); identical texts → cosine 1."""

    def encode(self, texts: list[str]) -> list[Encoded]:
        out = []
        for text in texts:
            vector = np.zeros(64)
            for word in text.lower().replace("?", " ").replace(".", " ").split():
                vector[zlib.crc32(word.encode()) % 64] += 1.0
            norm = np.linalg.norm(vector)
            out.append(Encoded(vector / norm if norm else vector, np.zeros((0, 64)), ()))
        return out


def bag_of_words_embeddings() -> Any:
    from rageval_lc.judges.embeddings import EmbeddingScorer

    return EmbeddingScorer(encoder=CachedEncoder(BagOfWordsEncoder()))
