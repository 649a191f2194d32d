"""A dual-encoder training run on CPU: the seed-000 recipe, its loss curve and its time.

    .venv/bin/python benchmarks/bench_retriever_training.py [--data DIR_OR_JSON] [--epochs 10] [--batch-size 8]

By default it trains the packaged all-MiniLM-L6-v2 (query and passage encoders, separate
copies) on the BIRCO-RELiC dev queries in ``../shared`` with contrastive loss and in-batch
negatives, lr 1e-5, early stopping on the validation loss (10% of the pairs held out).
Those 30 queries are also the retrieval benchmark, so the trained model is only a
demonstration that the recipe runs and learns on this machine; it is never used for the
figures of ``bench_retrieval_birco.py``. Writes benchmarks/results/retriever_training.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from litlens.retrieval.training import train_retriever

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "birco-relic-dev"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-5)
    parser.add_argument("--out", default=str(HERE / "results" / "retriever_training.json"))
    args = parser.parse_args()
    if not Path(args.data).exists():
        print(f"no training data at {args.data} (../shared is absent?)", file=sys.stderr)
        return 2
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = train_retriever(
            args.data, Path(tmp) / "model", epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
            progress=lambda f, m: print(f"\r{100 * f:5.1f}% {m}", end="", file=sys.stderr),
        )
    print(file=sys.stderr)
    result.pop("output")
    result.update(data=os.path.relpath(args.data, HERE.parent), batch_size=args.batch_size, lr=args.lr, wall_seconds=round(time.perf_counter() - started, 1))
    Path(args.out).write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
