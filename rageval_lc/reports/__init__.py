"""What a run's rows say: per-score summaries and tables (``summary``), and the HTML page (``html``)."""
