"""The device the offline judge runs on: ``auto`` (CUDA, else MPS, else the CPU), ``cpu``, ``cuda`` (or ``cuda:N``)
or ``mps``. ``auto`` imports torch only on a machine that may have an accelerator (:func:`may_have_accelerator`):
on the CPU the judge's models run in numpy (:mod:`~rageval_lc.judges.offline.runtime`), torch never imported.

Example:
    >>> resolve_device("cpu")
    'cpu'
    >>> resolve_device("tpu")
    Traceback (most recent call last):
    ...
    ValueError: Unknown device 'tpu'. Use auto, cpu, cuda or mps.
"""

from __future__ import annotations

import platform
import re
import sys
from pathlib import Path

__all__ = ["DEVICE_CHOICES", "check_device", "gpu_hardware_present", "may_have_accelerator", "resolve_device"]

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")
_CUDA_INDEX = re.compile(r"cuda:(\d+)")
#: What a GPU's driver makes on Linux: NVIDIA's device files, AMD's (ROCm), WSL's GPU bridge.
_GPU_FILES = ("/dev/nvidiactl", "/dev/nvidia0", "/proc/driver/nvidia/gpus", "/dev/kfd", "/dev/dxg")


def may_have_accelerator() -> bool:
    """Whether torch might find a GPU here, judged without importing it: torch already imported (then it is
    asked), or :func:`gpu_hardware_present`."""
    return "torch" in sys.modules or gpu_hardware_present()


def gpu_hardware_present() -> bool:
    """Whether this machine may have a GPU: Apple silicon, a GPU driver's files on Linux, or another system
    (not known without torch)."""
    if sys.platform == "darwin":
        return platform.machine() == "arm64"
    if sys.platform.startswith("linux"):
        return any(Path(name).exists() for name in _GPU_FILES)
    return True


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
    Apple's, else ``cpu`` (at once, torch not imported, where :func:`may_have_accelerator` says no); any other
    choice is itself once checked to be there.

    Raises:
        ValueError: If ``device`` is unknown, or names an accelerator this machine does not have.
    """
    name = check_device(device)
    if name == "cpu" or (name == "auto" and not may_have_accelerator()):
        return "cpu"  # torch not needed to say so
    try:
        import torch
    except ImportError:  # no torch: the CPU, in numpy
        if name == "auto":
            return "cpu"
        raise

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
