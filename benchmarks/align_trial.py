"""``rageval align`` on a new user's first trial (issue 33): does the aligned judge give better verdicts on
questions it never saw, and does the held-out check say so honestly?

Run:  python benchmarks/align_trial.py [--questions 18]

The rows are those of ``tests/align_trial.py`` (short questions, a passage with a bystander fact, a faithful answer
and one with a wrong fact). The judge is aligned (faithfulness: the support and hallucination models) on the
first N questions' rows and, forced to be written whatever the check says, judges the other questions' rows.
Three judges, side by side in one run: the shipped one, the aligned one as align wrote it before issue 33
(refitted models, the shipped thresholds), and as it writes it now (the thresholds refitted with the models).
Printed: the held-out check's table and verdict, and the right row verdicts of each judge on the other questions.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rageval_lc.align.offline import align_judge  # noqa: E402
from rageval_lc.judges.offline.model import LocalParams  # noqa: E402
from tests.align_trial import FACTS, right_verdicts, trial_rows  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=18, help="questions aligned on (two rows each)")
    args = parser.parse_args()
    labelled, other = trial_rows(args.questions), trial_rows(len(FACTS) - args.questions, start=args.questions)
    with tempfile.TemporaryDirectory() as folder:
        now = Path(folder) / "now.json"
        report = align_judge(labelled, metrics="faithfulness", out=now, force=True)
        print(report.table())
        print(f"usable: {report.usable}")
        shipped = LocalParams.load()
        before = Path(folder) / "before.json"  # the refitted models with the shipped thresholds
        kept = {k: getattr(shipped, k) for k in ("adherence_threshold", "support_threshold")}
        before.write_text(dataclasses.replace(LocalParams.load(now), **kept).to_json(), encoding="utf-8")
        print(f"\nRow verdicts right on the {len(other)} rows of {len(other) // 2} other questions:")
        for name, judge in (
            ("shipped", "local"),
            ("aligned, thresholds kept", f"local:{before}"),
            ("aligned now", f"local:{now}"),
        ):
            print(f"  {name:<26} {right_verdicts(judge, other):>3} of {len(other)}")


if __name__ == "__main__":
    main()
