"""The embedded judge's slots with requests in parallel (``assay.judges._local``), on a scripted
llama.cpp server: requests of different rubrics run at once, requests sharing a rubric take
turns on its slot, and a slot is given its system prompt (restored or computed) exactly when it
does not hold it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from assay.errors import ConfigError
from assay.judges import JudgeRequest, _local
from assay.judges._local import LocalJudge
from assay.judges._prefix_slots import PrefixSlots


class ScriptedServer:
    """Stands in for xllamacpp's server: records each chat and slot action, per slot."""

    def __init__(self, hold_s: float = 0.0) -> None:
        self.hold_s = hold_s
        self.log: list[tuple[str, int, str]] = []  # (kind, slot, system prompt or file)
        self.busy: dict[int, int] = {}
        self.most_at_once = 0
        self.overlap_on_a_slot = False
        self._lock = threading.Lock()

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        slot = body["id_slot"]
        with self._lock:
            self.busy[slot] = self.busy.get(slot, 0) + 1
            self.overlap_on_a_slot |= self.busy[slot] > 1
            self.most_at_once = max(self.most_at_once, sum(self.busy.values()))
            kind = "fill" if body["messages"][-1]["role"] == "system" else "chat"
            self.log.append((kind, slot, body["messages"][0]["content"]))
        time.sleep(self.hold_s)
        with self._lock:
            self.busy[slot] -= 1
        return {"choices": [{"message": {"content": "5"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 1},
                "timings": {"prompt_n": 3, "predicted_n": 1}}


def _judge(monkeypatch: pytest.MonkeyPatch, server: ScriptedServer, *, slots: int,
           parallel: int, directory: Path | None = None,
           restorable: bool = True) -> LocalJudge:
    judge = LocalJudge(slots=slots, parallel=parallel)
    judge._server = object()
    judge._prefixes = PrefixSlots(slots, directory)
    monkeypatch.setattr(_local, "_chat", lambda _server, body: server.chat(body))

    def slot_action(_server: Any, slot: int, action: str, filename: str) -> bool:
        server.log.append((action, slot, filename))
        if action == "save" and directory is not None:
            (directory / filename).write_bytes(b"kv")  # as llama.cpp's save would
        return restorable

    monkeypatch.setattr(judge, "_slot_action", slot_action)
    return judge


def _request(system: str | None, row: str) -> JudgeRequest:
    head = [] if system is None else [{"role": "system", "content": system}]
    return JudgeRequest(messages=[*head, {"role": "user", "content": row}], schema_name="t",
                        max_tokens=1)


async def _all(judge: LocalJudge, requests: list[JudgeRequest]) -> list[Any]:
    return await asyncio.gather(*(judge.complete(r) for r in requests))


def test_requests_of_different_rubrics_run_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer(hold_s=0.05)
    judge = _judge(monkeypatch, server, slots=4, parallel=4)
    asyncio.run(_all(judge, [_request(f"rubric {i}", "row") for i in range(4)]))
    assert server.most_at_once >= 2  # fills and answers of several rubrics overlapped
    assert not server.overlap_on_a_slot


def test_requests_sharing_a_rubric_take_turns_on_its_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer(hold_s=0.02)
    judge = _judge(monkeypatch, server, slots=4, parallel=4)
    asyncio.run(_all(judge, [_request("one rubric", f"row {i}") for i in range(4)]))
    assert server.most_at_once == 1
    assert [k for k, _, _ in server.log] == ["fill", "chat", "chat", "chat", "chat"]


def test_one_at_a_time_when_parallel_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer(hold_s=0.02)
    judge = _judge(monkeypatch, server, slots=4, parallel=1)
    assert judge.max_concurrency == 1
    assert LocalJudge().max_concurrency == _local.PARALLEL
    monkeypatch.setenv("ASSAY_LOCAL_PARALLEL", "2")
    assert LocalJudge().max_concurrency == 2
    monkeypatch.setenv("ASSAY_LOCAL_PARALLEL", "many")
    with pytest.raises(ConfigError, match="Got ASSAY_LOCAL_PARALLEL='many'. Must be a whole"):
        LocalJudge()


def test_a_slot_taken_over_by_another_rubric_gets_its_prompt_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer()
    judge = _judge(monkeypatch, server, slots=1, parallel=1)
    for system in ("a", "a", "b", "a"):
        asyncio.run(judge.complete(_request(system, "row")))
    fills = [(slot, system) for kind, slot, system in server.log if kind == "fill"]
    assert fills == [(0, "a"), (0, "b"), (0, "a")]  # never twice in a row for one holder


def test_a_saved_prefix_is_restored_instead_of_computed(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer()
    judge = _judge(monkeypatch, server, slots=2, parallel=2, directory=tmp_path)
    for _ in range(2):  # the second request saves the prefix
        asyncio.run(judge.complete(_request("rubric", "row")))
    assert [k for k, _, _ in server.log] == ["fill", "chat", "chat", "fill", "save"]
    assert [f.name for f in tmp_path.iterdir()] == [f"{judge._prefixes.plan(_request('rubric', 'r').messages).key}.bin"]
    server.log.clear()
    later = _judge(monkeypatch, server, slots=2, parallel=2, directory=tmp_path)
    asyncio.run(_all(later, [_request("rubric", f"row {i}") for i in range(3)]))
    assert [k for k, _, _ in server.log] == ["restore", "chat", "chat", "chat"]


def test_a_prefix_file_that_fails_to_restore_is_removed_and_computed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer()
    writer = PrefixSlots(1, tmp_path)
    writer.plan(_request("rubric", "x").messages)
    name = writer.plan(_request("rubric", "y").messages).save
    (tmp_path / str(name)).write_bytes(b"broken")
    judge = _judge(monkeypatch, server, slots=1, parallel=1, directory=tmp_path,
                   restorable=False)
    asyncio.run(judge.complete(_request("rubric", "row")))
    assert [k for k, _, _ in server.log] == ["restore", "fill", "chat"]
    assert not (tmp_path / str(name)).exists()


def test_requests_without_a_system_prompt_keep_off_the_rubric_slots(
        monkeypatch: pytest.MonkeyPatch) -> None:
    server = ScriptedServer()
    judge = _judge(monkeypatch, server, slots=2, parallel=2)
    asyncio.run(_all(judge, [_request("rubric", "row"), _request(None, "just a row")]))
    slots = {text: slot for kind, slot, text in server.log if kind == "chat"}
    assert slots["just a row"] == 2  # the slot after the rubric slots
    assert slots["rubric"] in (0, 1)
