"""Rubric prefixes kept across runs (``assay.judges._prefix_slots``): which slot a request goes
to, when a prefix is restored or saved, and that only a system prompt shared by two requests
reaches the disk."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from assay.judges._prefix_slots import MAX_FILES, PrefixSlots, prefix_cache_dir


def _msgs(system: str, user: str = "row text") -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def test_each_system_prompt_keeps_its_slot_and_the_least_recent_is_taken_over() -> None:
    slots = PrefixSlots(n_slots=3, directory=None)
    got = [slots.plan(_msgs(s)).slot for s in ("a", "b", "c", "a", "d", "b")]
    # d takes b's slot (b was least recently used after a was used again), then b takes c's
    assert got == [0, 1, 2, 0, 1, 2]


def test_a_request_without_a_system_prompt_is_not_pinned() -> None:
    slots = PrefixSlots(n_slots=2, directory=None)
    plan = slots.plan([{"role": "user", "content": "hi"}])
    assert plan.slot is None and plan.restore is None and plan.save is None


def test_saved_once_after_the_second_request_with_the_system_prompt_alone(tmp_path: Path) -> None:
    slots = PrefixSlots(n_slots=2, directory=tmp_path)
    first = slots.plan(_msgs("rubric", "row one"))
    second = slots.plan(_msgs("rubric", "row two"))
    third = slots.plan(_msgs("rubric", "row three"))
    assert first.save is None  # one request: maybe a row's own text, never stored
    assert second.save and second.save.endswith(".bin")
    assert second.system == ({"role": "system", "content": "rubric"},)
    assert "row" not in str(second.system)
    assert third.save is None  # once per process
    assert slots.plan(_msgs("other")).save is None


def test_no_directory_means_nothing_saved() -> None:
    slots = PrefixSlots(n_slots=2, directory=None)
    assert [slots.plan(_msgs("r")).save for _ in range(3)] == [None, None, None]


def test_a_file_on_disk_is_restored_on_first_use_and_not_saved_again(tmp_path: Path) -> None:
    writer = PrefixSlots(n_slots=2, directory=tmp_path)
    writer.plan(_msgs("rubric"))
    name = writer.plan(_msgs("rubric")).save
    assert name is not None
    (tmp_path / name).write_bytes(b"kv")
    reader = PrefixSlots(n_slots=2, directory=tmp_path)
    plans = [reader.plan(_msgs("rubric", f"row {i}")) for i in range(3)]
    # the file to restore from where the slot lacks the prefix (the judge knows: on first use)
    assert [p.restore for p in plans] == [name, name, name]
    assert all(p.save is None for p in plans)


def test_a_prefix_taken_out_of_its_slot_is_restored_again(tmp_path: Path) -> None:
    slots = PrefixSlots(n_slots=1, directory=tmp_path)
    slots.plan(_msgs("a"))
    name = slots.plan(_msgs("a")).save
    (tmp_path / str(name)).write_bytes(b"kv")
    slots.plan(_msgs("b"))  # the only slot now holds b
    assert slots.plan(_msgs("a")).restore == name


def test_forget_removes_a_file_that_failed_to_restore(tmp_path: Path) -> None:
    (tmp_path / "x.bin").write_bytes(b"broken")
    PrefixSlots(n_slots=1, directory=tmp_path).forget("x.bin")
    assert not (tmp_path / "x.bin").exists()


def test_saved_keeps_the_most_recent_files(tmp_path: Path) -> None:
    now = time.time()
    for i in range(MAX_FILES + 3):
        f = tmp_path / f"{i:03d}.bin"
        f.write_bytes(b"kv")
        os.utime(f, (now - 1000 + i, now - 1000 + i))
    PrefixSlots(n_slots=1, directory=tmp_path).saved(f"{MAX_FILES + 2:03d}.bin")
    left = sorted(p.name for p in tmp_path.glob("*.bin"))
    assert len(left) == MAX_FILES and "000.bin" not in left and "002.bin" not in left


@pytest.mark.parametrize("setting", ["off", "0", "no", "FALSE"])
def test_prefix_cache_off(monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setenv("ASSAY_PREFIX_CACHE", setting)
    assert prefix_cache_dir("model") is None


def test_prefix_cache_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    got = prefix_cache_dir("model")
    assert got is not None and got.parts[-2:] == ("kv-prefixes", "model")
    assert str(got).startswith(str(tmp_path))


def test_a_plan_names_its_system_prompt_alone_to_fill_the_slot_with() -> None:
    slots = PrefixSlots(n_slots=1, directory=None)
    plans = [slots.plan(_msgs(s, "row")) for s in ("a", "a", "b", "a")]
    assert [p.restore for p in plans] == [None] * 4  # nothing on disk: the judge fills
    assert plans[2].system == ({"role": "system", "content": "b"},)
    assert plans[0].key == plans[1].key == plans[3].key != plans[2].key
