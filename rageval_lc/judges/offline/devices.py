"""The torch device the offline judge runs on: ``auto`` (CUDA, else MPS, else the CPU), ``cpu``, ``cuda``
(or ``cuda:N``) or ``mps``.

Example:
    >>> resolve_device("cpu")
    'cpu'
    >>> resolve_device("tpu")
    Traceback (most recent call last):
    ...
    ValueError: Unknown device 'tpu'. Use auto, cpu, cuda or mps.
"""

from __future__ import annotations

import re

__all__ = ["DEVICE_CHOICES", "check_device", "resolve_device"]

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
_CUDA_INDEX = re.compile(r"cuda:(\d+)")


def check_device(device: str) -> str:
    """``device`` normalised (trimmed, lower case), torch not imported.

    Raises:
        ValueError: If ``device`` is none of :data:`DEVICE_CHOICES` (nor ``cuda:N``), naming them.
    """
    name = str(device).strip().lower()
    if name not in DEVICE_CHOICES and not _CUDA_INDEX.fullmatch(name):
        msg = f"Unknown device {device!r}. Use {', '.join(DEVICE_CHOICES[:-1])} or {DEVICE_CHOICES[-1]}."
        raise ValueError(msg)
    return name


def resolve_device(device: str = "auto") -> str:
    """The device to run on: ``auto`` is ``cuda`` when torch sees a CUDA device, else ``mps`` when it sees
    Apple's, else ``cpu``; any other choice is itself once checked to be there.

    Raises:
        ValueError: If ``device`` is unknown, or names an accelerator this machine does not have.
    """
    name = check_device(device)
    if name == "cpu":
        return name  # torch not needed to say so
    import torch

    cuda = torch.cuda.is_available()
    mps = _mps_available(torch)
    if name == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if name == "mps":
        if not mps:
            msg = (
                "Device 'mps' asked for, but no MPS device is available "
                "(torch.backends.mps.is_available() is False). Use auto or cpu."
            )
            raise ValueError(msg)
        return name
    if not cuda:
        msg = (
            f"Device {name!r} asked for, but no CUDA device is available (torch.cuda.is_available() is False). "
            "Use auto or cpu."
        )
        raise ValueError(msg)
    index = _CUDA_INDEX.fullmatch(name)
    count = torch.cuda.device_count()
    if index is not None and int(index.group(1)) >= count:
        msg = f"Device {name!r} asked for, but there are {count} CUDA devices (cuda:0 to cuda:{count - 1})."
        raise ValueError(msg)
    return name


def _mps_available(torch: object) -> bool:
    backends = getattr(torch, "backends", None)
    mps = getattr(backends, "mps", None)
    return bool(mps is not None and mps.is_available())
