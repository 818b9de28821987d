"""What the shared spending limit costs a Ray run: one reserve / settle round trip to the
spend actor per judge request (``--max-cost`` / ``--max-tokens`` with ``--engine ray``).

Starts a local Ray, one :class:`~assay.calls._ray_spend.SpendActor` and a client as a worker
holds it, then times ``--requests`` reservations settled one at a time, and the same number
all at once (the actor's throughput). Prints milliseconds per request for each.

    .venv/bin/python benchmarks/ray_spend_overhead.py
    .venv/bin/python benchmarks/ray_spend_overhead.py --requests 2000
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time

import ray

from assay.calls import SpendClient, start_spend_actor


async def _measure(actor: object, n: int) -> tuple[float, float]:
    client = SpendClient(actor, max_cost=1e9, max_tokens=None)

    async def one() -> None:
        held = await client.reserve(tokens=500, usd=1e-4)
        assert held is not None
        client.settle(held, tokens=450, usd=9e-5)

    await one()  # the actor's first call
    began = time.perf_counter()
    for _ in range(n):
        await one()
    await client.flush()
    serial = (time.perf_counter() - began) / n
    began = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    await client.flush()
    return serial, (time.perf_counter() - began) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=500)
    args = ap.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    try:
        serial, together = asyncio.run(_measure(start_spend_actor(max_cost=1e9), args.requests))
    finally:
        ray.shutdown()
    print(f"{args.requests} requests: {serial * 1000:.2f} ms each one at a time; "
          f"{together * 1000:.2f} ms each all at once ({1 / together:.0f} requests/s)")


if __name__ == "__main__":
    main()
