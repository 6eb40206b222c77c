"""The RGB benchmark (Chen et al., AAAI 2024): its records, its scoring rules and the runner that puts a system
under test through it.

``records`` (the benchmark's records and the documents it builds for each question), ``scoring`` (its four tasks'
rules, pure and model-free: ``rageval rgb score``) and ``run`` (a system's answers collected and scored:
``rageval rgb run``). Importing this package imports none of them.
"""
