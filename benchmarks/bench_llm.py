"""LLM attribution on this machine: generation speed and the seed-003 protocol on PDNC.

    .venv/bin/python benchmarks/bench_llm.py                      # speed + two short novels
    .venv/bin/python benchmarks/bench_llm.py --speed-only
    .venv/bin/python benchmarks/bench_llm.py --novels DaisyMiller --backend gguf

Writes benchmarks/results/llm_speed_<backend>.json and benchmarks/results/llm_attribution_<model>.json.
Chunk answers are cached in the per-user evaluation cache (see
``litlens.services.llm_attribution.default_eval_cache``), so an interrupted run resumes and a
second run only re-scores; pass ``--cache PATH`` for a fresh cache (a true cold run).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
PDNC = ROOT.parent / "shared" / "data" / "pdnc"

SPEED_PROMPT = (
    "Characters of the novel:\n- Elizabeth Bennet\n- Mr. Darcy\n- Mrs. Bennet\n\n"
    'Passage:\n[Q1]"You are too hasty, sir," she cried. [Q2]"I have not the pleasure of '
    'understanding you," replied he.\n\nFor each tag [Q1] to [Q2], name the speaker. Reply with '
    'JSON only: {"1": "<character name>", "2": "<character name>"}'
)


def _portable(name: str) -> str:
    """A backend or model name without this machine's site-packages directory in it."""
    import sysconfig

    return name.replace(sysconfig.get_paths()["purelib"], "<site-packages>")


def measure_speed(kind: str, model: str | None, new_tokens: int, repeats: int) -> dict:
    from litlens.llm import load_backend

    t0 = time.perf_counter()
    backend = load_backend(kind, model)
    load_s = time.perf_counter() - t0
    conv = [{"role": "user", "content": SPEED_PROMPT}]
    backend.chat([conv], max_new_tokens=8)  # warm-up
    per_token = []
    outputs = []
    for _ in range(repeats):
        before_tokens = backend.stats.generated_tokens
        before_s = backend.stats.seconds
        # Ask for a long answer so generation (not the prompt) dominates.
        story = [{"role": "user", "content": "Write a long story about Elizabeth Bennet and Mr. Darcy."}]
        backend.chat([story], max_new_tokens=new_tokens)
        n = backend.stats.generated_tokens - before_tokens
        s = backend.stats.seconds - before_s
        per_token.append(s / max(1, n))
        outputs.append(n)
    per_token.sort()
    median = per_token[len(per_token) // 2]
    return {
        "backend": _portable(backend.name),
        "context_window": backend.context_window,
        "load_seconds": round(load_s, 2),
        "generated_tokens_per_run": outputs,
        "ms_per_token_median": round(1000 * median, 1),
        "tokens_per_second_median": round(1 / median, 2),
        "answer": backend.chat([conv], max_new_tokens=40)[0],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="transformers", choices=["transformers", "gguf", "openai"])
    ap.add_argument("--model", default=None)
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--novels", default="DaisyMiller,AlicesAdventuresInWonderland",
                    help="two short PDNC novels (11 and 12 chunks; The Awakening, as short, has 34 short chapters)")
    ap.add_argument("--pdnc", default=str(PDNC))
    ap.add_argument("--cache", default=None, help="cache project file (default: the per-user evaluation cache)")
    ap.add_argument("--speed-only", action="store_true")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    RESULTS.mkdir(parents=True, exist_ok=True)
    machine = {"python": platform.python_version(), "machine": platform.machine(), "processor": platform.processor()}
    try:
        import os

        machine["cpus"] = os.cpu_count()
    except Exception:  # noqa: BLE001
        pass

    speed = measure_speed(args.backend, args.model, args.tokens, args.repeats) if args.backend != "openai" else None
    if speed:
        speed["machine"] = machine
        (RESULTS / f"llm_speed_{args.backend}.json").write_text(json.dumps(speed, indent=2) + "\n")
        print(json.dumps(speed, indent=2), flush=True)
    if args.speed_only:
        return 0

    from litlens.services.llm_attribution import evaluate_llm

    def progress(fraction: float, message: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {100 * fraction:5.1f}% {message}", flush=True)

    result = evaluate_llm(
        args.pdnc, novels=args.novels, quotes="gold", characters="gold", backend=args.backend,
        model=args.model, base_url=args.base_url, progress=progress, cache_path=args.cache,
    )
    result["machine"] = machine
    result["model"] = _portable(str(result.get("model", "")))
    label = result["method"].split(":", 1)[-1].replace("/", "_")
    out = RESULTS / f"llm_attribution_{label}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("novels", "pooled", "generation", "seconds") if k in result}, indent=2))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
