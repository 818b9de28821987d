"""A budget stop and its resume, measured: ``assay run --max-cost`` at half of a run's cost.

Runs the bench's qa50 with the default judge metrics against the fake judge three ways, each
as the CLI in a subprocess, its judge cache in a temporary folder: uninterrupted; with
``--max-cost`` at half the uninterrupted run's cost (priced at the judge's list price from the
fake judge's own usage log); then ``--resume`` without a budget. Prints a table: requests,
tokens and dollars of each, the budget, what was in flight when it was reached, the exit codes,
and whether spend <= budget + in flight and total == uninterrupted (+-1 request) hold.

    .venv/bin/python benchmarks/budget_stop.py
    .venv/bin/python benchmarks/budget_stop.py --rows 20 --latency-ms 50 --share 0.3
    .venv/bin/python benchmarks/budget_stop.py --engine ray   # the budget shared by 2 workers
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _fake_server import BENCH, FakeJudge

#: gpt-4o-mini's list price, US dollars per prompt / completion token.
PRICE_IN, PRICE_OUT = 0.15e-6, 0.6e-6
METRICS = "coherence,fluency,groundedness,relevance,similarity"


def _usd(records: list[dict]) -> float:
    return sum(r["prompt_tokens"] * PRICE_IN + r["completion_tokens"] * PRICE_OUT
               for r in records)


def _run(tmp: Path, base_url: str, data: Path, out: str, *extra: str) -> int:
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench",
           "XDG_CACHE_HOME": str(tmp / "xdg")}
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", "assay.cli", "run", str(data), "--metrics",
                           METRICS, "--judge", "openai:gpt-4o-mini", "--out", str(tmp / out),
                           "--no-store", "-q", *extra], env=env, capture_output=True,
                          text=True, check=False)
    if proc.returncode not in (0, 6):
        raise SystemExit(f"assay run exited {proc.returncode}:\n{proc.stderr}")
    return proc.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=50, help="rows of qa50 (default all)")
    ap.add_argument("--latency-ms", default="30", help="the fake judge's latency")
    ap.add_argument("--share", type=float, default=0.5, help="the budget, as a share of cost")
    ap.add_argument("--engine", choices=["local", "ray"], default="local",
                    help="where the three runs score (ray: 2 workers, --concurrency 8)")
    args = ap.parse_args()
    engine = (("--engine", "ray", "--ray-workers", "2", "--concurrency", "8")
              if args.engine == "ray" else ())
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        data = tmp / "qa.jsonl"
        lines = (BENCH / "qa50.jsonl").read_text().splitlines()[:args.rows]
        data.write_text("".join(x + "\n" for x in lines))
        with FakeJudge("--latency-ms", args.latency_ms, log=tmp / "whole.jsonl") as judge:
            _run(tmp, judge.base_url, data, "whole", "--cache", str(tmp / "a.sqlite"), *engine)
            whole = judge.records()
        cost, most = _usd(whole), max(_usd([r]) for r in whole)
        budget = cost * args.share
        with FakeJudge("--latency-ms", args.latency_ms, log=tmp / "split.jsonl") as judge:
            cache = ("--cache", str(tmp / "b.sqlite"))
            stop_code = _run(tmp, judge.base_url, data, "split", *cache, *engine,
                             "--max-cost", f"{budget:.10f}")
            stopped = judge.records()
            resume_code = _run(tmp, judge.base_url, data, "split", *cache, *engine, "--resume")
            split = judge.records()
        spent = _usd(stopped)
        over = max(0.0, spent - budget)
        rows = [("uninterrupted", len(whole), sum(r["prompt_tokens"] + r["completion_tokens"]
                                                  for r in whole), cost, 0),
                (f"--max-cost {budget:.6f}", len(stopped),
                 sum(r["prompt_tokens"] + r["completion_tokens"] for r in stopped), spent,
                 stop_code),
                ("then --resume", len(split) - len(stopped),
                 sum(r["prompt_tokens"] + r["completion_tokens"] for r in split[len(stopped):]),
                 _usd(split[len(stopped):]), resume_code),
                ("stopped + resumed", len(split),
                 sum(r["prompt_tokens"] + r["completion_tokens"] for r in split), _usd(split),
                 None)]
    print(f"qa50 ({args.rows} rows), metrics {METRICS}, fake judge at {args.latency_ms} ms, "
          f"priced as gpt-4o-mini, engine {args.engine}")
    print(f"{'run':28} {'requests':>9} {'tokens':>9} {'USD':>10} {'exit':>5}")
    for label, n, tokens, usd, code in rows:
        print(f"{label:28} {n:>9} {tokens:>9} {usd:>10.6f} {'' if code is None else code:>5}")
    print(f"budget ${budget:.6f}: spent ${spent:.6f} ({spent / budget:.1%} of it), "
          f"past it by ${over:.6f} = {over / most:.2f} of the costliest request")
    print(f"spend <= budget + in flight: {spent <= budget + most}; total requests "
          f"{len(split)} vs uninterrupted {len(whole)}: within 1: "
          f"{abs(len(split) - len(whole)) <= 1}")


if __name__ == "__main__":
    main()
