"""A judge held against a user's labelled rows: how far it agrees with them, and its alignment to them, proved
on rows it did not see.

``agreement`` (a judge's agreement with the labels: ``rageval agreement``); ``rageval align``: ``offline``
(:func:`~rageval_lc.align.offline.align_judge`, and the offline judge's alignment), ``refit`` (its parameters
refitted, shrunk toward the shipped ones), ``llm`` and ``compile`` (the LLM judge's: every judgement module the
metrics use compiled), ``report`` (the held-out figures and the refusal of a worse judge, shared by both) and
``page`` (the report as one HTML page). Importing this package imports none of them.
"""
