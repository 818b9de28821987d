"""Start ``../shared/bench/fake_judge.py`` on a free loopback port for a benchmark."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"


class FakeJudge:
    """Context manager: a fake judge process and its request log."""

    def __init__(self, *args: str, log: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = log
        self.args = args

    def __enter__(self) -> Self:
        self.proc = subprocess.Popen(
            [sys.executable, str(BENCH / "fake_judge.py"), "--port", str(self.port), "--log",
             str(self.log), "--max-seconds", "900", *self.args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        return self

    def records(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(x) for x in self.log.read_text().splitlines() if x.strip()]

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
