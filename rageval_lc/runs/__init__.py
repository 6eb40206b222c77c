"""Scoring many samples: the batch engine (the one loop), JSONL files in and out, judge agreement, the
RGB benchmark runner and the quickstart."""
