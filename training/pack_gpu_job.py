"""Pack what the GPU training job needs into one folder that travels with the working tree (``carry``, ≤ 64 MiB).

Nothing outside the repository reaches the device machine, so the folder holds: the packaged MiniLM in float16
(``base/``, ~45 MB: the 88 MB float32 copy is over the carry limit), the NLI sources ``train_nli.py`` reads
(``nli/``), the twins' NLI pairs when ``training/twin_pairs.py`` has written them (``twins/``, under 1 MB;
``gpu_job.sh`` then trains with ``--twins``), the first rows of four RAGBench validation files for the device
benchmark (``shared/data/ragbench``), and wheels of the few pure-Python packages the machine's image lacks
(``wheels/``: pydantic and its needs).

    python training/pack_gpu_job.py                    # writes .gpu/ (ignored by git)
    python training/pack_gpu_job.py --no-wheels --out /tmp/gpu --rows 8   # what the tests do (no network)
    python training/pack_gpu_job.py --no-twins         # without the twins, even where .cache/twins/nli exists

Then, on the device machine (``carry: [".gpu"]``): ``bash training/gpu_job.sh``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

WHEELS = ["pydantic==2.14.3", "pydantic_core==2.50.4", "annotated_types==0.8.0", "typing_inspection==0.4.5"]
RAGBENCH_FILES = ["covidqa_validation", "delucionqa_validation", "emanual_validation", "hagrid_validation"]
LIMIT_MIB = 64


def pack_base(out: Path) -> None:
    """The packaged MiniLM folder with its weights in float16."""
    import torch
    from safetensors.torch import load_file, save_file

    from rageval_lc.judges.offline.encoder import default_model_path

    source = default_model_path()
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("model.safetensors", "*.bin", "onnx", "openvino"))
    weights = load_file(str(source / "model.safetensors"))
    save_file({k: v.to(torch.float16).contiguous() for k, v in weights.items()}, str(out / "model.safetensors"))


def pack(out: Path, data: Path, shared: Path, rows: int, wheels: bool, twins: Path | None = None) -> int:
    from train_nli import HELD_OUT_SOURCES, TRAIN_SOURCES, TWIN_SOURCES

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    pack_base(out / "base")
    (out / "nli").mkdir()
    for source in [*TRAIN_SOURCES, *HELD_OUT_SOURCES]:
        shutil.copy(data / f"{source}.jsonl.gz", out / "nli" / f"{source}.jsonl.gz")
    if twins is not None and all((twins / name).exists() for name in TWIN_SOURCES.values()):
        (out / "twins").mkdir()
        for name in TWIN_SOURCES.values():
            shutil.copy(twins / name, out / "twins" / name)
        print(f"twins' NLI pairs packed from {twins}")
    elif twins is not None:
        print(f"no twins' NLI pairs in {twins} (training/twin_pairs.py writes them): packed without")
    ragbench = out / "shared" / "data" / "ragbench"
    ragbench.mkdir(parents=True)
    for name in RAGBENCH_FILES:
        lines = (shared / "data" / "ragbench" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()[:rows]
        (ragbench / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if wheels:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            "3.12",
            "--implementation",
            "cp",
            "--platform",
            "manylinux_2_28_x86_64",
            "--platform",
            "manylinux_2_17_x86_64",
            "--platform",
            "manylinux2014_x86_64",
            "-d",
            str(out / "wheels"),
            *WHEELS,
        ]
        subprocess.run(command, check=True)  # fmt: skip
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20
    print(f"packed {out}: {size:.1f} MiB")
    if size > LIMIT_MIB:
        print(f"over the {LIMIT_MIB} MiB carry limit", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".gpu")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "nli")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--rows", type=int, default=150, help="RAGBench rows per file for the device benchmark")
    parser.add_argument("--no-wheels", dest="wheels", action="store_false", help="skip the wheels (no network)")
    parser.add_argument(
        "--twins", type=Path, default=ROOT / ".cache" / "twins" / "nli", help="training/twin_pairs.py's folder"
    )
    parser.add_argument("--no-twins", dest="twins", action="store_const", const=None, help="pack no twins")
    args = parser.parse_args(argv)
    return pack(args.out, args.data, args.shared, args.rows, args.wheels, args.twins)


if __name__ == "__main__":
    raise SystemExit(main())
