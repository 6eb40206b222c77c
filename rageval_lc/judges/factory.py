"""Build a judge from its command-line name: ``labels``, ``offline``, ``offline:<file>``, ``offline:nli=<model>``,
``dspy:<model id>`` or ``cascade:<offline judge>,dspy:<model id>``. The offline judge's old name, ``local``
(``local``, ``local:<file>``, ``cascade:local,...``), is read as ``offline`` (:func:`canonical_judge_spec`).

Example:
    >>> make_judge("labels").name
    'labels'
    >>> offline_options("nli=models/my-nli,judge=my_judge.json")
    {'nli': 'models/my-nli', 'judge': 'my_judge.json'}
    >>> canonical_judge_spec("cascade:local:my_judge.json,dspy:openai/gpt-4o-mini")
    'cascade:offline:my_judge.json,dspy:openai/gpt-4o-mini'
    >>> make_judge("gpt-4")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Unknown judge 'gpt-4'. Use 'labels', 'offline', 'offline:<aligned judge file>', \
'offline:nli=<NLI model folder or id>', 'offline:nli=<NLI model folder or id>,judge=<aligned judge file>', \
'dspy:<model id>' or 'cascade:offline,dspy:<model id>' ...
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from rageval_lc.judges.base import Judge, as_judge
from rageval_lc.judges.labels import LabelsJudge

__all__ = [
    "JUDGE_CHOICES",
    "JUDGE_FORMS",
    "canonical_judge_spec",
    "is_packaged_offline",
    "local_options",
    "make_judge",
    "offline_options",
    "resolve_judge",
]

#: Every form of judge name :func:`make_judge` reads (the ``--judge`` help lists them from here).
JUDGE_FORMS: tuple[str, ...] = (
    "labels",
    "offline",
    "offline:<aligned judge file>",
    "offline:nli=<NLI model folder or id>",
    "offline:nli=<NLI model folder or id>,judge=<aligned judge file>",
    "dspy:<model id>",
    "cascade:offline,dspy:<model id>",
)
JUDGE_CHOICES = ", ".join(repr(form) for form in JUDGE_FORMS[:-1]) + f" or {JUDGE_FORMS[-1]!r}"
_OFFLINE_KEYS = ("nli", "judge")
#: The offline judge's old name, read as ``offline`` wherever a judge is named.
_OLD_OFFLINE = "local"


def canonical_judge_spec(spec: str) -> str:
    """The judge name ``spec`` in its one spelling: the offline judge's old name ``local`` (alone, before a colon,
    or as a cascade's first judge) becomes ``offline``; any other name is returned stripped and unchanged.

    Example:
        >>> [canonical_judge_spec(s) for s in ("local", "local:nli=my-nli", " offline ", "dspy:openai/local")]
        ['offline', 'offline:nli=my-nli', 'offline', 'dspy:openai/local']
        >>> canonical_judge_spec("cascade:local,dspy:openai/gpt-4o-mini")
        'cascade:offline,dspy:openai/gpt-4o-mini'
    """
    spec = spec.strip()
    if spec.startswith("cascade:"):
        first, comma, llm = spec.removeprefix("cascade:").rpartition(",dspy:")
        return f"cascade:{canonical_judge_spec(first)},dspy:{llm}" if comma else spec
    if spec == _OLD_OFFLINE:
        return "offline"
    if spec.startswith(f"{_OLD_OFFLINE}:"):
        return "offline:" + spec.removeprefix(f"{_OLD_OFFLINE}:")
    return spec


def make_judge(
    spec: str,
    *,
    api_base: str | None = None,
    api_key_env: str | None = None,
    max_retries: int = 2,
    device: str = "auto",
    escalate: float | None = None,
    escalate_below: float | None = None,
    **kwargs: Any,
) -> Judge:
    """Return the judge a name stands for.

    Args:
        spec: ``labels`` (labels in the data), ``offline`` (the offline judge, the packaged model),
            ``offline:PATH`` (the offline judge aligned by ``rageval align``, its parameters at PATH, with the NLI
            model it was aligned with), ``offline:nli=MODEL`` (the offline judge on an NLI or consistency model of
            one's own, a folder or a model id: :class:`~rageval_lc.judges.offline.cross_encoder.CrossEncoderNli`;
            ``offline:nli=MODEL,judge=PATH`` with aligned parameters too; see :func:`offline_options`),
            ``dspy:<model id>`` (any LiteLLM model id, e.g. ``dspy:openai/gpt-4o-mini`` or ``dspy:openai/gemma``
            with ``api_base`` pointing at a local OpenAI-compatible server) or ``cascade:<offline judge>,dspy:<model
            id>``. The old name ``local`` stands for ``offline`` in every form (:func:`canonical_judge_spec`).
        api_base: the server URL for ``dspy:`` judges.
        api_key_env: the environment variable holding the API key for ``dspy:`` judges.
        max_retries: extra attempts on unusable model output (``dspy:`` judges).
        escalate: for a ``cascade:`` judge, the share of verdicts sent to the LLM (a budget), or
        escalate_below: for a ``cascade:`` judge, the confidence under which a verdict is sent to the LLM.
        device: where the offline judge runs: ``auto`` (CUDA, else MPS, else the CPU), ``cpu``, ``cuda`` or
            ``mps`` (:func:`~rageval_lc.judges.offline.devices.resolve_device`); checked, and unused, for other judges.
        **kwargs: passed to the judge's constructor.

    Raises:
        ValueError: For an unknown name, an empty model id, a missing API-key variable, an unknown device,
            or (``offline``) a device this machine does not have.
    """
    from rageval_lc.judges.offline.devices import check_device

    check_device(device)
    spec = canonical_judge_spec(spec)
    if spec.startswith("cascade:"):
        llm = {"api_base": api_base, "api_key_env": api_key_env, "max_retries": max_retries}
        return _cascade(spec, llm, device=device, escalate=escalate, escalate_below=escalate_below, **kwargs)
    if escalate is not None or escalate_below is not None:
        msg = f"escalate and escalate_below are for a cascade judge ('cascade:offline,dspy:<model id>'), not {spec!r}."
        raise ValueError(msg)
    if spec == "labels":
        return LabelsJudge()
    if spec == "offline":
        from rageval_lc.judges.offline.judge import OfflineJudge

        return OfflineJudge(device=device, **kwargs)
    if spec.startswith("offline:"):
        options = offline_options(spec.removeprefix("offline:"))
        return _aligned_offline_judge(options.get("judge"), nli=options.get("nli"), device=device, **kwargs)
    if spec.startswith("dspy:"):
        model = spec.removeprefix("dspy:").strip()
        if not model:
            msg = "A 'dspy:' judge needs a model id after the colon, e.g. 'dspy:openai/gpt-4o-mini'."
            raise ValueError(msg)
        api_key = None
        if api_key_env:
            api_key = os.environ.get(api_key_env)
            if not api_key:
                msg = f"The environment variable {api_key_env!r} (named by --api-key-env) is not set."
                raise ValueError(msg)
        elif api_base:
            api_key = "not-needed"  # local OpenAI-compatible servers accept any key
        from rageval_lc.judges.llm.dspy_judge import DspyJudge

        return DspyJudge(model, api_base=api_base, api_key=api_key, max_retries=max_retries, **kwargs)
    msg = f"Unknown judge {spec!r}. Use {JUDGE_CHOICES} (e.g. 'dspy:openai/gpt-4o-mini')."
    raise ValueError(msg)


def _cascade(
    spec: str,
    llm_options: dict[str, Any],
    *,
    device: str,
    escalate: float | None,
    escalate_below: float | None,
    **options: Any,
) -> Judge:
    """``cascade:<offline judge>,dspy:<model id>``: the offline judge (any ``offline`` form) first, its least confident
    verdicts sent to the LLM judge (:class:`~rageval_lc.judges.cascade.CascadeJudge`)."""
    from rageval_lc.judges.cascade import CascadeJudge

    offline, comma, llm = spec.removeprefix("cascade:").rpartition(",dspy:")
    offline = offline.strip()
    if not comma or not (offline == "offline" or offline.startswith("offline:")):
        msg = (
            f"A cascade judge is 'cascade:<offline judge>,dspy:<model id>', e.g. "
            f"'cascade:offline,dspy:openai/gpt-4o-mini'. Got {spec!r}."
        )
        raise ValueError(msg)
    if escalate is None and escalate_below is None:
        msg = f"The cascade judge {spec!r} needs a budget (--escalate 0.2) or a threshold (--escalate-below 0.8)."
        raise ValueError(msg)
    first = make_judge(offline, device=device)  # the extra options (max_tokens) are the LLM judge's
    second = make_judge(f"dspy:{llm}", **llm_options, **options)
    return CascadeJudge(first, second, escalate=escalate, escalate_below=escalate_below)


def offline_options(text: str) -> dict[str, str]:
    """What follows ``offline:`` in a judge name: ``{"judge": PATH}`` for an aligned judge file, or the
    comma-separated ``nli=MODEL`` and ``judge=PATH`` (a comma inside a value is kept unless ``nli=`` or ``judge=``
    follows it).

    Raises:
        ValueError: For nothing after ``offline:``, an empty value or a repeated key.
    """
    text = text.strip()
    if not text:
        msg = (
            "An 'offline:' judge needs the path of an aligned judge after the colon, e.g. 'offline:my_judge.json', "
            "or an NLI model, e.g. 'offline:nli=models/my-nli'."
        )
        raise ValueError(msg)
    if not text.startswith(tuple(f"{key}=" for key in _OFFLINE_KEYS)):
        return {"judge": text}
    options: dict[str, str] = {}
    for part in re.split(rf",\s*(?=(?:{'|'.join(_OFFLINE_KEYS)})=)", text):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key in options or not value:
            why = "repeated" if key in options else "empty"
            msg = f"In 'offline:{text}': {why} option {key!r}. Use 'offline:nli=<model folder or id>[,judge=<file>]'."
            raise ValueError(msg)
        options[key] = value
    return options


#: :func:`offline_options`' old name.
local_options = offline_options


def _aligned_offline_judge(path: str | None, *, nli: str | None = None, device: str, **kwargs: Any) -> Judge:
    """The offline judge on parameters written by ``rageval align`` (read now, so a worker process or a Ray
    actor gets them with the pickled judge, not a path it may not have), and on the NLI model ``nli`` (None: the
    one they were aligned with)."""
    from rageval_lc.judges.offline.judge import OfflineJudge
    from rageval_lc.judges.offline.model import LocalParams

    if path is None:
        return OfflineJudge(device=device, nli=nli, **kwargs)
    if not Path(path).is_file():
        msg = f"No aligned judge at {path!r} (write one with `rageval align`)."
        raise ValueError(msg)
    try:
        params = LocalParams.load(path)
    except (ValueError, TypeError, KeyError) as exc:  # JSONDecodeError is a ValueError
        msg = f"{path!r} is not an aligned offline judge: {exc}"
        raise ValueError(msg) from exc
    return OfflineJudge(device=device, params=params, nli=nli, **kwargs)


@lru_cache(maxsize=1)
def _offline_judge(device: str) -> Judge:
    from rageval_lc.judges.offline.judge import OfflineJudge

    return OfflineJudge(device=device)


def is_packaged_offline(judge: Any) -> bool:
    """Whether ``judge`` asks for the packaged offline judge as it is: None, ``"offline"`` or an old name of it.

    Example:
        >>> is_packaged_offline(None), is_packaged_offline("local"), is_packaged_offline("offline:my.json")
        (True, True, False)
    """
    return judge is None or (isinstance(judge, str) and canonical_judge_spec(judge) == "offline")


def resolve_judge(judge: Any = None, *, device: str = "auto") -> Judge:
    """A judge from what the API and the integrations accept.

    None or ``"offline"`` (its old name ``"local"`` too) → the offline judge (one per process); ``"labels"``,
    ``"dspy:<model id>"`` or another name → :func:`~rageval_lc.judges.make_judge`; a ``dspy.LM`` or a LangChain
    chat model → a :class:`~rageval_lc.judges.DspyJudge` on it; a judge (:class:`~rageval_lc.judges.base.Judge`)
    → itself. ``device`` is where an offline judge built here runs (see :func:`make_judge`).

    Raises:
        TypeError: If ``judge`` has ``supports`` but misses part of the judge contract (the message names it).
        ValueError: If ``device`` is unknown, or (an offline judge built here) not on this machine.
    """
    from rageval_lc.judges.offline.devices import check_device, resolve_device

    check_device(device)
    if is_packaged_offline(judge):
        return _offline_judge(resolve_device(device))  # one per process and device
    if isinstance(judge, str):
        return make_judge(judge, device=device)
    if isinstance(judge, Judge):
        return judge
    if hasattr(judge, "supports"):  # a judge of one's own that misses part of the contract
        return as_judge(judge)  # raises TypeError naming what is missing
    from rageval_lc.judges.llm.dspy_judge import DspyJudge

    return DspyJudge(judge)
