"""Tests for framework.models.specs: spec parsing and provider resolution."""

from __future__ import annotations

import importlib.util

import pytest

from framework.errors import ConfigError
from framework.models.specs import KNOWN_PROVIDERS, ModelSpec, parse_model_spec, resolve_model


def test_parse_model_spec_splits_provider_and_name() -> None:
    assert parse_model_spec("openai:gpt-4o-mini") == ModelSpec(
        provider="openai", name="gpt-4o-mini"
    )


def test_parse_model_spec_keeps_colons_in_the_name() -> None:
    assert parse_model_spec("ollama:llama3.1:8b") == ModelSpec(
        provider="ollama", name="llama3.1:8b"
    )


def test_known_providers_are_langchains_and_cadres_own() -> None:
    documented = {"anthropic", "google_genai", "groq", "mistralai", "ollama", "openai"}
    assert documented | {"openai-compatible", "scripted"} <= set(KNOWN_PROVIDERS)


@pytest.mark.parametrize(
    "spec",
    [
        "gpt-4o-mini",
        ":gpt-4o-mini",
        "openai:",
        ":",
        "",
        "openai: gpt-4o",
        "open ai:gpt",
        "openai:gpt\n",
    ],
)
def test_parse_model_spec_rejects_malformed_specs(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_model_spec(spec)
    message = str(caught.value)
    assert message.startswith(f"bad model spec {spec!r}: expected 'provider:name'")
    assert "'openai-compatible:NAME@URL'" in message and "'scripted:FILE'" in message
    assert "\n" not in message.replace(repr(spec), "")


def test_parse_model_spec_rejects_unknown_provider() -> None:
    with pytest.raises(ConfigError, match=r"unknown model provider 'nope' in 'nope:command'"):
        parse_model_spec("nope:command")


def test_resolve_model_rejects_unknown_provider_in_a_spec_object() -> None:
    with pytest.raises(ConfigError, match=r"unknown model provider 'nope'.*openai"):
        resolve_model(ModelSpec(provider="nope", name="command"))


def test_resolve_model_builds_chat_openai_without_network() -> None:
    from langchain_openai import ChatOpenAI

    model = resolve_model("openai:gpt-4o-mini", api_key="x", base_url="http://127.0.0.1:9/v1")

    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4o-mini"
    assert model.openai_api_base == "http://127.0.0.1:9/v1"


def test_resolve_model_accepts_a_spec_object() -> None:
    from langchain_openai import ChatOpenAI

    model = resolve_model(ModelSpec(provider="openai", name="gpt-4.1"), api_key="x")

    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4.1"


def test_resolve_model_refuses_model_name_as_keyword() -> None:
    with pytest.raises(ConfigError, match=r"pass the model name in the spec \('openai:<name>'\)"):
        resolve_model("openai:gpt-4o-mini", model="gpt-4.1", api_key="x")


def test_resolve_model_reports_constructor_errors_on_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    with pytest.raises(ConfigError) as caught:
        resolve_model("openai:gpt-4o-mini", api_key="x", temperature="hot")
    message = str(caught.value)
    assert message.startswith("could not create the openai chat model 'gpt-4o-mini': ")
    assert "temperature" in message
    assert "\n" not in message
    assert caught.value.__cause__ is not None


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_anthropic") is not None,
    reason="langchain-anthropic is installed",
)
def test_resolve_model_names_the_missing_package_and_extra() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_model("anthropic:claude-sonnet-4-5")
    assert str(caught.value) == (
        "model provider 'anthropic' needs langchain-anthropic: install it with: "
        "pip install langchain-anthropic (or pip install 'cadre[anthropic]')"
    )


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_groq") is not None,
    reason="langchain-groq is installed",
)
def test_resolve_model_mentions_no_extra_where_none_exists() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_model("groq:llama-3.3-70b")
    assert str(caught.value).endswith("install it with: pip install langchain-groq")
