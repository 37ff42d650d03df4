"""Who has a role in a software project, as its own files record it: a MAINTAINERS entry's
maintainers and reviewers of its title, an OWNERS file's approvers and reviewers of its folder
(not its emeritus approvers), a PKGBUILD's maintainer and contributors of its package, an
annotated tag's tagger (not the author of the commit it tags), and a Zenodo record's creators
written one to a line, family name first."""

from __future__ import annotations

from pathlib import Path

from framework.memory import MiniLMEmbedder, SemanticStore
from tests.extracting import answer
from tests.test_extraction_metadata import _fields

_MAINTAINERS = (
    "# kiln: MAINTAINERS\n\n```\nKILN BURNER DRIVER\nM:\tJo Pike <jo@example.org>\n"
    "S:\tMaintained\nF:\tdrivers/burner.c\n\nKILN DOOR SENSOR\nM:\tNoor Halse <noor@example.org>\n"
    "R:\tAda Marsh <ada@example.org>\nL:\tkiln@lists.example.org\nS:\tMaintained\n```\n"
)


def test_a_maintainers_entry_names_the_maintainers_and_reviewers_of_its_title() -> None:
    assert _fields(_MAINTAINERS) == {
        ("kiln burner driver", "maintainer", "Jo Pike"),
        ("kiln door sensor", "maintainer", "Noor Halse"),
        ("kiln door sensor", "reviewer", "Ada Marsh"),
    }
    assert not _fields("Notes\nM: Jo Pike\n")  # no entry: no status, files or list field


def test_asked_who_maintains_an_entry_its_m_line_answers(
    tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    with SemanticStore(tmp_path / "graph.sqlite", embedder=embedder) as store:
        said = answer(_MAINTAINERS, "Who maintains the kiln door sensor?", store)
    findings = said.split("## Sources")[0]
    assert "Noor Halse" in findings and "Jo Pike" not in findings, said


def test_an_owners_file_a_pkgbuild_and_a_tag() -> None:
    owners = (
        "# kiln: burner/OWNERS\n\n```yaml\napprovers:\n  - noor-halse\nreviewers:\n"
        "  - jo-pike\nemeritus_approvers:\n  - ada-marsh\n```\n"
    )
    assert _fields(owners) == {
        ("burner", "approver", "noor-halse"),
        ("burner", "reviewer", "jo-pike"),
    }
    pkgbuild = (
        "```bash\n# Maintainer: Jo Pike <jo at example dot org>\n"
        "# Contributor: Ada Marsh <ada at example dot org>\n\npkgname=python-kiln\n"
        'pkgver=1.0\nurl="https://git.example.org/kiln"\n```\n'
    )
    assert _fields(pkgbuild) == {
        (thing, role, who)
        for thing in ("python-kiln package", "kiln package")
        for role, who in (("maintainer", "Jo Pike"), ("contributor", "Ada Marsh"))
    }
    tag = (
        "```\n$ git show v1.0\ntag v1.0\nTagger: Ines Carrow <ines@example.org>\n"
        "Date:   Tue Mar 12 14:05:33 2024 +0000\n\nkiln 1.0\n\n"
        "commit 9f3c2a1d7b4e08c5a6f1e2d3b4c5a6978f0e1d2c (tag: v1.0)\n"
        "Author: Tom Bell <tom@example.org>\nDate:   Mon Mar 11 09:12:40 2024 +0000\n\n"
        "    Bump the version to 1.0\n```\n"
    )
    assert ("release v1.0", "tagger", "Ines Carrow") in _fields(tag)
    assert not any(who == "Ines Carrow" and role != "tagger" for _, role, who in _fields(tag))


def test_creators_written_one_to_a_line_family_name_first() -> None:
    zenodo = (
        '```json\n{\n  "title": "kiln-sync",\n  "creators": [\n'
        '    {"name": "Halse, Noor", "affiliation": "Brede Council"}\n  ],\n'
        '  "contributors": [\n    {"name": "Pike, Jo", "type": "Editor"}\n  ]\n}\n```\n'
    )
    assert _fields(zenodo) == {
        ("kiln-sync", "creator", "Noor Halse"),
        ("kiln-sync", "author", "Noor Halse"),
        ("kiln-sync", "contributor", "Jo Pike"),
    }


def test_a_change_log_entry_names_the_writer_of_what_it_calls_new() -> None:
    log = (
        "# tidecheck: ChangeLog\n\n```\n2024-03-14  Morvoren Hocking  <morvoren@example.org>\n\n"
        "\t* tidecheck/gauge.py (read_gauge): Retry once on a timeout.\n\n"
        "2024-03-12  Conan Trewhella  <conan@example.org>\n\n"
        "\t* tidecheck/neap.py (check_neap, spring_range): New functions.\n"
        "\t* tidecheck/tables.py: New file.\n```\n"
    )
    assert _fields(log) == {
        ("check_neap function", "author", "Conan Trewhella"),
        ("spring_range function", "author", "Conan Trewhella"),
        ("tidecheck/tables.py", "author", "Conan Trewhella"),
    }


def test_a_shortlog_names_who_made_the_most_commits_and_no_one_on_a_tie() -> None:
    shortlog = (
        "# tidecheck: commits by author\n\n```\n$ git shortlog -sne\n"
        "   412\tDemelza Rickard <demelza@example.org>\n"
        "    97\tWenna Hosken <wenna@example.org>\n```"
    )
    assert _fields(shortlog) == {("tidecheck", "author of the most commits", "Demelza Rickard")}
    tied = shortlog.replace("412", "97")
    assert not _fields(tied)


def test_a_debian_long_description_is_read_as_prose_about_its_package(
    store: SemanticStore,
) -> None:
    control = (
        "# sgeir-tide: debian/control\n\n```\nSource: sgeir-tide\n"
        "Maintainer: Debian Science Team <science@example.org>\n"
        "Uploaders: Eilidh Munro <eilidh@example.org>\n\nPackage: python3-sgeir-tide\n"
        "Description: tide predictions\n sgeir-tide predicts the tides of small harbours. It was"
        " written\n by Sorcha Mackinnon at the Oban marine station.\n```\n"
    )
    said = answer(control, "Who wrote sgeir-tide?", store).split("## Sources")[0]
    assert "Sorcha Mackinnon" in said
    assert "Eilidh Munro" not in said
