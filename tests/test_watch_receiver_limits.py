"""The ``assay watch`` receiver under hostile or broken clients, on a real socket: parallel
large bodies are bounded (503 + Retry-After beyond), slow headers and bodies are cut, only
loopback Host names reach a loopback receiver, a deep JSON body or a client gone mid-body is
one log line and a count (never a traceback), an unknown Content-Encoding is 415, and
``--idle nan`` / ``--grace inf`` exit 2."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import typer

from assay.judges import FakeJudge
from assay.run import JudgeOptions
from assay.watch import Watcher, WatchOptions, watch_async
from assay.watch._receiver import RETRY_AFTER_S

ROOT = Path(__file__).resolve().parents[1]
TRACE = "5b8efff798038103d269b633813fc60c"
EXPORT = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
    {"traceId": TRACE, "spanId": "eee19b7ec3c1b174", "name": "chat"}]}]}]}).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Lines(logging.Handler):
    """The records of the loggers it is attached to."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def of(self, name: str) -> list[str]:
        return [r.getMessage() for r in self.records if r.name.startswith(name)]


@contextmanager
def running_watch(tmp_path: Path, listen: str = "127.0.0.1", **options: Any
                  ) -> Iterator[tuple[Watcher, int, Lines]]:
    """``watch_async`` on a free port in a thread: ``(watcher, port, log records)``."""
    port = free_port()
    held: dict[str, Any] = {}
    started = threading.Event()

    def run() -> None:
        async def go() -> dict[str, Any]:
            def on_start(watcher: Watcher) -> None:
                held.update(watcher=watcher, loop=asyncio.get_running_loop())
                started.set()

            opts = WatchOptions(metrics="fluency", judge=FakeJudge(), listen=f"{listen}:{port}",
                                judging=JudgeOptions(cache=None), spool=tmp_path / "spool",
                                store=tmp_path / "runs.sqlite", status_every=0, **options)
            return await watch_async(opts, on_start=on_start)

        try:
            held["summary"] = asyncio.run(go())
        finally:
            started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(30) and "watcher" in held, "the watch did not start"
    lines = Lines()
    loggers = [logging.getLogger(n) for n in ("assay.watch", "uvicorn")]  # uvicorn.error: too
    for logger in loggers:
        logger.addHandler(lines)
    try:
        yield held["watcher"], port, lines
    finally:
        for logger in loggers:
            logger.removeHandler(lines)
        held["loop"].call_soon_threadsafe(held["watcher"].stop)
        thread.join(30)


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request with http.client: ``(status, headers, body)``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        conn.close()


def receiver_status(port: int) -> dict[str, Any]:
    status, _, body = request(port, "GET", "/v1/status")
    assert status == 200, body
    return json.loads(body)["receiver"]  # type: ignore[no-any-return]


def raw(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    return sock


def closed_within(sock: socket.socket, seconds: float, drip: bytes = b"") -> float | None:
    """Seconds until the server closes ``sock`` while one byte of ``drip`` is sent every
    0.1 s (``None``: still open after ``seconds``)."""
    start = time.monotonic()
    sock.settimeout(0.1)
    i = 0
    while time.monotonic() - start < seconds:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - start
        except TimeoutError:
            pass
        except ConnectionError:
            return time.monotonic() - start
        if i < len(drip):
            try:
                sock.sendall(drip[i:i + 1])
            except ConnectionError:
                return time.monotonic() - start
            i += 1
    return None


HEAD = (b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")


def test_parallel_large_bodies_are_bounded_and_the_rest_get_503_with_retry_after(
        tmp_path: Path) -> None:
    size, n = 300_000, 12
    with running_watch(tmp_path, max_body=400_000, max_bodies=3, max_buffered=800_000) as (
            _, port, lines):
        barrier = threading.Barrier(n)
        answers: list[bytes] = []

        def send(i: int) -> None:
            with raw(port) as sock:
                body = b"x" * size  # not JSON: read whole, then refused with 400
                if i % 2:  # chunked: no length known up front
                    sock.sendall(HEAD + b"Transfer-Encoding: chunked\r\n\r\n")
                    framed = [b"%x\r\n%s\r\n" % (len(body[j:j + 50_000]), body[j:j + 50_000])
                              for j in range(0, size, 50_000)]
                    first, rest = b"".join(framed[:3]), b"".join(framed[3:]) + b"0\r\n\r\n"
                else:
                    sock.sendall(HEAD + b"Content-Length: %d\r\n\r\n" % size)
                    first, rest = body[:150_000], body[150_000:]
                sock.sendall(first)
                barrier.wait(10)  # every body half sent before any is finished
                sock.sendall(rest)
                sock.settimeout(10)
                got = b""
                while b"\r\n\r\n" not in got:
                    got += sock.recv(65536)
                answers.append(got)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        codes = sorted(int(a.split(b" ")[1]) for a in answers)
        assert len(codes) == n and set(codes) <= {400, 503}, codes
        busy = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert busy and all(b"retry-after: %d" % RETRY_AFTER_S in a.lower() for a in busy)
        status = receiver_status(port)
        assert status["peak_buffered_bytes"] <= 800_000
        assert status["peak_bodies"] <= 3
        assert status["busy_refusals"] == len(busy)
        assert (status["bodies"], status["buffered_bytes"]) == (0, 0)  # all given back
        assert not lines.of("uvicorn")


def test_slow_headers_and_bodies_are_cut_and_counted(tmp_path: Path) -> None:
    with running_watch(tmp_path, header_timeout=0.5, body_timeout=0.8) as (watcher, port, lines):
        silent, dripping_head, dripping_body, drained = raw(port), raw(port), raw(port), raw(port)
        dripping_head.sendall(b"POST /v1/tr")
        dripping_body.sendall(HEAD + b"Content-Length: 1000\r\n\r\n{")
        drained.sendall(HEAD + b"Content-Length: 99999999\r\n\r\n")  # answered 413 at once
        took = [closed_within(silent, 5), closed_within(dripping_head, 5, b"aces HTTP/1.1\r\n"),
                closed_within(dripping_body, 5, b'"resourceSpans": []' * 3),
                closed_within(drained, 5, b"x" * 100)]
        assert all(t is not None and t < 3 for t in took), took
        # a client that keeps up is not cut, twice on one connection
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(2):
            conn.request("POST", "/v1/traces", body=EXPORT,
                         headers={"Content-Type": "application/json"})
            assert conn.getresponse().read() == b"{}"
        time.sleep(0.7)  # idle between requests: uvicorn's keep-alive, not a slow header
        conn.request("GET", "/v1/status")
        status = json.loads(conn.getresponse().read())["receiver"]
        conn.close()
        assert (status["header_timeouts"], status["body_timeouts"]) == (2, 2)
        assert status["disconnects"] == 0  # a cut body is said once, as a timeout
        assert len(lines.of("assay.watch")) == 4 and not lines.of("uvicorn")
        assert watcher.counts["rejected"] == 5  # the 413 and the four cuts


def test_many_slow_connections_are_all_cut(tmp_path: Path) -> None:
    with running_watch(tmp_path, header_timeout=0.5) as (_, port, _lines):
        socks = [raw(port) for _ in range(100)]
        for s in socks:
            s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: 1")
        time.sleep(1.5)
        assert all(closed_within(s, 2) is not None for s in socks)
        for s in socks:
            s.close()
        assert receiver_status(port)["header_timeouts"] == 100


def test_a_loopback_receiver_answers_loopback_host_names_only(tmp_path: Path) -> None:
    with running_watch(tmp_path) as (watcher, port, _):
        json_type = {"Content-Type": "application/json"}
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
            code, _, _ = request(port, "POST", "/v1/traces", EXPORT, {**json_type, "Host": host})
            assert code == 400, host
            assert request(port, "GET", "/v1/status", headers={"Host": host})[0] == 400
        assert TRACE not in watcher.spool.unfinished()  # a rebinding page spends nothing
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", f"[::1]:{port}"):
            code, _, _ = request(port, "POST", "/v1/traces", EXPORT, {**json_type, "Host": host})
            assert code == 200, host
        assert TRACE in watcher.spool.unfinished()


def test_a_remote_address_with_a_token_answers_any_host_name(tmp_path: Path) -> None:
    secret = "s3cret-watch-token-123456"
    with running_watch(tmp_path, listen="0.0.0.0", token=secret) as (watcher, port, _):
        headers = {"Content-Type": "application/json", "Host": f"watch.internal:{port}"}
        assert request(port, "POST", "/v1/traces", EXPORT, headers)[0] == 401
        headers["Authorization"] = f"Bearer {secret}"
        assert request(port, "POST", "/v1/traces", EXPORT, headers)[0] == 200
        assert TRACE in watcher.spool.unfinished()


def test_deep_json_and_a_client_gone_mid_body_are_one_line_and_a_count_each(
        tmp_path: Path) -> None:
    with running_watch(tmp_path) as (watcher, port, lines):
        deep = b"[" * 100_000 + b"]" * 100_000
        code, _, body = request(port, "POST", "/v1/traces", deep,
                                {"Content-Type": "application/json"})
        assert code == 400 and "nested too deeply" in json.loads(body)["message"]
        assert watcher.counts["bad_requests"] == 1
        with raw(port) as sock:  # an exporter giving up at its timeout, mid-body
            sock.sendall(HEAD + b"Content-Length: 100000\r\n\r\n" + b"{" * 1000)
            time.sleep(0.2)
        deadline = time.monotonic() + 5
        while receiver_status(port)["disconnects"] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver_status(port)["disconnects"] == 1
        said = lines.of("assay.watch")
        assert len(said) == 2, said
        assert "nested too deeply" in said[0] and "went away" in said[1]
        assert all("\n" not in line for line in said)
        assert not lines.of("uvicorn")  # no "Exception in ASGI application" traceback


def test_unknown_content_encodings_get_415_naming_gzip(tmp_path: Path) -> None:
    import zlib

    with running_watch(tmp_path) as (watcher, port, _):
        for encoding, body in (("br", EXPORT), ("deflate", zlib.compress(EXPORT)),
                               ("gzip, br", EXPORT), ("zstd", EXPORT)):
            code, _, answer = request(port, "POST", "/v1/traces", body, {
                "Content-Type": "application/json", "Content-Encoding": encoding})
            assert code == 415, encoding
            assert "gzip" in json.loads(answer)["message"]
        assert TRACE not in watcher.spool.unfinished()
        assert watcher.counts["bad_requests"] == 4
        code, _, _ = request(port, "POST", "/v1/traces", EXPORT, {
            "Content-Type": "application/json", "Content-Encoding": "identity"})
        assert code == 200


def test_idle_nan_exits_2_naming_the_flag(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}"
           f"{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-m", "assay", "watch", "--metrics", "fluency", "--judge", "fake",
         "--listen", "off", "--follow", "t.jsonl", "--idle", "nan"],
        check=False, capture_output=True, text=True, timeout=30, env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Invalid value for '--idle': Got nan" in done.stderr and "finite" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("times", [{"idle": float("nan")}, {"idle": float("inf")},
                                   {"grace": float("inf")}, {"grace": float("nan")},
                                   {"header_timeout": float("inf")}, {"body_timeout": 0}])
def test_seconds_must_be_finite(times: dict[str, float]) -> None:
    from assay.cli.watch import finite_seconds
    from assay.errors import ConfigError

    with pytest.raises(ConfigError, match="finite"):
        WatchOptions(metrics="fluency", listen=None, follow=["x"], **times)
    value = next(iter(times.values()))
    if value != 0:
        with pytest.raises(typer.BadParameter, match="finite"):
            finite_seconds(value)


def test_a_logs_body_nested_too_deeply_is_a_400_too() -> None:
    """/v1/logs reads its body as /v1/traces does: deep JSON is a 400 with the reason."""
    from starlette.testclient import TestClient

    from assay.watch._receiver import receiver_app

    class Intake:
        token, max_body = None, 1 << 20

        def backlog_full(self) -> bool:
            return False

        def rejected(self, why: str) -> None:
            pass

        def status(self) -> dict[str, int]:
            return {}

    client = TestClient(receiver_app(Intake()), raise_server_exceptions=False)  # type: ignore[arg-type]
    answer = client.post("/v1/logs", content=b'{"resourceLogs": ' + b"[" * 100_000,
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["message"] == "the body is not OTLP JSON: it is nested too deeply"
