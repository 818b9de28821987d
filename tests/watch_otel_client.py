"""An app instrumented with the official OpenTelemetry SDK, for the ``assay watch`` tests and
benchmark: N traces, each a root span ``handle request`` around a GenAI ``chat`` span that
carries the conversation as semantic conventions 1.37 attributes (``gen_ai.input.messages``,
``gen_ai.output.messages``), sent with ``OTLPSpanExporter`` (OTLP/HTTP protobuf) through a
``BatchSpanProcessor``.

Usage: python tests/watch_otel_client.py ENDPOINT N [--token T] [--start K]
Prints ``flushed N`` once every span was exported (the receiver answered 200).
"""

from __future__ import annotations

import argparse
import json

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("endpoint")
    parser.add_argument("n", type=int)
    parser.add_argument("--token")
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args()
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else None
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(BatchSpanProcessor(
        OTLPSpanExporter(endpoint=args.endpoint, headers=headers),
        max_export_batch_size=64, schedule_delay_millis=100))
    tracer = provider.get_tracer("shop.app")
    for i in range(args.start, args.start + args.n):
        question = f"Order {i}: can I return shoes after 30 days?"
        answer = f"Order {i}: yes, within 60 days with the receipt."
        with tracer.start_as_current_span("handle request"), \
                tracer.start_as_current_span("chat shop-model") as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.request.model", "shop-model")
            span.set_attribute("gen_ai.input.messages", json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": question}]}]))
            span.set_attribute("gen_ai.output.messages", json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                  "finish_reason": "stop"}]))
    flushed = provider.force_flush(60_000)
    provider.shutdown()
    print(f"flushed {args.n}" if flushed else "not flushed", flush=True)


if __name__ == "__main__":
    main()
