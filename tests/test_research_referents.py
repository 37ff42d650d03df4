"""What a sentence refers to and how a question is read: "this X" named a few sentences back
or after a long opening clause, a pronoun after emphasis or a conjunction, a glossary's
definitions, an acronym a question spells out, a British spelling, a reason asked without
"why", and a statement that offers alternatives to another's value."""

from __future__ import annotations

from framework.engine.records import Evidence
from framework.memory import Passage, prose_sentences
from teams.language.acronyms import spelled_out, with_acronyms
from teams.language.questions import answer_kind
from teams.language.sentence_choice import given, ranked_sentences
from teams.language.words import stem
from teams.research.offline import _answers, _unambiguous


def _leaning(text: str, question: str) -> dict[str, int]:
    """How many sentences back each sentence of ``text`` leans, by its first words."""
    return {" ".join(s.sentence.split()[:3]): s.leans for s in ranked_sentences(text, question)}


def test_this_x_reaches_back_to_the_sentence_that_names_x_past_an_example() -> None:
    text = (
        "You can toggle the `strict-names` setting in your configuration file.\n\n"
        "In the example above, a bare prefix would not select the rule. "
        "Each rule will need to be selected with its exact code.\n\n"
        "If checking is not enabled, this setting has no effect."
    )
    scored = ranked_sentences(text, "Does strict-names do anything when checking is off?")
    last = scored[-1]
    assert last.leans == 3 and stem("strict-names") in last.borrowed


def test_this_x_after_a_long_opening_clause_points_back_but_a_pronoun_there_does_not() -> None:
    text = (
        "The fix replaces the loop with a single call.\n\n"
        "Since the change in error type could break handling further up the stack, "
        "this fix is marked unsafe."
    )
    assert _leaning(text, "Why is the loop rewrite unsafe?")["Since the change"] == 1
    own = (
        "The default is thirty minutes.\n\n"
        "If a consumer does not acknowledge its delivery within the whole timeout value, "
        "its channel is closed."
    )
    assert _leaning(own, "When is a channel closed?")["If a consumer"] == 0


def test_a_sentence_naming_x_only_as_this_x_is_not_what_it_stands_for() -> None:
    text = (
        "There are a few ways to fix this issue.\n\n"
        "Tools like the packer remove metadata. "
        "They do it to reduce package size. "
        "Some keep it when asked.\n\n"
        "You can fix this issue by turning the slim setting off."
    )
    assert _leaning(text, "Which setting keeps the metadata?")["You can fix"] == 1


def test_a_pronoun_after_emphasis_a_conjunction_or_a_bracket_leans_on_the_sentence_before() -> None:
    text = (
        "The database is deleted when the program ends. "
        "But **it works great for testing**, because it is quick to create."
    )
    assert _leaning(text, "Why is an in-memory database good for tests?")["But **it works"] == 1
    text = (
        "The most important module is `_run.py`. (This is also by far the largest module; it "
        "would be nice to split it, but it is tangled.)"
    )
    assert _leaning(text, "Which module is the biggest?")["(This is also"] == 1


def test_a_glossary_directive_holds_its_terms_and_definitions() -> None:
    text = (
        ".. glossary::\n\n"
        "   asynchronous file object\n"
        "       This is an object with an API like a file object, except that all methods\n"
        "       that do I/O are async functions.\n"
    )
    sentences = [sentence for _, sentence in prose_sentences(text)]
    assert sentences and sentences[0].startswith("asynchronous file object: This is an object")
    assert prose_sentences(".. note::\n\n   Mind the gap.\n") == [(3, "Mind the gap.")]
    assert prose_sentences("Example::\n\n    run(this is code)\n") == [(1, "Example::")]


def test_an_acronym_the_question_spells_out_is_added_to_it() -> None:
    assert spelled_out("UUID", ["universally", "unique", "identifier"])
    assert spelled_out("FBI", ["Federal", "Bureau", "of", "Investigation"])
    assert not spelled_out("DNS", ["does", "not", "start"])
    asked = "How fast is a read on a solid-state drive when the data is not cached?"
    texts = ["The average is ~100 µs for SSDs.", "It uses HTTP and TOML."]
    assert with_acronyms(asked, texts) == (
        "How fast is a read on a solid-state drive (SSD) when the data is not cached?"
    )
    assert with_acronyms("Is the SSD fast?", texts) == "Is the SSD fast?"


def test_british_and_american_spellings_meet() -> None:
    pairs = [
        ("behaviour", "behavior"),
        ("organisation", "organization"),
        ("analysed", "analyzed"),
        ("centres", "centers"),
        ("catalogue", "catalog"),
        ("licence", "license"),
        ("precise", "precisely"),
    ]
    assert all(stem(british) == stem(american) for british, american in pairs)
    assert stem("hour") != stem("hor") and stem("four") == "four"


def test_a_reason_asked_without_why_and_a_description_asked_with_what() -> None:
    assert answer_kind("What makes an in-memory database a good choice for tests?") == "reason"
    assert answer_kind("The id is never NULL, so what is the reason for Optional?") == "reason"
    assert answer_kind("What effect does passing echo=True have?") == ""
    assert answer_kind("What setting turns it off?") == "name"


def test_the_sentence_after_it_is_cited_with_a_pronoun_it_leans_on() -> None:
    text = (
        "In this example, we are also using the argument `echo=True`.\n\n"
        "It will make the engine print all the SQL statements it executes."
    )
    passage = Passage(source="g.md:1", path="g.md", line=1, heading="Echo", text=text, score=1.0)
    answered = _answers(passage, "What effect does passing echo=True have on the engine?")
    assert answered is not None
    assert any("print all the SQL statements" in item.text for item in answered.evidence)


def test_a_statement_offering_alternatives_to_another_statements_value_is_left_out() -> None:
    plain = Evidence(source="a.md:3", text="It is rendered as a 403 with a 3404 close code.")
    either = Evidence(
        source="a.md:9", text="It is denied with a 403 and a close code of either 3404 or 3405."
    )
    kept = _unambiguous([plain, either], "quantity", "Which close code does it get?")
    assert kept == [plain]


def test_a_sentence_naming_more_things_than_another_is_kept_for_a_question_of_a_name() -> None:
    question = "Which limitation of a host makes `plain_urls` false necessary?"
    shown = "The tables show how the URLs differ when `plain_urls` is `true` or `false`."
    one = Evidence(source="c.md:1", text=shown)
    more = Evidence(
        source="c.md:4", text=f"{shown} It is needed where hosts can't open `X/index.html`."
    )
    assert given("name", one.text, question) < given("name", more.text, question)
    assert _unambiguous([one, more], "name", question) == [one, more]
