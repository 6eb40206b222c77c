"""rageval metrics as LangSmith evaluator functions, in both forms, run offline through langsmith's own
evaluator wrapper (what ``langsmith.evaluate(target, data=..., evaluators=[...])`` does with them).

    python examples/langsmith_evaluators.py
"""

from __future__ import annotations

import os
import uuid
from datetime import datetime, timezone

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from langsmith.evaluation.evaluator import run_evaluator
from langsmith.schemas import Example, Run

from rageval_lc.adapters import langsmith_evaluator

QUESTION = {"question": "When was the Eiffel Tower finished?"}
OUTPUTS = {
    "answer": "It was finished in 1889.",
    "documents": [{"page_content": "The Eiffel Tower is in Paris. It was finished in 1889.", "metadata": {}}],
}
REFERENCE = {"answer": "It was finished in 1889."}


def main() -> None:
    # the (inputs, outputs, reference_outputs) form: call it directly, or hand it to langsmith.evaluate
    similarity = langsmith_evaluator("semantic_similarity")
    print(similarity.__name__, similarity(QUESTION, OUTPUTS, REFERENCE))
    # the (run, example) form, through langsmith's wrapper
    run_id = uuid.uuid4()
    now = datetime.now(timezone.utc)
    run = Run(id=run_id, name="rag", start_time=now, run_type="chain", inputs=QUESTION, outputs=OUTPUTS,
              trace_id=run_id)  # fmt: skip
    example = Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), inputs=QUESTION, outputs=REFERENCE, created_at=now)
    trace = run_evaluator(langsmith_evaluator("trace", form="run"))
    for result in trace.evaluate_run(run, example)["results"]:
        print(f"{result.key}: {result.score:.2f}")


if __name__ == "__main__":
    main()
