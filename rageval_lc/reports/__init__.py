"""What a run's rows say: per-score summaries and tables (``summary``), and the HTML page (``html``; its
charts in ``charts``, the frame every report page shares in ``page``)."""
