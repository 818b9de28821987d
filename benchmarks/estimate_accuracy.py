"""``--estimate`` against the command itself, for ``assay run``, ``assay generate`` and
``assay simulate --scenarios``.

``run``: qa50 with the default metrics on the fake
judge (``../shared/bench/fake_judge.py``, which reports usage: prompt tokens counted as
``ceil(chars / 4)`` of the messages + 4 per message + 3 + the JSON schema, completion tokens
of its answer the same way), with a fresh judge cache (what a first run has: identical
requests are sent once).

Runs ``assay run qa50 --judge openai:gpt-4o-mini --estimate --json -`` (nothing sent: the
benchmark checks the fake judge's log stays empty), then the same run for real, and prints
estimate (low / expected / high) against actual (``summary.json``'s ``judge``) for requests,
prompt tokens, completion tokens and dollars (gpt-4o-mini's price from genai-prices on both sides: the run's ``summary.json``
cost), with
the error of the expected figure. The bars: prompt tokens within +-2%, cost within +-10%.

``generate``: qa50's contexts as documents, ``--n 20`` with every kind, the judge the fake one
(see :mod:`_estimate_commands`); ``simulate``: 20 scenarios from qa50's questions (at most 3
user turns), the simulated user and the app (``--target openai:gpt-4o-mini``) both the fake
judge. Each is estimated before its run and again after it (the run's files in ``--out``
measured: an earlier generation's outcomes, an earlier simulation's turns and lengths).

    .venv/bin/python benchmarks/estimate_accuracy.py [--data ../shared/bench/qa50.jsonl]
    .venv/bin/python benchmarks/estimate_accuracy.py --only generate,simulate,jailbreak

``jailbreak``: 10 shipped seeds asked plain and injected (``--strategy template``), the app and
the judge both the fake judge (the estimate reads no earlier run: after = before).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _estimate_commands import bench_generate, bench_jailbreak, bench_simulate, print_table
from _fake_server import BENCH, ROOT, FakeJudge

sys.path.insert(0, str(ROOT / "src"))
from assay.costs import PriceBook, Usage

MODEL = "gpt-4o-mini"


def assay(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m assay ARGS`` on this checkout's source."""
    return subprocess.run([sys.executable, "-m", "assay", *args], capture_output=True,
                          text=True, env={**env, "PYTHONPATH": str(ROOT / "src")}, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=BENCH / "qa50.jsonl")
    parser.add_argument("--only", default="run,generate,simulate,jailbreak",
                        help="which commands to measure (comma-separated)")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if "run" in only:
        bench_run(args.data)
    for name, bench in (("generate", bench_generate), ("simulate", bench_simulate),
                        ("jailbreak", bench_jailbreak)):
        if name in only:
            print()
            print_table(*bench(args.data, assay))


def bench_run(data: Path) -> None:
    """``assay run --estimate`` against the run (the table above)."""
    book = PriceBook.load()
    with tempfile.TemporaryDirectory() as tmp, FakeJudge(log=Path(tmp) / "log.jsonl") as fake:
        env = {**os.environ, "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-bench"}
        common = [str(data), "--judge", f"openai:{MODEL}", "--embeddings",
                  f"openai:text-embedding-3-small@{fake.base_url}", "--cache",
                  str(Path(tmp) / "cache.sqlite"),
                  "--no-store", "--no-progress", "--out", str(Path(tmp) / "out")]
        est = assay(["run", *common, "--estimate", "--json", "-"], env)
        if est.returncode != 0:
            sys.exit(f"--estimate failed ({est.returncode}):\n{est.stderr}")
        sent = len(fake.records())
        estimate = json.loads(est.stdout)
        real = assay(["run", *common, "--overwrite"], env)  # a fresh cache: nothing cached
        if real.returncode not in (0, 1):
            sys.exit(f"the run failed ({real.returncode}):\n{real.stderr}")
        summary = json.loads((Path(tmp) / "out" / "summary.json").read_text())
        judge = summary["judge"]
        # again, with the run's summary.json in OUT: the measured completion tokens per request
        cache_at = common.index("--cache")
        no_cache = [*common[:cache_at], "--no-cache", *common[cache_at + 2:]]
        again = assay(["run", *no_cache, "--estimate", "--json", "-"], env)
        measured = json.loads(again.stdout)
    actual = {"requests": judge["requests"], "prompt_tokens": judge["prompt_tokens"],
              "completion_tokens": judge["completion_tokens"]}
    # the run's own cost (summary.json), else its tokens priced the same way
    actual["usd"] = (summary.get("cost") or {}).get("usd") or book.cost(MODEL, Usage(
        prompt_tokens=actual["prompt_tokens"], completion_tokens=actual["completion_tokens"])).usd
    print(f"{data.name}, default metrics, judge openai:{MODEL} (fake judge); "
          f"requests sent by --estimate: {sent}")
    print(f"{'figure':<18}{'low':>12}{'expected':>12}{'high':>12}{'actual':>12}{'error':>9}")
    errors = {}
    for key in ("requests", "prompt_tokens", "completion_tokens", "usd"):
        span = estimate[key]
        fmt = "{:>12.4f}" if key == "usd" else "{:>12,}"
        errors[key] = (span["expected"] - actual[key]) / actual[key] if actual[key] else 0.0
        print(f"{key:<18}" + "".join(fmt.format(span[p]) for p in ("low", "expected", "high"))
              + fmt.format(actual[key]) + f"{errors[key]:>+9.1%}")
    print("after the run, --estimate --no-cache with the same OUT (its summary.json measured "
          "the completion tokens per request):")
    for key in ("requests", "prompt_tokens", "completion_tokens", "usd"):
        got = measured[key]["expected"]
        print(f"  {key:<18}expected {got:,} vs actual {actual[key]:,} "
              f"({(got - actual[key]) / actual[key]:+.1%})")
    ok = abs(errors["prompt_tokens"]) <= 0.02 and abs(errors["usd"]) <= 0.10 and sent == 0
    print(f"bars: prompt tokens +-2%, cost +-10%, nothing sent: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
