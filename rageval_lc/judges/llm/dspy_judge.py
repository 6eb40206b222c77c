"""Any DSPy LM — or any LangChain chat model — as the judge for every judgement.

Example:
    >>> from dspy.utils import DummyLM
    >>> judge = DspyJudge(DummyLM([{"classification": "CORRECT", "reason": "Same answer."}]))
    >>> j = judge.classify_answer("Capital of France?", "Paris", "Paris.")
    >>> j.value.label, j.usage.calls
    ('CORRECT', 1)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import dspy

from rageval_lc.judges.base import BaseJudge
from rageval_lc.judges.declarations import DECLARATIONS, Declaration, declaration_of
from rageval_lc.judges.llm.langchain_lm import is_langchain_chat_model, langchain_lm
from rageval_lc.judges.llm.modules import CriteriaJudge, module_class, run_judgement
from rageval_lc.schema import RagSample
from rageval_lc.verdicts import CRITERIA, CRITERIA_DEFINITIONS, CriteriaDefinition, Judgement

T = TypeVar("T")

__all__ = [
    "DspyJudge",
    "as_dspy_lm",
    "lm_identity",
]


def as_dspy_lm(
    lm: Any,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    temperature: float | None = 0.0,
    max_tokens: int | None = None,
    timeout_s: float | None = None,
) -> dspy.BaseLM:
    """Return a DSPy LM for a ``dspy.LM``, a LiteLLM model id (``"openai/gpt-4o-mini"``), or a LangChain chat model.

    An LM built here from a model id does not use DSPy's response cache: its key leaves out the server
    (``api_base``), so answers from one endpoint would be served for another. The judge cache of
    :class:`~rageval_lc.judges.resilient.ResilientJudge` (``--cache-dir``) is keyed by every setting instead.
    ``timeout_s`` is the transport timeout of each HTTP call.

    Raises:
        TypeError: For anything else.
    """
    if isinstance(lm, dspy.BaseLM):
        return lm
    if isinstance(lm, str):
        if not lm.strip():
            msg = "The judge model id must be a non-empty string such as 'openai/gpt-4o-mini'."
            raise ValueError(msg)
        settings = {"api_base": api_base, "api_key": api_key, "max_tokens": max_tokens, "timeout": timeout_s}
        extra: dict[str, Any] = {k: v for k, v in settings.items() if v}
        if api_base:
            # DSPy's native engine sends OpenAI's newer `max_completion_tokens`, which local OpenAI-compatible
            # servers (llama.cpp) ignore, so a small model may ramble for thousands of tokens; LiteLLM sends
            # `max_tokens`.
            extra["engine"] = "litellm"
        return dspy.LM(lm, temperature=temperature, cache=False, **extra)
    if is_langchain_chat_model(lm):
        return langchain_lm(lm)
    msg = (
        "A judge LM must be a dspy.LM, a LiteLLM model id string or a LangChain chat model. "
        f"Got {type(lm).__name__} instead."
    )
    raise TypeError(msg)


#: LM settings that change how a call travels, not what the model answers: left out of the cache key.
_TRANSPORT_SETTINGS = frozenset({"api_key", "timeout", "num_retries"})


def lm_identity(lm: Any) -> dict[str, Any]:
    """The LM's model and every setting that changes its answers (server, temperature, max tokens, a
    LangChain chat model's own settings), without secrets or transport settings."""
    settings = {k: v for k, v in (getattr(lm, "kwargs", None) or {}).items() if k not in _TRANSPORT_SETTINGS}
    identity = {
        "type": type(lm).__qualname__,
        "model": getattr(lm, "model", None),
        "model_type": getattr(lm, "model_type", None),
        "settings": settings,
    }
    engine = getattr(lm, "engine", None)
    if engine is not None and not isinstance(engine, str):  # a custom engine: a LangChain chat model
        identity["engine"] = getattr(engine, "identity", type(engine).__qualname__)
    return identity


class DspyJudge(BaseJudge):
    """Every judgement through a DSPy module and an LM.

    Args:
        lm: a ``dspy.LM`` (any LiteLLM model, including OpenAI-compatible local servers), a model id
            string, or a LangChain chat model.
        max_retries: extra attempts when an answer cannot be parsed or is invalid (bounded).
        chain_of_thought: run the modules as ``ChainOfThought`` (adds a reasoning field, more tokens).
        modules: compiled modules to use instead of the defaults, by judgement name (a criteria metric's
            is ``criteria:<metric>``, once the metric is registered).
        api_base, api_key, temperature, max_tokens: used when ``lm`` is a model id.

    A judge built from a model id keeps DSPy's response cache off (see :func:`as_dspy_lm`); with a
    ``dspy.LM`` of your own, DSPy's cache is yours to set (its key ignores ``api_base``).

    It also judges every criteria metric (:func:`rageval_lc.criteria_metric`), each with a module of its own
    (``modules["criteria:<metric>"]``, made when first needed: see :meth:`criteria_module`).
    """

    @property
    def supports(self) -> frozenset[str]:
        """Every declared judgement (one's own too, once declared) and criteria metrics."""
        return frozenset(DECLARATIONS) | {CRITERIA}

    def __init__(
        self,
        lm: Any,
        *,
        max_retries: int = 2,
        chain_of_thought: bool = False,
        modules: dict[str, dspy.Module] | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
    ) -> None:
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            msg = f"The 'max_retries' parameter of DspyJudge must be an int >= 0. Got {max_retries!r} instead."
            raise ValueError(msg)
        self.lm = as_dspy_lm(lm, api_base=api_base, api_key=api_key, temperature=temperature, max_tokens=max_tokens)
        self._owns_lm = isinstance(lm, str)
        self.name = f"dspy:{self.lm.model}"
        self.max_retries = max_retries
        self.chain_of_thought = chain_of_thought
        self.modules: dict[str, dspy.Module] = {
            name: module_class(d)(chain_of_thought=chain_of_thought) for name, d in DECLARATIONS.items()
        }
        known = set(DECLARATIONS) | {f"{CRITERIA}:{name}" for name in CRITERIA_DEFINITIONS}
        unknown = set(modules or {}) - known
        if unknown:
            msg = f"Unknown judgement names in 'modules': {sorted(unknown)}. Known: {sorted(known)}."
            raise ValueError(msg)
        self.modules.update(modules or {})

    def planned_calls(self, judgement: str) -> int:
        """One model call per judgement per sample (a criteria metric's too), before retries."""
        declaration = declaration_of(judgement)
        return declaration.calls if declaration is not None else 0

    def criteria_module(self, metric: str | CriteriaDefinition) -> dspy.Module:
        """The module judging a criteria metric (a registered metric's name, or its definition): the one in
        :attr:`modules` when it was made for the same definition, else a new one put there. Compile it as any
        DSPy module and put the result back in ``modules["criteria:<metric>"]``; :meth:`save` keeps it.

        Raises:
            ValueError: If no criteria metric of that name is registered.
        """
        definition = _criteria_definition(metric)
        key = definition.judgement
        module = self.modules.get(key)
        if getattr(module, "definition", None) != definition:
            module = CriteriaJudge(definition, chain_of_thought=self.chain_of_thought)
            self.modules[key] = module
        return module

    def cache_identity(self) -> dict[str, Any]:
        """Everything that shapes this judge's answers: the LM's settings and each module's prompts and demos."""
        return {"lm": lm_identity(self.lm), "modules": {k: m.dump_state() for k, m in self.modules.items()}}

    def set_transport_timeout(self, seconds: float) -> None:
        """Give each HTTP call of an LM this judge built from a model id a timeout (unless it has one), so an
        abandoned call ends instead of holding its connection for LiteLLM's default 10 minutes. An LM passed
        in (a ``dspy.LM``, a LangChain chat model) keeps its own settings."""
        if self._owns_lm and isinstance(self.lm, dspy.LM) and not self.lm.kwargs.get("timeout"):
            self.lm = self.lm.copy(timeout=seconds)

    def module_for(self, judgement: Declaration[Any]) -> dspy.Module:
        """The module that makes ``judgement``: the one in :attr:`modules`, made when first needed (a judgement
        declared after this judge was built, a criteria metric's: :meth:`criteria_module`)."""
        if judgement.definition is not None:
            return self.criteria_module(judgement.definition)
        module = self.modules.get(judgement.name)
        if module is None:
            module = self.modules[judgement.name] = module_class(judgement)(chain_of_thought=self.chain_of_thought)
        return module

    def make(self, judgement: Declaration[T], inputs: Mapping[str, Any]) -> Judgement[T]:
        """Make ``judgement`` in one call: its declared shortcut when it needs no call (no claims to verify),
        else its Signature on its prompt, the answer read and checked by its reader (retried when unusable)."""
        shortcut = judgement.shortcut(inputs)
        if shortcut is not None:
            return shortcut
        return run_judgement(
            judgement.name,
            self.module_for(judgement),
            judgement.prompt(inputs),
            lm=self.lm,
            parse=lambda prediction: judgement.read(prediction, inputs),
            max_retries=self.max_retries,
        )

    def estimate_prompt_tokens(self, judgement: str, sample: RagSample, n: int = 3) -> int | None:
        """Tokens (characters ÷ 4) of the prompt a judgement would send for a sample; None if unknown.

        ``verify_claims`` is estimated with the response sentences standing in for the claims.
        """
        declaration = declaration_of(judgement)
        if declaration is None or declaration.of_sample is None:
            return None
        return self.declaration_prompt_tokens(declaration, declaration.of_sample(sample, n))

    def declaration_prompt_tokens(self, declaration: Declaration[Any], inputs: Mapping[str, Any]) -> int:
        """Tokens (characters ÷ 4) of the prompt ``declaration`` would send on ``inputs``."""
        predictor = self.module_for(declaration).predictors()[0]
        adapter = dspy.settings.adapter or dspy.ChatAdapter()
        messages = adapter.format(predictor.signature, predictor.demos, declaration.prompt(inputs))
        return sum(len(str(m.get("content", ""))) for m in messages) // 4

    # --- compiled state --------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Save every module's state (demos, instructions) to one JSON file."""
        path = Path(path)
        state = {name: module.dump_state() for name, module in self.modules.items()}
        criteria = {
            name: module.definition.model_dump(mode="json")
            for name, module in self.modules.items()
            if isinstance(module, CriteriaJudge)
        }
        saved = {"rageval_lc_judge": 1, "modules": state, "criteria": criteria}
        path.write_text(json.dumps(saved, indent=1, default=str), encoding="utf-8")
        return path

    def load(self, path: str | Path) -> DspyJudge:
        """Load module states saved by :meth:`save` into this judge; returns the judge.

        A criteria metric's module loads into the metric registered under its name, which must have the
        criteria, rubric and fields it was saved with.

        Raises:
            ValueError: If the file is not a saved judge, or holds a criteria module whose metric is not
                registered or was registered with another definition.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "modules" not in data:
            msg = f"{path} is not a judge saved by DspyJudge.save."
            raise ValueError(msg)
        for name, saved in (data.get("criteria") or {}).items():
            metric = name.split(":", 1)[1]
            if metric not in CRITERIA_DEFINITIONS:
                msg = f"{path} holds the criteria metric {metric!r}: register it (criteria_metric) before loading."
                raise ValueError(msg)
            if CriteriaDefinition.model_validate(saved) != CRITERIA_DEFINITIONS[metric]:
                msg = f"{path} holds the criteria metric {metric!r} with another definition than the registered one."
                raise ValueError(msg)
            self.criteria_module(metric)
        for name, state in data["modules"].items():
            if name not in self.modules:
                msg = f"{path} holds an unknown judgement {name!r}."
                raise ValueError(msg)
            self.modules[name].load_state(state)
        return self


def _criteria_definition(metric: str | CriteriaDefinition) -> CriteriaDefinition:
    if isinstance(metric, CriteriaDefinition):
        return metric
    if metric not in CRITERIA_DEFINITIONS:
        known = ", ".join(sorted(CRITERIA_DEFINITIONS)) or "none"
        msg = f"No criteria metric {metric!r} is registered (registered: {known})."
        raise ValueError(msg)
    return CRITERIA_DEFINITIONS[metric]
