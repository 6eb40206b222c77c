"""Loading the packaged models prints nothing: no "Loading weights" bar, no load report, no warnings."""

from __future__ import annotations

import warnings

import pytest
from transformers.utils import logging as hf_logging

from rageval_lc.judges.offline.encoder import SentenceTransformerEncoder
from rageval_lc.judges.offline.nli import build_base
from rageval_lc.judges.offline.quiet import quiet_model_loading


def test_the_encoder_model_loads_silently(capfd: pytest.CaptureFixture[str]) -> None:
    bars, verbosity = hf_logging.is_progress_bar_enabled(), hf_logging.get_verbosity()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SentenceTransformerEncoder().model
    assert model.get_embedding_dimension() == 384  # all-MiniLM-L6-v2
    err = capfd.readouterr().err
    assert "Loading weights" not in err and "LOAD REPORT" not in err, err
    assert not [w for w in caught if issubclass(w.category, (FutureWarning, DeprecationWarning))]
    assert (hf_logging.is_progress_bar_enabled(), hf_logging.get_verbosity()) == (bars, verbosity)  # restored


def test_the_nli_base_is_noisy_alone_and_silent_under_the_helper(capfd: pytest.CaptureFixture[str]) -> None:
    hf_logging.enable_progress_bar()
    build_base()
    noisy = capfd.readouterr().err
    assert "Loading weights" in noisy  # the control: this capture sees the bar when there is one
    with quiet_model_loading():
        build_base()
    quiet = capfd.readouterr().err
    assert "Loading weights" not in quiet and "LOAD REPORT" not in quiet, quiet
    assert hf_logging.is_progress_bar_enabled()  # the setting found is restored


def test_transformers_verbosity_info_keeps_the_output(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRANSFORMERS_VERBOSITY", "info")
    hf_logging.enable_progress_bar()
    with quiet_model_loading():
        build_base()
    assert "Loading weights" in capfd.readouterr().err


def test_the_nli_model_loads_silently(capfd: pytest.CaptureFixture[str]) -> None:
    from rageval_lc.judges.offline.nli import NliModel

    hf_logging.enable_progress_bar()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NliModel(precision="float32").predict([("Paris is in France.", "Paris is in France.")])
    err = capfd.readouterr().err
    assert "Loading weights" not in err and "LOAD REPORT" not in err, err
    assert not [w for w in caught if issubclass(w.category, (FutureWarning, DeprecationWarning))]
