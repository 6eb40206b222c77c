"""The RGB benchmark (Chen et al., AAAI 2024): its records, its scoring rules and the runner that puts a system
under test through it.

``records`` (the benchmark's records and the documents it builds for each question), ``scoring`` (its four tasks'
rules, pure and model-free: ``rageval rgb score``), ``run`` (a system's answers collected and scored:
``rageval rgb run``) and ``report`` (a run's HTML page); ``build`` (the four testbeds made from one's own passages
and questions: ``rageval rgb build``), with ``counterfactual`` (a passage with its answer replaced), ``names`` (what
kind a name is) and ``questions`` (questions an LLM writes from passages). Importing this package imports none of
them.
"""
