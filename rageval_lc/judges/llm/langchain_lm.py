"""Any LangChain chat model as a DSPy LM, through DSPy 3.4's engine interface.

DSPy sends one canonical ``Request`` (system text, messages, config) to an engine's ``complete`` and
expects a ``Response``; the engine here turns that into LangChain messages, calls ``invoke`` (or
``ainvoke``), and reports the model's ``usage_metadata`` when it has one. No ``forward()``
subclassing (deprecated in DSPy 3.4) and no ``bind_tools``: DSPy's adapters ask for, and parse,
plain text.

Example:
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> lm = langchain_lm(FakeListChatModel(responses=["[[ ## answer ## ]]\\nParis\\n\\n[[ ## completed ## ]]"]))
    >>> lm.model
    'langchain/FakeListChatModel'
"""

from __future__ import annotations

from typing import Any

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events

__all__ = ["AsyncLangChainEngine", "LangChainEngine", "chat_model_identity", "is_langchain_chat_model", "langchain_lm"]


def is_langchain_chat_model(obj: object) -> bool:
    """True for a LangChain chat model (without importing LangChain when it is not installed)."""
    try:
        from langchain_core.language_models import BaseChatModel
    except ImportError:  # pragma: no cover - langchain-core is a dependency
        return False
    return isinstance(obj, BaseChatModel)


def chat_model_identity(chat_model: Any) -> str:
    """The chat model's class and the settings that shape its answers, as LangChain's own cache keys it
    (model, temperature, base URL, ...; secrets left out)."""
    kind = f"{type(chat_model).__module__}.{type(chat_model).__qualname__}"
    try:
        return f"{kind}:{chat_model._get_llm_string()}"
    except Exception:  # a model LangChain cannot describe: its repr (pydantic hides secrets)
        return f"{kind}:{chat_model!r}"


def _messages(request: Any) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    out: list[Any] = []
    if request.system is not None:
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system)
        out.append(SystemMessage(content=system))
    for message in request.messages:
        text = message.text or ""
        if message.role == "assistant":
            out.append(AIMessage(content=text))
        elif message.role == "developer":
            out.append(SystemMessage(content=text))
        else:
            out.append(HumanMessage(content=text))
    return out


def _response(result: Any, model: str) -> Response:
    content = getattr(result, "content", result)
    if isinstance(content, list):  # content blocks
        content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    usage = getattr(result, "usage_metadata", None) or {}
    return Response(
        id=getattr(result, "id", None),
        model=model,
        message=Message.assistant([TextPart(str(content))]),
        finish_reason="stop",
        usage=Usage(input_tokens=usage.get("input_tokens"), output_tokens=usage.get("output_tokens")),
    )


def _invoke_kwargs(request: Any) -> dict[str, Any]:
    stop = tuple(request.config.stop or ())
    return {"stop": list(stop)} if stop else {}


class LangChainEngine:
    """Synchronous DSPy engine over a LangChain chat model (``invoke``)."""

    def __init__(self, chat_model: Any) -> None:
        self.chat_model = chat_model
        self.model_name = type(chat_model).__name__

    @property
    def identity(self) -> str:
        """The chat model's settings (see :func:`chat_model_identity`): part of the judge cache's key."""
        return chat_model_identity(self.chat_model)

    def complete(self, request: Any) -> Response:
        result = self.chat_model.invoke(_messages(request), **_invoke_kwargs(request))
        return _response(result, self.model_name)

    def stream(self, request: Any) -> Any:
        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Nothing to release: the chat model owns its connection."""


class AsyncLangChainEngine:
    """Asynchronous DSPy engine over a LangChain chat model (``ainvoke``)."""

    def __init__(self, chat_model: Any) -> None:
        self.chat_model = chat_model
        self.model_name = type(chat_model).__name__

    async def complete(self, request: Any) -> Response:
        result = await self.chat_model.ainvoke(_messages(request), **_invoke_kwargs(request))
        return _response(result, self.model_name)

    async def stream(self, request: Any) -> Any:
        for event in response_to_events(await self.complete(request)):
            yield event

    async def aclose(self) -> None:
        """Nothing to release: the chat model owns its connection."""


def langchain_lm(chat_model: Any, *, cache: bool = False, **kwargs: Any) -> dspy.LM:
    """Wrap a LangChain chat model as a ``dspy.LM``.

    Args:
        chat_model: any ``langchain_core`` chat model.
        cache: use DSPy's response cache (off by default: the chat model may answer differently to the
            same prompt, as test doubles do).
        **kwargs: passed to ``dspy.LM`` (e.g. ``num_retries``).

    Raises:
        TypeError: If ``chat_model`` is not a LangChain chat model.
    """
    if not is_langchain_chat_model(chat_model):
        msg = f"langchain_lm expects a LangChain chat model. Got {type(chat_model).__name__} instead."
        raise TypeError(msg)
    return dspy.LM(
        f"langchain/{type(chat_model).__name__}",
        engine=LangChainEngine(chat_model),
        async_engine=AsyncLangChainEngine(chat_model),
        cache=cache,
        **kwargs,
    )
