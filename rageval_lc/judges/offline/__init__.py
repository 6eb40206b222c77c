"""The offline judge: :class:`~rageval_lc.judges.offline.judge.OfflineJudge` and what it runs on.

``judge`` (the judge), ``features``, ``grounding`` (each claim's evidence), ``nli_pass`` (the grounding model's pass
over (evidence, claim) pairs), ``contradiction`` (the contradiction detector, a package: its face in
``contradiction/__init__.py``; the numbers, dates, names, negations and comparisons it reads are
:mod:`rageval_lc.facts`'), ``reference``, ``limits``, ``model`` and ``params.json`` (the fitted
linear models; refitted to a user's rows by :mod:`rageval_lc.align.refit`); the models: ``encoder`` (the packaged
sentence-transformers model), ``nli`` (the grounding model, an NLI cross-encoder trained on the task, its adapter in
``nli/``), ``cross_encoder`` (an NLI model of one's own in its place), ``embeddings`` (the embedding metrics'
scorer); and their machinery: ``bert`` (the packaged models' forward pass in plain torch), ``merged_nli`` (the NLI
adapter merged once and kept), ``devices``, ``heap``, ``quiet``.
Importing this package imports none of them.
"""
