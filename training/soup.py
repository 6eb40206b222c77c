"""Average fully fine-tuned NLI runs into one model (a "model soup", Wortsman et al. 2022) and ship it as an adapter.

Runs trained by ``train_nli.py --full --save-full`` from the same starting weights (the same ``--seed``, so the
same new head) and differing only in the order of the training pairs (``--order-seed``) land in one basin;
their average is often more accurate than each of them. The soup is exported the way one run is (a rank-96
adapter over the packaged base) and evaluated on the same held-out sources, beside each ingredient::

    python training/soup.py RUN1 RUN2 RUN3 --out .cache/nli_soup --data ../shared/data/nli

``training/soup_job.sh`` trains the runs side by side on one GPU and then calls this.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

import train_nli  # noqa: E402


def average(runs: list[Path]) -> dict:
    """The element-wise mean of the runs' trained weights (``full_weights.safetensors``)."""
    from safetensors.torch import load_file

    total: dict = {}
    for run in runs:
        for name, weight in load_file(str(run / "full_weights.safetensors")).items():
            total[name] = total[name] + weight.float() if name in total else weight.float().clone()
    return {name: weight / len(runs) for name, weight in total.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="folders written by train_nli.py --full --save-full")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "nli"))
    parser.add_argument("--export-rank", type=int, default=96)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--eval-limit", type=int, default=0)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args(argv)

    _, model = train_nli.build_base()
    missing, unexpected = model.load_state_dict(average(args.runs), strict=False)
    if unexpected or any(not name.startswith("bert.embeddings.") for name in missing):
        raise SystemExit(f"the runs do not fit the base model: missing {missing}, unexpected {unexpected}")
    args.out.mkdir(parents=True, exist_ok=True)
    train_nli.export_lora(model, args.out, args.export_rank)
    train_nli._trim_config(args.out)
    first = json.loads((args.runs[0] / "training.json").read_text(encoding="utf-8"))
    info = {**first, "soup_of": [str(run) for run in args.runs], "order_seeds": []}
    for run in args.runs:
        info["order_seeds"].append(json.loads((run / "training.json").read_text(encoding="utf-8")).get("order_seed"))
    (args.out / "training.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    train_nli.evaluate(
        argparse.Namespace(
            data=args.data,
            out=str(args.out),
            seed=args.seed,
            eval_limit=args.eval_limit,
            threads=args.threads,
            device=args.device,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
