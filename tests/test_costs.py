"""assay.costs: usage, cost (unknown never $0), the price book over genai-prices and the
user's price file."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.costs import FREE_SOURCE, Cost, ModelPrice, PriceBook, Usage
from assay.errors import ConfigError


def test_an_unknown_price_is_unknown_never_zero_in_every_total() -> None:
    book = PriceBook.load()
    known = book.cost("gpt-4o-mini", Usage(prompt_tokens=1000, completion_tokens=10))
    unknown = book.cost("my-vllm", Usage(prompt_tokens=1000, completion_tokens=10))
    assert known.usd is not None and known.usd > 0
    assert unknown.usd is None
    assert unknown.reason == "no price for model 'my-vllm' (add it to a --prices file)"
    for total in (known.add(unknown), unknown.add(known), Cost.zero().add(unknown).add(known)):
        assert total.usd is None
        assert total.reason == unknown.reason


def test_cached_tokens_are_priced_at_the_providers_cache_read_price() -> None:
    book = PriceBook.load()
    price = book.price("gpt-4o-mini")
    assert price is not None and price.cache_read is not None
    assert price.cache_read < price.input
    full = book.cost("gpt-4o-mini", Usage(prompt_tokens=1_000_000))
    cached = book.cost("gpt-4o-mini", Usage(prompt_tokens=1_000_000, cached_tokens=1_000_000))
    assert full.usd == price.input
    assert cached.usd == price.cache_read  # neither free nor full price


def test_cache_write_tokens_are_priced_at_the_providers_cache_write_price() -> None:
    book = PriceBook.load()
    price = book.price("claude-sonnet-4-20250514")
    assert price is not None and price.cache_write is not None
    cost = book.cost("claude-sonnet-4-20250514",
                     Usage(prompt_tokens=1_000_000, cache_write_tokens=1_000_000))
    assert cost.usd == price.cache_write


def test_reasoning_tokens_are_priced_as_the_provider_prices_them() -> None:
    book = PriceBook.load()
    # o3-mini bills reasoning tokens as output: they are part of completion_tokens, not free.
    plain = book.cost("o3-mini", Usage(completion_tokens=1_000_000))
    reasoning = book.cost("o3-mini", Usage(completion_tokens=1_000_000,
                                          reasoning_tokens=900_000))
    assert plain.usd == reasoning.usd == book.price("o3-mini").output  # type: ignore[union-attr]
    # Perplexity's sonar-deep-research lists a price of its own for reasoning tokens.
    deep = book.cost("sonar-deep-research", Usage(completion_tokens=1_000_000,
                                                  reasoning_tokens=1_000_000),
                     provider="perplexity")
    output = book.cost("sonar-deep-research", Usage(completion_tokens=1_000_000),
                       provider="perplexity")
    assert (deep.usd, output.usd) == (3.0, 8.0)


def test_a_judge_spec_names_the_provider() -> None:
    book = PriceBook.load()
    usage = Usage(prompt_tokens=1000, completion_tokens=100)
    assert book.cost("openai:gpt-4o-mini", usage) == book.cost("gpt-4o-mini", usage)
    assert book.cost("openai:gpt-4o-mini", usage).source.startswith("genai-prices ")


def test_the_embedded_judge_is_free_and_says_so() -> None:
    book = PriceBook.load()
    for spec in ("local", "local:/models/qwen.gguf"):
        cost = book.cost(spec, Usage(prompt_tokens=10_000, completion_tokens=500))
        assert (cost.usd, cost.reason, cost.source) == (0.0, None, FREE_SOURCE)


def test_the_user_price_file_overrides_and_adds_models(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text('[models.my-vllm]\ninput = 0.2\noutput = 0.6\ncache_read = 0.1\n\n'
                    '[models.gpt-4o-mini]\ninput = 1.0\noutput = 2.0\n')
    book = PriceBook.load(path)
    added = book.cost("my-vllm", Usage(prompt_tokens=2_000_000, cached_tokens=1_000_000,
                                       completion_tokens=1_000_000))
    assert added == Cost(0.2 + 0.1 + 0.6, None, f"price file {path}")
    overridden = book.cost("openai:gpt-4o-mini", Usage(prompt_tokens=1_000_000))
    assert (overridden.usd, overridden.source) == (1.0, f"price file {path}")
    assert book.price("gpt-4o-mini") == ModelPrice(1.0, 2.0, 1.0, 1.0)
    # models not in the file still come from genai-prices
    assert book.cost("gpt-4o", Usage(prompt_tokens=1_000_000)).usd == 2.5


def test_a_json_price_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"models": {"my-vllm": {"input": 0.2, "output": 0.6}}}')
    assert PriceBook.load(path).cost("my-vllm", Usage(completion_tokens=10**6)).usd == 0.6


def test_a_negative_or_bad_price_names_the_file_and_every_key(tmp_path: Path) -> None:
    path = tmp_path / "prices.toml"
    path.write_text('[models.a]\ninput = -0.2\noutput = 0.6\n\n'
                    '[models.b]\ninput = "cheap"\ncache_reed = 0.1\n')
    with pytest.raises(ConfigError) as caught:
        PriceBook.load(path)
    message = str(caught.value)
    assert str(path) in message
    assert "models.a.input: -0.2 is negative" in message
    assert "models.b.input: 'cheap' is not a number" in message
    assert "models.b.output: missing" in message
    assert "models.b.cache_reed: unknown key" in message
    assert "Fix them" in message


@pytest.mark.parametrize(("name", "text", "where"), [
    ("p.toml", "[models.a\ninput = 1", "not valid TOML"),
    ("p.json", '{"models": {"a": {"input": 1,}}}', "line 1 column"),
    ("p.toml", "input = 1\n", "no [models] table"),
])
def test_a_price_file_that_does_not_parse_is_a_config_error(
        tmp_path: Path, name: str, text: str, where: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match="Price file") as caught:
        PriceBook.load(path)
    assert where in str(caught.value) and str(path) in str(caught.value)


def test_a_missing_price_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Cannot read the price file .*--prices"):
        PriceBook.load(tmp_path / "nope.toml")


def test_usage_adds_and_nothing_sent_costs_nothing() -> None:
    total = Usage(1, 2, 3, 4, 5) + Usage(10, 20, 30, 40, 50)
    assert total == Usage(11, 22, 33, 44, 55)
    assert PriceBook.load().cost("my-vllm", Usage()).usd == 0.0
