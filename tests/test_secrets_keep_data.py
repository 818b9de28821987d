"""The secret masker masks secrets, not data (issue item 7): a dataset path under folders named
by a hash, OTLP trace and span ids, uuids, digests and tool-call ids stay whole in the run
store, the summary, the results, the stored row inputs and the warnings; sk- keys, the
configured key (whatever its shape) and URL passwords are still masked in all of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from assay import _secrets
from assay._secrets import mask_secrets, remember_secret, sanitize
from assay.judges import FakeJudge
from assay.store import open_store
from test_watch_flow import options, run_until
from test_watch_receiver import chat_span, export

ASSAY = [sys.executable, "-m", "assay.cli"]
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN_IDS = ("00f067aa0ba902b7", "53995c3f42cd8ad8", "a3ce929d0e0e4736")
BAD_SPAN = "b7ad6b7169203331"
SK_KEY = "sk-proj-Zx81Qw72Er63Ty54Ui45"
#: The configured key, of no shape a rule knows: masked by its value.
ODD_KEY = "plain.Odd-key_of~any.shape"
PASSWORD = "Pa55word-xyz"
#: Folders named as caches name them: a sha256, a git commit, a base64url digest.
HASHED = (hashlib.sha256(b"qa").hexdigest(), hashlib.sha1(b"qa").hexdigest(),
          "Zx81Qw72Er63Ty54Ui45aBcDeF")
QUESTION = (f"My key {SK_KEY} and {ODD_KEY} fail at https://bob:{PASSWORD}@h.example/v1; "
            f"request {uuid.UUID(int=7)} in trace {TRACE_ID}?")
MASKED_QUESTION = ("My key *** and *** fail at https://bob:***@h.example/v1; "
                   f"request {uuid.UUID(int=7)} in trace {TRACE_ID}?")
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOL = {"type": "function", "name": "get_weather", "description": "Weather of a city",
        "parameters": PARAMS}


def _span(span_id: str, start: int, attrs: dict[str, Any], parent: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": TRACE_ID, "spanId": span_id, "name": span_id,
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 5),
        "attributes": [{"key": k, "value": {"stringValue": v if isinstance(v, str)
                                                          else json.dumps(v)}}
                       for k, v in attrs.items()]}
    if parent:
        out["parentSpanId"] = parent
    return out


def _trace_file(folder: Path) -> Path:
    """One OTLP trace (hex ids) whose user message holds the secrets, with one span that cannot
    be read (its warning names the trace and the span)."""
    def text(role: str, content: str) -> dict[str, Any]:
        return {"role": role, "parts": [{"type": "text", "content": content}]}
    root, chat, bad = SPAN_IDS[0], SPAN_IDS[1], BAD_SPAN
    spans = [
        _span(root, 50, {"gen_ai.operation.name": "invoke_agent"}, None),
        _span(chat, 100, {"gen_ai.operation.name": "chat", "gen_ai.tool.definitions": [TOOL],
                          "gen_ai.input.messages": [text("user", QUESTION)],
                          "gen_ai.output.messages": [text("assistant", "Sorry.")]}, root),
        _span(bad, 150, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": "{not json"},
              root)]
    export = {"resourceSpans": [{"resource": {"attributes": []},
                                 "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]}
    folder.mkdir(parents=True)
    path = folder / "traces.jsonl"
    path.write_text(json.dumps(export) + "\n", encoding="utf-8")
    return path


def test_a_run_keeps_its_dataset_path_and_trace_ids_and_masks_the_keys(tmp_path: Path) -> None:
    cache = tmp_path / ".cache"  # where XDG caches are: the dot ended the old rule's path check
    data = _trace_file(cache.joinpath("assay", "datasets", *HASHED))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AZURE_OPENAI_", "ASSAY_"))}
    env.update(OPENAI_API_KEY=ODD_KEY, NO_COLOR="1", XDG_CACHE_HOME=str(cache),
               XDG_DATA_HOME=str(tmp_path / "xdg-data"))
    out = tmp_path / "out"
    proc = subprocess.run([*ASSAY, "run", str(data), "--judge", "fake", "--metrics",
                           "fluency", "--out", str(out)], check=False, env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    # the warning about the unreadable span names its trace and span as they are
    assert f"trace {TRACE_ID} span {BAD_SPAN}" in proc.stderr, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    [result] = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert result["id"] == TRACE_ID and result["fluency"]["value"] is not None
    (store_path,) = (tmp_path / "xdg-data").rglob("runs.sqlite")
    with open_store(store_path) as store:
        info = store.get(summary["run_id"])
        inputs = store.inputs(info.id, [TRACE_ID])[TRACE_ID]
    # the dataset path, every hash-named folder whole, in the store and the summary
    assert info.dataset == str(data)
    assert summary["dataset"] == info.summary["dataset"] == str(data)
    # the row's stored inputs: ids whole, the secrets in its text masked
    assert inputs["extra"]["trace_id"] == TRACE_ID
    assert inputs["messages"][0]["content"] == MASKED_QUESTION
    secrets = (SK_KEY, ODD_KEY, PASSWORD)
    assert not [s for s in secrets if s in proc.stdout + proc.stderr]
    written = [f for f in tmp_path.rglob("*") if f.is_file() and f != data]
    assert not [(f, s) for f in written for s in secrets if s.encode() in f.read_bytes()]


def test_a_watched_trace_keeps_its_ids_in_the_stored_inputs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ODD_KEY)
    path = tmp_path / "traces.jsonl"
    span = chat_span(TRACE_ID, SPAN_IDS[1], question=QUESTION)
    path.write_text(json.dumps(export(span)) + "\n", encoding="utf-8")
    summary = run_until(options(tmp_path, path, FakeJudge()), lambda w: w.counts["scored"] >= 1)
    with open_store(tmp_path / "runs.sqlite") as store:
        (record,) = store.rows(summary["run_id"])
        inputs = store.inputs(summary["run_id"], [TRACE_ID])[TRACE_ID]
    assert record["id"] == record["watch"]["trace_id"] == TRACE_ID
    assert inputs["extra"]["trace_id"] == TRACE_ID
    assert inputs["messages"][0]["content"] == MASKED_QUESTION


def test_the_store_keeps_digests_and_commit_tags_and_masks_keys_in_tags(tmp_path: Path) -> None:
    digest, commit = HASHED[0], HASHED[1]
    with open_store(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(tags=[f"commit={commit}", f"key={SK_KEY}"],
                                  prompt_sha256={"coherence/v1/en": digest},
                                  dataset=str(tmp_path / HASHED[2] / "qa.jsonl"))
        info = store.get(run_id)
    assert info.tags == [f"commit={commit}", "key=***"]
    assert info.prompt_sha256 == {"coherence/v1/en": digest}
    assert info.dataset == str(tmp_path / HASHED[2] / "qa.jsonl")


@pytest.mark.parametrize("data", [
    TRACE_ID, SPAN_IDS[0], str(uuid.UUID(int=2**127 + 12345)), HASHED[0], HASHED[1],
    f"/home/me/.cache/assay/{HASHED[0]}/qa.jsonl",
    f"/home/me/.cache/huggingface/hub/datasets--org--qa/snapshots/{HASHED[1]}/train.jsonl",
    f"/home/me/.cache/assay/{HASHED[2]}/qa.jsonl", f"runs/{HASHED[2]}/summary.json",
    rf"C:\Users\me\AppData\Local\assay\Cache\{HASHED[0]}\qa.jsonl",
    "/home/me/.cache/hf_cache/qa.jsonl", "/data/sk-learn-models/qa.jsonl",
    "call_9aBcDeFgHiJkLmNoPqRsTuVw", "chatcmpl-B9MHDbslfQ8yMhxtT0r8Kk0QKr2Nm",
    "toolu_01A09q90qw90lq917835lq9", f"trace {TRACE_ID} span {SPAN_IDS[1]}: not JSON",
    "max_tokens: 512", "keyword: python3.12", "the key: understanding",
])
def test_ids_digests_and_paths_are_data(data: str) -> None:
    assert mask_secrets(data) == data
    assert sanitize({"dataset": data, "trace_id": data}) == {"dataset": data, "trace_id": data}


@pytest.mark.parametrize(("text", "masked"), [
    (f"key {SK_KEY}", "key ***"),
    (f"/data/{SK_KEY}/qa.jsonl", "/data/***/qa.jsonl"),
    ("ghp_" + "a1" * 18, "***"),
    (f"https://bob:{PASSWORD}@h.example/v1", "https://bob:***@h.example/v1"),
    (f"https://h.example/v1?api-key={HASHED[0][:32]}&x=1", "https://h.example/v1?api-key=***&x=1"),
    (f"AZURE_OPENAI_API_KEY={HASHED[0][:32]}", "AZURE_OPENAI_API_KEY=***"),
    (f'{{"x-api-key": "{HASHED[0][:32]}"}}', '{"x-api-key": "***"}'),
    ("password: hunter2x", "password: ***"),
    ("Authorization: Bearer 4bf92f3577b34da6", "Authorization: Bearer ***"),
    ("refused xK9mQ2vL7pR4tY8wZ3nB6cF1hJ5d.", "refused ***."),
])
def test_keys_are_still_masked(text: str, masked: str) -> None:
    assert mask_secrets(text) == masked


def test_a_configured_or_remembered_key_is_masked_whatever_its_shape(
        monkeypatch: pytest.MonkeyPatch) -> None:
    azure = HASHED[0][:32]  # an Azure key: 32 hex digits, the shape of a trace id
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", azure)
    monkeypatch.setattr(_secrets, "_remembered", set(_secrets._remembered))  # forgotten after
    remember_secret("given/in.code-Key")
    assert mask_secrets(f"refused {azure}; also given/in.code-Key") == "refused ***; also ***"
    assert mask_secrets(f"/cache/{azure}/qa.jsonl") == "/cache/***/qa.jsonl"
    assert mask_secrets(f"trace {TRACE_ID}") == f"trace {TRACE_ID}"
