"""Test set-up shared by the test suite and the doctests: offline, and where the shared data lives."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# Never touch the network: no model download, no litellm cost-map fetch.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DSPY_CACHEDIR", tempfile.mkdtemp(prefix="rageval-dspy-cache-"))

ROOT = Path(__file__).resolve().parent

# What the library computes once and keeps (the merged NLI model) goes to the checkout's .cache/, never to the
# user's home; tests of the cache itself point it at their tmp_path.
os.environ["RAGEVAL_CACHE_DIR"] = str(ROOT / ".cache" / "rageval")


def shared_dir() -> Path | None:
    """The project's shared data folder (``../shared`` beside the checkout, or $RAGEVAL_SHARED_DIR)."""
    candidate = Path(os.environ.get("RAGEVAL_SHARED_DIR", ROOT.parent / "shared"))
    return candidate if (candidate / "data").is_dir() else None


@pytest.fixture(scope="session")
def shared() -> Path:
    """Path of ../shared; skipped when absent, a failure when RAGEVAL_REQUIRE_SHARED=1 (as in CI)."""
    found = shared_dir()
    if found is None:
        if os.environ.get("RAGEVAL_REQUIRE_SHARED") == "1":
            pytest.fail("../shared/data is required (RAGEVAL_REQUIRE_SHARED=1) but was not found")
        pytest.skip("../shared/data not found beside the checkout")
    return found


@pytest.fixture(scope="session")
def ragbench_files(shared: Path) -> list[Path]:
    """Every RAGBench JSONL file of ../shared/data/ragbench."""
    files = sorted((shared / "data" / "ragbench").glob("*.jsonl"))
    assert files, "no RAGBench files in ../shared/data/ragbench"
    return files
