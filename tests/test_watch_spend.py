"""Cost and latency per scored trace and per minute in ``assay watch`` (issue 47 part 6): an
app instrumented with the official OpenTelemetry SDK sends its spans (GenAI usage attributes,
set start and end times) through ``OTLPSpanExporter`` to a real watch receiver; each stored
record carries the app's and the judge's dollars, tokens and seconds apart (exact figures at
the prices of a ``--prices`` file; a model nobody prices: unknown with the reason, never $0),
the summary and the status carry the per-minute series, and the score export carries them as
``assay.*`` attributes of its ``evaluation`` span."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from assay.judges import FakeJudge, JudgeResponse
from assay.records._minute_spend import minute_of
from assay.run import JudgeOptions
from assay.store import open_store
from assay.watch import Watcher, WatchOptions, watch_async
from test_watch_export import Receiver
from test_watch_kill import _otel_missing, free_port, requires_otel

PRICES = '[models.shop-model]\ninput = 2.0\noutput = 8.0\ncache_read = 0.5\n\n' \
         '[models.fake]\ninput = 1.0\noutput = 3.0\n'
SECOND = 1_000_000_000
UNPRICED = "no price for model 'acme-internal-llm-7' (add it to a --prices file)"


def _chat(tracer: Any, parent: Any, start: int, end: int, **attrs: Any) -> None:
    """A chat span (its own question: identical judge requests would be sent once)."""
    from opentelemetry import trace

    n = start + end + len(attrs)
    said = [{"role": "user", "parts": [{"type": "text", "content": f"Order {n}: return?"}]}]
    answer = [{"role": "assistant", "finish_reason": "stop",
               "parts": [{"type": "text", "content": f"Order {n}: yes, within 60 days."}]}]
    span = tracer.start_span("chat", context=trace.set_span_in_context(parent),
                             start_time=start, attributes={
                                 "gen_ai.operation.name": "chat",
                                 "gen_ai.input.messages": json.dumps(said),
                                 "gen_ai.output.messages": json.dumps(answer), **attrs})
    span.end(end_time=start + end)


def send_traces(endpoint: str) -> dict[str, str]:
    """Three traces through the OpenTelemetry SDK; ``{name: trace id}``."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    tracer = provider.get_tracer("shop.app")
    ids, t0 = {}, time.time_ns()
    # priced, with cache reads: root 2.5 s around a 2.0 s call
    root = tracer.start_span("handle request", start_time=t0)
    _chat(tracer, root, t0 + SECOND // 4, 2 * SECOND, **{
        "gen_ai.provider.name": "openai", "gen_ai.request.model": "shop-model",
        "gen_ai.response.model": "shop-model", "gen_ai.usage.input_tokens": 1200,
        "gen_ai.usage.output_tokens": 300, "gen_ai.usage.cache_read.input_tokens": 200})
    root.end(end_time=t0 + 5 * SECOND // 2)
    ids["priced"] = f"{root.get_span_context().trace_id:032x}"
    # a model nobody prices: 1.0 s
    root = tracer.start_span("handle request", start_time=t0)
    _chat(tracer, root, t0, SECOND // 2, **{
        "gen_ai.request.model": "acme-internal-llm-7", "gen_ai.usage.input_tokens": 100,
        "gen_ai.usage.output_tokens": 10})
    root.end(end_time=t0 + SECOND)
    ids["unpriced"] = f"{root.get_span_context().trace_id:032x}"
    # an agent (3.0 s) whose own usage is the total of its two calls (older attribute names)
    root = tracer.start_span("invoke_agent shop", start_time=t0, attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "shop-model",
        "gen_ai.usage.input_tokens": 300, "gen_ai.usage.output_tokens": 60})
    for k, (i, o) in enumerate(((100, 20), (200, 40))):
        _chat(tracer, root, t0 + k * SECOND, SECOND, **{
            "gen_ai.request.model": "shop-model", "gen_ai.usage.prompt_tokens": i,
            "gen_ai.usage.completion_tokens": o})
    root.end(end_time=t0 + 3 * SECOND)
    ids["agent"] = f"{root.get_span_context().trace_id:032x}"
    provider.shutdown()
    return ids


def _judge() -> FakeJudge:
    return FakeJudge(lambda _req: JudgeResponse(text='{"score": 4, "reason": "clear"}',
                                                prompt_tokens=500, completion_tokens=20,
                                                model="fake"), latency_s=0.05)


def watch_three(tmp_path: Path, export_url: str) -> tuple[dict[str, Any], dict[str, Any],
                                                             dict[str, str]]:
    """Watch the three traces to the end: (summary, the last status, trace ids)."""
    (tmp_path / "prices.toml").write_text(PRICES)
    port = free_port()
    opts = WatchOptions(metrics="fluency", judge=_judge(), listen=f"127.0.0.1:{port}",
                        judging=JudgeOptions(cache=None, prices=tmp_path / "prices.toml"),
                        spool=tmp_path / "spool", store=tmp_path / "runs.sqlite",
                        status_every=0, grace=0.05, idle=2.0, export_otlp=export_url)
    got: dict[str, Any] = {}

    async def go() -> dict[str, Any]:
        def started(watcher: Watcher) -> None:
            async def drive() -> None:
                got["ids"] = await asyncio.to_thread(
                    send_traces, f"http://127.0.0.1:{port}/v1/traces")
                while watcher.counts["scored"] < 3:
                    await asyncio.sleep(0.05)
                got["status"] = watcher.status()
                watcher.stop()
            got["task"] = asyncio.get_running_loop().create_task(drive())
        return await asyncio.wait_for(watch_async(opts, on_start=started), 60)

    summary = asyncio.run(go())
    return summary, got["status"], got["ids"]


def _stored(tmp_path: Path) -> dict[str, dict[str, Any]]:
    with open_store(tmp_path / "runs.sqlite") as store:
        (run,) = [r for r in store.runs() if r.kind == "watch"]
        return {r["id"]: r for r in store.rows(run.id)}


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One watch of the three traces, exporting scores to a collector on loopback."""
    if _otel_missing() is not None:
        pytest.skip(f"needs the official OpenTelemetry client ({_otel_missing()})")
    tmp = tmp_path_factory.mktemp("spend")
    collector = Receiver()
    try:
        summary, status, ids = watch_three(tmp, collector.url)
        deadline = time.monotonic() + 10
        while len(collector.posts) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        yield {"tmp": tmp, "summary": summary, "status": status, "ids": ids,
               "posts": list(collector.posts)}
    finally:
        collector.close()


@requires_otel
def test_each_trace_carries_the_apps_and_the_judges_cost_and_seconds_apart(
        watched: dict[str, Any]) -> None:
    summary, status, ids = watched["summary"], watched["status"], watched["ids"]
    rows = _stored(watched["tmp"])
    priced, unpriced, agent = (rows[ids[k]]["watch"] for k in ("priced", "unpriced", "agent"))

    # (1000 plain + 200 cache-read) in, 300 out at $2 / $0.5 / $8 per million
    assert priced["app"] == {"usd": 0.0045, "requests": 1, "prompt_tokens": 1200,
                             "completion_tokens": 300, "cached_tokens": 200,
                             "models": ["shop-model"], "latency_s": 2.5, "llm_s": 2.0}
    assert unpriced["app"]["usd"] is None and unpriced["app"]["unknown_reason"] == UNPRICED
    assert (unpriced["app"]["prompt_tokens"], unpriced["app"]["latency_s"]) == (100, 1.0)
    # the agent's own total is not counted again: its two calls, 300 in / 60 out
    assert agent["app"] == {"usd": 0.00108, "requests": 2, "prompt_tokens": 300,
                            "completion_tokens": 60, "models": ["shop-model"],
                            "latency_s": 3.0, "llm_s": 2.0}
    # a judge call: 500 in, 20 out at $1 / $3; fluency asks once per turn (the agent: two)
    for w, calls in ((priced, 1), (unpriced, 1), (agent, 2)):
        judge = w["judge"]
        assert (judge["usd"], judge["requests"], judge["prompt_tokens"],
                judge["completion_tokens"]) == (round(0.00056 * calls, 10), calls, 500 * calls,
                                                20 * calls)
        assert 0.05 <= judge["latency_s"] < 10

    # the totals and the per-minute series, in the summary and the status
    spend = summary["watch"]["spend"]
    assert status["spend"] == spend
    app, judge = spend["totals"]["app"], spend["totals"]["judge"]
    assert spend["totals"]["traces"] == 3
    assert (app["usd"], app["priced_usd"], app["unknown_traces"], app["unknown_reason"]) == (
        None, 0.00558, 1, UNPRICED)
    assert (app["requests"], app["tokens"]) == (4, 1500 + 110 + 360)
    assert (judge["usd"], judge["requests"], judge["tokens"]) == (0.00224, 4, 2080)
    assert app["latency"] == {"p50": 2.5, "p95": 2.95, "rows": 3}
    minutes: dict[str, list[dict[str, Any]]] = {}
    for record in rows.values():
        minutes.setdefault(str(minute_of(record)), []).append(record["watch"])
    assert [m["minute"] for m in spend["per_minute"]] == sorted(minutes)
    for entry in spend["per_minute"]:
        held = minutes[entry["minute"]]
        assert entry["traces"] == len(held)
        assert entry["app"]["priced_usd"] == round(sum(w["app"]["usd"] or 0 for w in held), 10)
        assert (entry["app"]["usd"] is None) == any(w["app"]["usd"] is None for w in held)
        assert entry["judge"]["usd"] == round(sum(w["judge"]["usd"] for w in held), 10)
        assert entry["app"]["latency"]["p50"] == statistics.median(
            w["app"]["latency_s"] for w in held)


@requires_otel
def test_the_score_export_carries_cost_and_seconds_as_assay_attributes(
        watched: dict[str, Any]) -> None:
    ids = watched["ids"]
    spans = {}
    for post in watched["posts"]:
        span = json.loads(post["body"])["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
        spans[span["traceId"]] = {a["key"]: next(iter(a["value"].values()))
                                  for a in span["attributes"]}
    priced, unpriced = spans[ids["priced"]], spans[ids["unpriced"]]
    assert priced["assay.cost.app_usd"] == 0.0045
    assert priced["assay.cost.judge_usd"] == 0.00056
    assert (priced["assay.latency.app_s"], priced["assay.latency.app_llm_s"]) == (2.5, 2.0)
    assert 0.05 <= priced["assay.latency.judge_s"] < 10
    assert (priced["assay.usage.app.input_tokens"], priced["assay.usage.app.output_tokens"]) \
        == ("1200", "300")
    assert priced["assay.app.model"] == "shop-model"
    assert "assay.cost.app_unknown_reason" not in priced
    assert "assay.cost.app_usd" not in unpriced  # unknown: absent, never 0
    assert unpriced["assay.cost.app_unknown_reason"] == UNPRICED
    assert unpriced["assay.cost.judge_usd"] == 0.00056


@requires_otel
def test_the_live_page_shows_each_traces_and_each_minutes_spend(watched: dict[str, Any]) -> None:
    """The live page of the watched run, as ``assay serve`` answers it: per trace the app's
    and the judge's figures, per minute the table, the totals with the unknown price's
    reason."""
    from starlette.testclient import TestClient

    from assay.serve import create_app

    ids = watched["ids"]
    with open_store(watched["tmp"] / "runs.sqlite") as store:
        (run,) = [r for r in store.runs() if r.kind == "watch"]
        page = TestClient(create_app(store)).get(f"/runs/{run.id}/live")
    assert page.status_code == 200
    html = lxml.html.fromstring(page.text)

    def cells(tr: Any) -> list[str]:
        return [" ".join(td.text_content().split()) for td in tr.findall("td")]

    traces = {tr.get("data-row"): cells(tr)
              for tr in html.xpath('//table[@id="trace-spend"]/tbody/tr')}
    *priced, judge_s = traces[ids["priced"]][2:]
    assert priced == ["shop-model", "1200 / 300", "$0.00450", "2.5 (2)", "500 / 20",
                      "$0.000560"]
    assert 0.05 <= float(judge_s) < 10  # measured
    unpriced = traces[ids["unpriced"]]
    assert unpriced[4] == f"unknown {UNPRICED}"
    assert traces[ids["agent"]][3:5] == ["300 / 60", "$0.00108"]
    minutes = [cells(tr) for tr in html.xpath('//table[@id="minute-table"]/tbody/tr')]
    assert sum(int(m[1]) for m in minutes) == 3
    assert sum(int(m[2]) for m in minutes) == 4  # the app's model calls
    totals = " ".join(html.get_element_by_id("spend-totals").text_content().split())
    assert f"the app unknown (1 trace unpriced ({UNPRICED}); the priced ones: $0.00558;" in totals
    assert "the judge $0.00224 ($0.00224 for 4 requests, 2080 tokens;" in totals
    assert len(html.xpath('//figure[@id="spend-chart-usd"]//polyline')) == 2



def test_a_bad_price_file_exits_2_before_the_watch_opens_anything(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from assay.cli.main import app

    bad = tmp_path / "prices.toml"
    bad.write_text('[models.shop-model]\ninput = -1\noutput = "lots"\n')
    result = CliRunner().invoke(app, [
        "watch", "--metrics", "fluency", "--judge", "fake", "--listen", "off",
        "--follow", str(tmp_path / "traces.jsonl"), "--spool", str(tmp_path / "spool"),
        "--store", str(tmp_path / "runs.sqlite"), "--prices", str(bad)])
    said = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert "models.shop-model.input: -1 is negative" in said and "output" in said
    assert "Traceback" not in result.output
    assert not (tmp_path / "spool").exists() and not (tmp_path / "runs.sqlite").exists()
