"""What a run's rows say: summaries, statistics, tables, pages, comparisons and thresholds.

Per-score summaries, row outcomes and tables (``summary``), their statistics (``stats``), the HTML page (``html``;
its charts in ``charts``, the frame every report page shares in ``page``), two runs compared (``compare``),
thresholds (``gate``) and which tool wrote the rows (``producers``). Reports read rows, never the engine that wrote
them.
"""
