"""The embedded offline judge: a small GGUF model run in-process by llama.cpp (``xllamacpp``).

Why xllamacpp rather than llama-cpp-python: it ships a prebuilt CPU wheel (installs in about a
second instead of a ~6 minute source build on 2 cores), runs ~20% faster here, and exposes
llama.cpp's own server loop (prompt-prefix KV reuse, JSON-schema constrained output, logprobs).
Its server also opens an HTTP listener on a random loopback port; assay sets a random API key
on it so nothing else on the machine can use it. Requests go in-process; the listener serves
only the saving and restoring of rubric prefixes across runs (:mod:`._prefix_slots`).

Example:
    >>> LocalJudge.default_id()
    'local:qwen2.5-coder-1.5b-instruct-q4_k_m'
    >>> caps = LocalJudge(n_ctx=2048).capabilities  # nothing is loaded until the first call
    >>> caps.local, caps.context_window, caps.token_logprobs, caps.input_price
    (True, 2048, True, 0.0)
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
import urllib.request
from pathlib import Path
from typing import Any

from .._env import env_count
from ..errors import ConfigError, JudgeError, option
from ._base import Accept, JudgeCapabilities, JudgeRequest, JudgeResponse, TokenLogprob
from ._digit_fill import digit_scaffold, fill_digits
from ._factory import register_judge
from ._model_file import MODEL_FILENAME, embedded_model_path
from ._prefix_slots import PrefixPlan, PrefixSlots, prefix_cache_dir

__all__ = ["PARALLEL", "LocalJudge"]

#: Requests the embedded judge runs at once by default: one, so that a rerun without the cache
#: computes every score bit for bit as before. ``ASSAY_LOCAL_PARALLEL=4`` trades that for
#: speed: measured on 2 cores, 4 requests decoding in one batch generate 2.1x the tokens per
#: second of one; on the demo (4 rows, 61 requests, prompt processing about half the time) the
#: run took 124.6 s against 138.4 s, every 0-7 or 1-5 value the same and 45 of 64
#: probability-weighted values moved in the 2nd or 3rd decimal.
PARALLEL = 1


class LocalJudge:
    """Runs judge requests on a local GGUF model (the embedded one unless ``model_path`` is set).

    Its capabilities: local and free; token log-probabilities (llama.cpp's ``n_probs``) and
    JSON-schema output (a grammar); a context window of ``n_ctx`` tokens per request (each
    of the ``slots`` KV-cache slots holds ``n_ctx``).

    An answer made of digits alone (a score or the safety severities without a reason) is
    generated one digit at a time after the text its schema fixes, given to the model
    (:mod:`._digit_fill`): the same digits for a fraction of the decoding steps, their
    probabilities rounded a little differently (the given text is read in one batch).
    ``digits_given_text=False`` decodes every token instead.

    Up to ``parallel`` requests run at once (``ASSAY_LOCAL_PARALLEL``, default
    :data:`PARALLEL`, one): llama.cpp decodes the requests in flight in one batch, which on a
    CPU generates up to about twice the tokens per second of one request at a time. Requests
    that share a rubric share its slot, so they still run one after another. Batching changes
    the floating-point sums a little, so probability-weighted scores move in the 2nd or 3rd
    decimal from run to run; one at a time, a rerun gives the same scores.
    """

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096,
                 slots: int = 6, threads: int | None = None,
                 parallel: int | None = None, digits_given_text: bool = True) -> None:
        self._path = Path(model_path) if model_path else None
        if self._path is not None and not self._path.is_file():
            raise ConfigError(f"Got {option('judge', f'local:{model_path}')}: no such GGUF "
                              "file.")
        name = self._path.stem if self._path else Path(MODEL_FILENAME).stem
        self.id = f"local:{name}"
        self._n_ctx = n_ctx
        self._slots = slots
        self._threads = threads or env_count("ASSAY_THREADS") or (os.cpu_count() or 2)
        self._server: Any = None
        self._key = secrets.token_hex(24)
        self.max_concurrency: int | None = max(
            1, parallel or env_count("ASSAY_LOCAL_PARALLEL") or PARALLEL)
        self._prefixes: PrefixSlots | None = None
        self._digits_given_text = digits_given_text
        self._lock = threading.Lock()
        self._planning = threading.Lock()  # PrefixSlots is planned one request at a time
        # one request (with its prefix restore, fill and save) per slot at a time; the last
        # slot serves requests without a system prompt, so they never take over a rubric's
        self._slot_locks = [threading.Lock() for _ in range(slots + 1)]
        self._held: dict[int, str | None] = {}  # slot -> the system prompt (key) it holds
        self.capabilities = JudgeCapabilities(token_logprobs=True, json_schema=True,
                                              context_window=n_ctx, local=True,
                                              input_price=0.0, output_price=0.0)

    @staticmethod
    def default_id() -> str:
        return f"local:{Path(MODEL_FILENAME).stem}"

    def _load(self) -> Any:
        with self._lock:
            if self._server is not None:
                return self._server
            try:
                import xllamacpp as xlc
            except ImportError as e:
                raise ConfigError("The embedded judge needs the 'local' extra. Fix: pip install "
                                  f"'assay[local]', or use {option('judge', 'openai:MODEL')}."
                                  ) from e
            path = self._path or embedded_model_path()
            version = getattr(xlc, "__version__", "0")
            store = _writable(prefix_cache_dir(
                f"{path.stem}-{path.stat().st_size}-{version}-{self._n_ctx}"))
            self._prefixes = PrefixSlots(self._slots, store)
            p = xlc.CommonParams()
            p.model.path = str(path)
            # One KV-cache slot per rubric, plus one for requests without a system prompt:
            # each system prompt is pinned to a slot (``_prefix_slots``), so each metric's
            # rubric is processed once (or restored from its file) and only the row's own text
            # is new. Busy slots are decoded together in one batch.
            p.n_ctx = self._n_ctx * (self._slots + 1)
            p.n_parallel = self._slots + 1
            p.cpuparams.n_threads = self._threads
            p.cpuparams_batch.n_threads = self._threads
            p.api_keys = [self._key]  # the loopback listener refuses everyone else
            p.endpoint_slots = store is not None
            if store is not None:
                p.slot_save_path = str(store) + os.sep
            p.endpoint_props = False
            p.endpoint_metrics = False
            p.verbosity = -1
            p.cache_prompt = True
            self._server = xlc.Server(p)
            return self._server

    def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        server = self._load()
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        scaffold = digit_scaffold(schema) if self._digits_given_text else None
        with self._planning:
            plan = self._prefixes.plan(body["messages"]) if self._prefixes else PrefixPlan(None)
        slot = self._slots if plan.slot is None else plan.slot
        with self._slot_locks[slot]:
            extra = []
            if plan.key is not None and self._held.get(slot) != plan.key:
                extra = self._put_prefix(server, plan)
            self._held[slot] = plan.key
            if scaffold is None:
                out = _chat(server, {**body, "id_slot": slot})
            else:  # the digits alone are generated; the steps share the slot's KV cache
                out = fill_digits(lambda b: _chat(server, {**b, "id_slot": slot}), body, scaffold)
            if plan.save:
                extra.append(self._save_prefix(server, plan))
        return _with_work_of(out, extra)

    def _put_prefix(self, server: Any, plan: PrefixPlan) -> list[dict[str, Any]]:
        """Make ``plan.slot`` hold the system prompt alone: restored from its file, or else
        computed (a request of it alone); the answers of the requests made for it."""
        assert self._prefixes is not None
        if plan.restore:
            if self._slot_action(server, plan.slot, "restore", plan.restore):
                return []
            with self._planning:
                self._prefixes.forget(plan.restore)
        return [self._fill_with_system(server, plan)]

    def _save_prefix(self, server: Any, plan: PrefixPlan) -> dict[str, Any]:
        """Cut ``plan.slot`` back to the system prompt alone (already cached: about one new
        token) and save it, under a temporary name first, so that a reader never sees half a
        file."""
        assert self._prefixes is not None and self._prefixes.directory is not None
        filled = self._fill_with_system(server, plan)
        tmp = f"{plan.save}.{os.getpid()}-{secrets.token_hex(4)}.tmp"  # per process and judge
        if self._slot_action(server, plan.slot, "save", tmp):
            os.replace(self._prefixes.directory / tmp, self._prefixes.directory / str(plan.save))
            self._prefixes.saved(str(plan.save))
        else:
            (self._prefixes.directory / tmp).unlink(missing_ok=True)
        return filled

    @staticmethod
    def _fill_with_system(server: Any, plan: PrefixPlan) -> dict[str, Any]:
        """Leave ``plan.slot`` holding the system prompt alone (one generated token); its
        answer (for its timings)."""
        return _chat(server, {"messages": list(plan.system), "max_tokens": 1, "temperature": 0,
                              "id_slot": plan.slot})

    def _slot_action(self, server: Any, slot: int | None, action: str, filename: str) -> bool:
        """POST llama.cpp's ``/slots/N?action=save|restore`` on the key-protected loopback
        listener; ``False`` when it did not succeed (the run goes on without the file)."""
        request = urllib.request.Request(
            f"{server.listening_address}/slots/{slot}?action={action}",
            data=json.dumps({"filename": filename}).encode(), method="POST",
            headers={"Authorization": f"Bearer {self._key}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:  # the loopback listener
                return 200 <= answer.status < 300
        except (OSError, ValueError):
            return False

    async def complete(self, request: JudgeRequest, *,
                       accept: Accept | None = None) -> JudgeResponse:
        """Run one request on the local model (in a worker thread); ``accept`` is ignored
        (caching is the managed judge's)."""
        body: dict[str, Any] = {"messages": request.messages, "max_tokens": request.max_tokens,
                                "temperature": request.temperature, "seed": 0}
        if request.json_schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema_name, "schema": request.json_schema}}
        if request.logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = request.top_logprobs
        out = await asyncio.to_thread(self._call, body)
        if "error" in out or not out.get("choices"):
            raise JudgeError(f"embedded judge error: {str(out.get('error', out))[:300]}")
        choice = out["choices"][0]
        text = (choice.get("message") or {}).get("content") or ""
        logprobs = None
        content = (choice.get("logprobs") or {}).get("content")
        if content:
            logprobs = [TokenLogprob(token=t["token"], logprob=t["logprob"],
                                     top={a["token"]: a["logprob"] for a in t.get("top_logprobs", [])})
                        for t in content]
        usage = out.get("usage") or {}
        computed = (out.get("timings") or {}).get("prompt_n")  # the rest came from the KV cache
        return JudgeResponse(text=text, logprobs=logprobs, model=self.id,
                             truncated=choice.get("finish_reason") == "length",
                             prompt_tokens=int(usage.get("prompt_tokens", 0)),
                             completion_tokens=int(usage.get("completion_tokens", 0)),
                             processed_prompt_tokens=None if computed is None else int(computed))

    async def aclose(self) -> None:
        with self._lock:
            self._server = None


def _chat(server: Any, body: dict[str, Any]) -> dict[str, Any]:
    out = server.handle_chat_completions(body)
    return json.loads(out) if isinstance(out, (str, bytes)) else out


def _with_work_of(out: dict[str, Any], extra: list[dict[str, Any]]) -> dict[str, Any]:
    """``out`` with the prompt tokens processed and tokens generated by the slot-filling
    requests made for it (``extra``) added to its llama.cpp ``timings``, so that the processed
    prompt tokens a run reports are all the prompt work done. Its ``usage`` is the answer's own.

    Example:
        >>> _with_work_of({"timings": {"prompt_n": 5, "predicted_n": 2}},
        ...               [{"timings": {"prompt_n": 180, "predicted_n": 1}}])["timings"]
        {'prompt_n': 185, 'predicted_n': 3}
    """
    timings = out.get("timings")
    if not extra or not isinstance(timings, dict):
        return out
    more = [e.get("timings") or {} for e in extra if isinstance(e, dict)]
    added = {k: int(timings.get(k) or 0) + sum(int(m.get(k) or 0) for m in more)
             for k in ("prompt_n", "predicted_n")}
    return {**out, "timings": {**timings, **added}}


def _writable(directory: Path | None) -> Path | None:
    """``directory``, created if need be; ``None`` (prefixes not kept) where it cannot be: a
    cache that cannot be written makes runs slower, never fails them.

    Example:
        >>> _writable(None) is None, _writable(Path("/proc/no-such-dir")) is None
        (True, True)
    """
    if directory is None:
        return None
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return directory if os.access(directory, os.W_OK) else None


def _local_judge(rest: str, *, timeout: float) -> LocalJudge:
    """``local`` (the embedded model) or ``local:PATH.gguf``; it computes in this process, with
    no deadline."""
    return LocalJudge(rest or None)


register_judge("local", _local_judge, specs=("local", "local:/path/to/model.gguf"),
               needs_rest=False)
