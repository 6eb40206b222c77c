"""Scoring many samples: the batch loop (in-process, in worker processes or on Ray), JSONL files in and out, the
results of a run and the quickstart."""
