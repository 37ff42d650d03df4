"""A "Who <verb> ...?" question is answered by a relation that says the deed was done, not by
one that only names the thing asked about; a noun made from the verb ("translation",
"translator", "development") says the verb's deed; a deed of drawing or recording is answered by
the maker when nothing says more."""

from __future__ import annotations

from framework.memory import SemanticStore
from teams.supervisor.answering import answering_chains
from tests.extracting import answer, found_relation


def test_a_noun_made_from_the_verb_answers_and_the_thing_alone_does_not() -> None:
    translated = found_relation(
        "Drowned Quay", "'s original translation is", "Gwinear Tonkin",
        "Original Translation: Gwinear Tonkin",
    )  # fmt: skip
    scripted = found_relation(
        "Drowned Quay", "'s original script is", "Lamorna Pentreath",
        "Original Script: Lamorna Pentreath",
    )  # fmt: skip
    question = "Who translated the French subtitles of the Drowned Quay film?"
    relations = [translated, scripted]
    assert answering_chains(question, [], relations) == [(translated,)]
    assert answering_chains("Who edited the Drowned Quay film?", [], [scripted]) == []


def test_a_deed_done_outranks_a_word_shared_with_the_question() -> None:
    evidence = "author: Elowen Trezise\nTEP-Delegate: Demelza Angwin"
    wrote = found_relation("TEP 12", "'s author is", "Elowen Trezise", evidence)
    delegate = found_relation("TEP 12", "'s tep delegate is", "Demelza Angwin", evidence)
    chains = answering_chains("Who wrote TEP 12?", ["TEP 12"], [delegate, wrote])
    assert chains == [(wrote,)]


def test_a_drawn_map_is_answered_by_its_maker(store: SemanticStore) -> None:
    svg = (
        "# Map of the Skeldasay skerries\n\n```xml\n<metadata>\n"
        "  <dc:title>Map of the Skeldasay skerries</dc:title>\n"
        "  <dc:creator>Eunice Sandison</dc:creator>\n</metadata>\n```\n"
    )
    assert "Eunice Sandison" in answer(svg, "Who drew the map of the Skeldasay skerries?", store)


def test_a_thing_named_by_part_of_its_title_is_looked_up_by_it(store: SemanticStore) -> None:
    feed = (
        '# tapster: feed.xml\n\n```xml\n<rss version="2.0">\n  <channel>\n'
        "    <title>tapster news</title>\n"
        "    <managingEditor>carys@example.org (Carys Ambrose)</managingEditor>\n"
        "    <item>\n      <title>tapster 3.2 released</title>\n"
        "      <author>nerys@example.org (Nerys Vaughan)</author>\n    </item>\n"
        "    <item>\n      <title>tapster has a new mailing list</title>\n"
        "      <author>emrys@example.org (Emrys Talbot)</author>\n    </item>\n"
        "  </channel>\n</rss>\n```\n"
    )
    said = answer(feed, "Who wrote the post announcing tapster 3.2?", store).split("## Sources")[0]
    assert "Nerys Vaughan" in said
    assert "Emrys Talbot" not in said and "Carys Ambrose" not in said


def test_a_title_that_holds_the_asked_deed_is_no_name_of_the_thing(store: SemanticStore) -> None:
    index = "# Index of millwrights\n\n- Hart, Abel (1790-1861): builder of the Quarley mill\n"
    said = answer(index, "Who built the Quarley mill?", store).split("## Sources")[0]
    assert "Not answered" not in said


def test_documentation_meets_its_documenter() -> None:
    documenter = found_relation("quillmark", "'s documenter is", "Senara Polglase", "x")
    developer = found_relation("quillmark", "'s developer is", "Ruan Trethewey", "x")
    chains = answering_chains(
        "Who wrote quillmark's documentation?", ["quillmark"], [developer, documenter]
    )
    assert chains == [(documenter,)]
