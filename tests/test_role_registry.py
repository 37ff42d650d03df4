"""The role registry: versions under a folder, seeding, set, names, concurrency, templates, pins."""

from __future__ import annotations

import os
import threading
from importlib.metadata import EntryPoint, EntryPoints
from pathlib import Path
from typing import Any

import pytest

from framework.errors import ConfigError
from framework.runs import prompts as role_registry
from framework.runs.prompts import PromptRegistry, RolePrompt
from framework.runs.teams import TeamSetup
from teams.hypothesis.prompts import SEARCHER_SYSTEM, HypothesisPrompts
from teams.research.prompts import PLANNER_SYSTEM, WORKER_SYSTEM, ResearchPrompts

DEFAULTS = {"planner": "Plan in at most {max_tasks} steps.", "writer": 'Write {"json": 1}.'}


@pytest.fixture
def registry(tmp_path: Path) -> PromptRegistry:
    return PromptRegistry(tmp_path / "roles", defaults=DEFAULTS)


def test_first_use_seeds_version_one_from_the_default_and_records_it(tmp_path: Path) -> None:
    registry = PromptRegistry(tmp_path / "roles", defaults={})
    prompt = registry.prompt("critic", "Judge the triples.\n")
    assert prompt == RolePrompt("critic", 1, "Judge the triples.")
    assert (tmp_path / "roles" / "critic" / "v0001.txt").read_text() == "Judge the triples."
    assert registry.used() == {"critic": 1}
    # a later default does not replace what is stored: the registry is the source of truth
    assert PromptRegistry(tmp_path / "roles").prompt("critic", "Other.") == prompt


def test_set_stores_a_new_current_version_that_the_next_build_uses(
    registry: PromptRegistry, tmp_path: Path
) -> None:
    assert registry.set("planner", "Plan {max_tasks} tasks, no more.") == RolePrompt(
        "planner", 2, "Plan {max_tasks} tasks, no more."
    )
    fresh = PromptRegistry(tmp_path / "roles", defaults=DEFAULTS)
    assert fresh.prompt("planner", DEFAULTS["planner"]).version == 2
    assert fresh.used() == {"planner": 2}
    assert [p.version for p in fresh.versions("planner")] == [1, 2]
    assert fresh.versions("planner")[0].text == DEFAULTS["planner"]


def test_an_unchanged_text_stores_no_new_version(registry: PromptRegistry, tmp_path: Path) -> None:
    registry.set("planner", "Plan {max_tasks}.")
    assert registry.set("planner", "  Plan {max_tasks}.\n").version == 2
    assert registry.set("writer", DEFAULTS["writer"]).version == 1  # the default itself
    assert sorted(p.name for p in (tmp_path / "roles" / "planner").iterdir()) == [
        "v0001.txt",
        "v0002.txt",
    ]


def test_setting_back_an_older_text_makes_a_new_version(registry: PromptRegistry) -> None:
    registry.set("planner", "Plan {max_tasks}.")
    assert registry.set("planner", DEFAULTS["planner"]) == RolePrompt(
        "planner", 3, DEFAULTS["planner"]
    )


@pytest.mark.parametrize(
    "name", ["Planner", "a b", "../x", ".hidden", "-x", "", "x" * 65, "naïve", "a/b"]
)
def test_bad_role_names_are_refused_with_the_rule(registry: PromptRegistry, name: str) -> None:
    with pytest.raises(ConfigError, match="lowercase letters, digits, dots, dashes or under"):
        registry.prompt(name, "text")
    with pytest.raises(ConfigError, match="lowercase letters"):
        registry.set(name, "text")
    with pytest.raises(ConfigError, match="lowercase letters"):
        registry.versions(name)


def test_good_names_take_dots_dashes_underscores_and_digits(registry: PromptRegistry) -> None:
    assert registry.prompt("team-2.role_a", "Do it.").version == 1


def test_an_empty_prompt_is_refused_and_nothing_is_stored(
    registry: PromptRegistry, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="empty"):
        registry.set("writer", " \n\t")
    with pytest.raises(ConfigError, match="empty"):
        registry.prompt("other", "")
    assert not (tmp_path / "roles").exists()


def test_an_unknown_role_cannot_be_set(registry: PromptRegistry) -> None:
    with pytest.raises(ConfigError, match=r"unknown role 'planer': known roles are planner, wri"):
        registry.set("planer", "text")
    assert registry.versions("planer") == []


def test_a_role_first_used_by_its_team_can_be_set_without_a_packaged_default(
    tmp_path: Path,
) -> None:
    registry = PromptRegistry(tmp_path / "roles", defaults={})
    registry.prompt("drafter", "Draft {topic}.")
    with pytest.raises(ConfigError, match=r"lacks \{topic\}"):
        registry.set("drafter", "Draft.")
    assert registry.set("drafter", "Draft about {topic}.").version == 2


def test_names_list_packaged_defaults_before_first_use_and_stored_roles(
    registry: PromptRegistry,
) -> None:
    registry.prompt("own", "Mine.")
    assert registry.names() == ["own", "planner", "writer"]
    assert registry.versions("writer") == [RolePrompt("writer", 1, DEFAULTS["writer"])]


def test_the_installed_teams_declare_their_roles(tmp_path: Path) -> None:
    registry = PromptRegistry(tmp_path / "roles")
    names = registry.names()
    for name in ("research.planner", "research.worker", "hypothesis.searcher"):
        assert name in names
    assert registry.versions("research.planner") == [
        RolePrompt("research.planner", 1, PLANNER_SYSTEM)
    ]
    assert not (tmp_path / "roles").exists()  # listing writes nothing


def test_a_packaged_default_that_is_not_a_string_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    point = EntryPoint("broken", "framework.runs.prompts:RolePrompt", "cadre.roles")
    monkeypatch.setattr(
        role_registry, "entry_points", lambda **select: EntryPoints([point]).select(**select)
    )
    with pytest.raises(ConfigError, match="not a non-empty string"):
        PromptRegistry(tmp_path / "roles").set("broken", "text")


def _set_together(root: Path, texts: list[str]) -> list[RolePrompt]:
    """Each text set by its own registry (as separate processes would), all released at once."""
    start = threading.Barrier(len(texts))
    results: list[RolePrompt] = []
    errors: list[BaseException] = []

    def set_one(text: str) -> None:
        registry = PromptRegistry(root, defaults=DEFAULTS)
        start.wait()
        try:
            results.append(registry.set("writer", text))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=set_one, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return results


def test_concurrent_sets_get_distinct_versions_and_lose_nothing(tmp_path: Path) -> None:
    texts = [f"Writer prompt {n}." for n in range(8)]
    results = _set_together(tmp_path / "roles", texts)
    assert sorted(p.version for p in results) == list(range(2, 10))
    stored = PromptRegistry(tmp_path / "roles", defaults=DEFAULTS).versions("writer")
    assert {p.version: p.text for p in stored[1:]} == {p.version: p.text for p in results}
    assert not [p for p in (tmp_path / "roles" / "writer").iterdir() if p.suffix == ".tmp"]


def test_a_version_taken_meanwhile_is_retried_with_the_next_number(
    registry: PromptRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry.prompt("writer", DEFAULTS["writer"])
    real_link = os.link
    raced: list[str] = []

    def link_after_another_process(source: Any, target: Any) -> None:
        if not raced:  # another process stores version 2 just before this one links it
            raced.append(str(target))
            Path(target).write_text("Written elsewhere.", encoding="utf-8")
        real_link(source, target)

    monkeypatch.setattr(role_registry.os, "link", link_after_another_process)
    assert registry.set("writer", "Mine.") == RolePrompt("writer", 3, "Mine.")
    assert raced == [str(tmp_path / "roles" / "writer" / "v0002.txt")]
    assert [p.text for p in registry.versions("writer")] == [
        DEFAULTS["writer"],
        "Written elsewhere.",
        "Mine.",
    ]


def test_a_template_keeps_exactly_its_fields(registry: PromptRegistry) -> None:
    with pytest.raises(ConfigError, match=r"lacks \{max_tasks\}: the role takes \{max_tasks\}"):
        registry.set("planner", "Plan a few steps.")
    with pytest.raises(ConfigError, match=r"has the unknown field \{depth\}"):
        registry.set("planner", "Plan {max_tasks} steps, {depth} deep.")
    with pytest.raises(ConfigError, match="unbalanced braces"):
        registry.set("planner", "Plan {max_tasks} steps {")
    assert registry.set("planner", 'Plan {max_tasks} steps as {{"steps": []}}.').version == 2
    assert len(registry.versions("planner")) == 2


def test_a_role_without_fields_takes_any_braces(registry: PromptRegistry) -> None:
    assert registry.set("writer", "Answer as {json} or {").version == 2


def test_template_checks_a_stored_version_at_build_time(registry: PromptRegistry) -> None:
    prompt = registry.prompt("planner", DEFAULTS["planner"])
    assert prompt.template("max_tasks").format(max_tasks=3) == "Plan in at most 3 steps."
    with pytest.raises(ConfigError, match=r"'planner' version 1 lacks \{depth\}"):
        prompt.template("max_tasks", "depth")


def test_a_pinned_version_is_given_instead_of_the_current_one(
    registry: PromptRegistry, tmp_path: Path
) -> None:
    registry.set("planner", "Plan {max_tasks}.")
    pinned = PromptRegistry(tmp_path / "roles", defaults=DEFAULTS, pinned={"planner": 1})
    assert pinned.prompt("planner", DEFAULTS["planner"]).text == DEFAULTS["planner"]
    assert pinned.used() == {"planner": 1}
    gone = PromptRegistry(tmp_path / "roles", defaults=DEFAULTS, pinned={"planner": 7})
    with pytest.raises(ConfigError, match="no version 7, which this run was started with"):
        gone.prompt("planner", DEFAULTS["planner"])


def test_in_memory_registries_are_separate_and_write_nothing(tmp_path: Path) -> None:
    first, second = PromptRegistry.in_memory(), PromptRegistry.in_memory()
    first.prompt("research.planner", PLANNER_SYSTEM)
    first.set("research.planner", "Plan {max_tasks}.")
    assert second.prompt("research.planner", PLANNER_SYSTEM).version == 1
    assert first.prompt("research.planner", PLANNER_SYSTEM).version == 2


def test_team_setups_get_their_own_in_memory_registry() -> None:
    fields = {"corpus": None, "store": None}
    first, second = TeamSetup(**fields), TeamSetup(**fields)  # type: ignore[arg-type]
    assert first.prompts is not second.prompts


def test_research_prompts_come_from_the_registry(tmp_path: Path) -> None:
    registry = PromptRegistry(tmp_path / "roles")
    registry.set("research.worker", "Search, then answer briefly.")
    prompts = ResearchPrompts.from_registry(registry)
    assert prompts.worker == "Search, then answer briefly."
    assert prompts.planner == PLANNER_SYSTEM
    assert registry.used()["research.worker"] == 2
    assert set(registry.used()) == {
        f"research.{role}"
        for role in ("planner", "worker", "aggregator", "reviewer", "curator", "formatter")
    }
    assert WORKER_SYSTEM in (p.text for p in registry.versions("research.worker"))


def test_a_hand_edited_template_fails_the_build_naming_the_field(tmp_path: Path) -> None:
    registry = PromptRegistry(tmp_path / "roles")
    registry.prompt("hypothesis.searcher", SEARCHER_SYSTEM)
    (tmp_path / "roles" / "hypothesis.searcher" / "v0002.txt").write_text("Write {n} queries.")
    with pytest.raises(ConfigError, match=r"version 2 lacks \{max_queries\} and has the unkn"):
        HypothesisPrompts.from_registry(registry)
