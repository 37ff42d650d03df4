"""Which sentences the offline research team cites: the one stating the fact, not its lead-in,
a restatement of the question, code or console output; a second fact beside the first."""

from __future__ import annotations

from dataclasses import replace

import pytest

from framework.engine.records import Evidence
from framework.memory import Passage, prose_sentences
from teams.language._sentences import sentences_of
from teams.language.questions import asks_default, asks_one_value, split_question
from teams.language.senses import deed_sense, deed_wording, plain_wording, sense
from teams.language.sentence_choice import best_sentences, given, gives_reason
from teams.language.words import stem
from teams.research.offline import _agreeing, _Answered, _answers


def _passage(text: str, heading: str = "") -> Passage:
    return Passage(
        source="guide.md:1", path="guide.md", line=1, heading=heading, text=text, score=0.8
    )


def _cited_text(text: str, question: str) -> str:
    """Every sentence cited for ``question``, joined."""
    return " ".join(sentence for _, sentence in _cited(text, question))


def _cited(text: str, question: str, heading: str = "") -> list[tuple[str, str]]:
    answered = _answers(_passage(text, heading), question)
    assert answered is not None
    return [(evidence.source, evidence.text) for evidence in answered.evidence]


def test_code_console_output_and_titles_hold_no_sentence() -> None:
    text = (
        "The pump starts on its own.\n\n"
        "    pump = Pump(rate=10)\n"
        "    pump.start()\n\n"
        "Run it like this::\n\n"
        "    Pump output looks like this line here.\n\n"
        "$ pump --rate 10\n"
        "Pumping at ten litres a minute now\n\n"
        "**Default rates**\n\n"
        "Setting the rate\n"
        "----------------\n\n"
        "!!! note\n"
        "    The rate is in litres.\n\n"
        "- a list item\n\n"
        "    A paragraph of the item stays prose.\n"
    )
    assert [sentence for _, sentence in prose_sentences(text)] == [
        "The pump starts on its own.",
        "Run it like this::",
        "The rate is in litres.",
        "a list item",
        "A paragraph of the item stays prose.",
    ]


def test_a_line_before_a_code_fence_is_no_title() -> None:
    text = "The tools are not thread-safe.\n```python\nprint('x')\n```\n"
    assert prose_sentences(text) == [(1, "The tools are not thread-safe.")]


def test_the_sentence_after_a_lead_in_states_what_it_announces() -> None:
    text = (
        "The ferry timetable for the winter months is as follows:\n\n"
        "The ferry timetable has boats at eight, noon and six in winter.\n"
    )
    [(_, sentence)] = best_sentences(text, "What is the ferry timetable in winter?", limit=1)
    assert sentence.startswith("The ferry timetable has boats at eight")


def test_a_restatement_of_the_question_gives_way_to_the_fact() -> None:
    text = "Ferry crossings in winter.\n\nIn winter the ferry crosses twice a day.\n"
    [(_, sentence)] = best_sentences(text, "How often does the ferry cross in winter?", limit=1)
    assert sentence == "In winter the ferry crosses twice a day."


def test_an_item_is_cited_after_the_lead_in_that_quotes_its_list() -> None:
    text = (
        "You can steer the kiln by sending commands to its controller.\n\n"
        "- `HEAT`: Raise the kiln temperature by ten degrees.\n"
        "- `COOL`: Lower the kiln temperature by ten degrees.\n"
        "- `HOLD`\n"
    )
    cited = _cited(text, "Which commands can be sent to the kiln controller?")
    assert cited[0] == (
        "guide.md:1",
        "You can steer the kiln by sending commands to its controller. `HEAT`; `COOL`; `HOLD`.",
    )


def test_a_second_fact_of_the_passage_is_cited_beside_the_first() -> None:
    text = (
        "The Osprey camera records video at 60 frames a second.\n"
        "Its housing is sealed against rain.\n"
        "The battery of the Osprey camera lasts four hours.\n"
    )
    cited = _cited(
        text, "How fast does the Osprey camera record video and how long does the battery last?"
    )
    assert [source for source, _ in cited] == ["guide.md:1", "guide.md:3"]


def test_a_pronoun_sentence_is_cited_with_what_it_stands_for() -> None:
    text = (
        "The rover's clock is set to zero after a reset.\n"
        "This is because the clock loses its value without power.\n"
    )
    [(source, sentence)] = _cited(text, "Why is the rover's clock set to zero after a reset?")
    assert source == "guide.md:2"
    assert sentence == (
        "The rover's clock is set to zero after a reset. "
        "This is because the clock loses its value without power."
    )


def test_this_x_early_in_a_sentence_stands_for_the_sentence_before() -> None:
    text = (
        "The rover's firmware tags tell the dock which build it runs.\n"
        "Some packers strip the firmware tags to save space.\n"
        "You can avoid this problem by setting the `lean` option to false.\n"
    )
    question = "What must be switched off so that packers keep the rover's firmware tags?"
    assert (
        "guide.md:3",
        "Some packers strip the firmware tags to save space. You can avoid "
        "this problem by setting the `lean` option to false.",
    ) in _cited(text, question)


@pytest.mark.parametrize(
    ("sentence", "says_why"),
    [
        ("The file holds every rate, so reading a list as well clashes.", True),
        ("Reading a list beside the file would create clashes.", True),
        ("The pump is so quiet that nobody hears it.", False),
        ("Pumps work, so far, on two shifts.", False),
    ],
)
def test_a_consequence_drawn_with_so_or_would_says_why(sentence: str, says_why: bool) -> None:
    assert gives_reason(sentence) is says_why


def test_a_why_question_gets_the_cause_of_a_consequence() -> None:
    text = (
        "The gate closes as soon as the tide reaches the mark.\n"
        "This means that a boat still inside at high tide stays in the dock until the gate opens.\n"
    )
    [(_, sentence)] = _cited(text, "Why does a boat stay in the dock at high tide?")
    assert sentence.startswith("The gate closes as soon as the tide reaches the mark.")


def test_a_pronoun_opening_a_section_is_cited_with_its_heading() -> None:
    text = "This engine was the first one built.\nIt runs on coal.\n"
    [(_, sentence), *_] = _cited(text, "Which engine was built first?", heading="Stag engine")
    assert sentence == "Stag engine: This engine was the first one built."


def test_it_in_a_second_question_stands_for_the_thing_asked_about() -> None:
    assert split_question("Which port does the relay use and how is it changed?") == [
        "Which port does the relay use",
        "how is port changed",
    ]


def test_it_after_a_second_questions_own_subject_stands_for_that_subject() -> None:
    question = (
        "Which port does the relay use, and which port does a kiln URL assume when it has none?"
    )
    assert split_question(question)[1] == "which port does a kiln URL assume when it has none"


def test_a_plural_in_es_has_the_stem_of_its_singular() -> None:
    assert stem("processes") == stem("process")
    assert stem("notes") == stem("note")
    assert stem("matches") == stem("match")


def test_a_verb_in_e_has_one_stem_in_every_form() -> None:
    assert stem("disable") == stem("disabled") == stem("disabling") == stem("disables")
    assert stem("configure") == stem("configured")
    assert stem("use") == stem("uses")  # too short to cut: "used" stays whole


def test_a_question_worded_with_a_phrasal_verb_finds_the_sentence_with_its_verb() -> None:
    text = (
        "The ledger keeps a copy of each receipt.\n\n"
        "The variable LEDGER_COLOUR picks the colour of the ledger output.\n\n"
        "The variable LEDGER_PLAIN deactivates colour output.\n"
    )
    [(_, sentence), *_] = _cited(text, "Which variable turns colour output off?")
    assert "LEDGER_PLAIN" in sentence
    assert plain_wording("switch on the kind of node") == "switch on the kind of node"
    assert plain_wording("Switch the colours on") == "enable the colours "
    assert sense(stem("dropped")) == sense(stem("removes"))


def test_a_verb_of_making_and_its_phrasal_verb_have_one_deed() -> None:
    assert deed_wording("Who set up the Kell guild?") == "Who establish the Kell guild?"
    assert deed_wording("The mill was put up in 1790.") == "The mill was build in 1790."
    assert deed_wording("Set the level up.") == "Set the level up."
    assert deed_sense(stem("established")) == deed_sense(stem("founded"))
    assert deed_sense(stem("erected")) == deed_sense(stem("builds"))
    assert deed_sense(stem("removed")) == stem("removed")


def test_a_question_about_a_list_of_things_asks_about_each() -> None:
    assert split_question("Which ports, hosts and log files does the relay use?") == [
        "Which ports does the relay use",
        "Which hosts does the relay use",
        "Which log files does the relay use",
    ]
    assert split_question("What do the speed, depth and light sensors measure?") == [
        "What do the speed sensors measure",
        "What do the depth sensors measure",
        "What do the light sensors measure",
    ]


def test_a_claim_searched_for_matches_its_own_sentence_in_full() -> None:
    text = "Tarrow bridge: opened in 1911.\nEsk bridge: opened in 1930.\n"
    [(_, sentence)] = best_sentences(text, "Tarrow bridge: opened in 1911.", limit=1)
    assert sentence == "Tarrow bridge: opened in 1911."


def test_an_include_directive_is_no_sentence_after_its_lead_in() -> None:
    text = (
        "By setting `no_args_is_help=True`, the pump shows its help when nothing is given:\n\n"
        "{* docs_src/pump/tutorial003.py hl[3] *}\n\n"
        "{% include 'pump-notes.md' %}\n\n"
        "Now we can run this:\n"
    )
    assert [s for _, s in sentences_of(text)] == [
        "By setting `no_args_is_help=True`, the pump shows its help when nothing is given:",
        "Now we can run this:",
    ]
    [(_, best)] = best_sentences(
        text, "What setting shows the pump's help when nothing is given?", limit=1
    )
    assert "no_args_is_help" in best


def test_a_section_named_after_the_thing_asked_for_gives_its_name_to_the_answer() -> None:
    text = (
        "Quill is another engraving tool, older than the rest.\n\n"
        "/// tip | Inspired **Etcher** to\n\n"
        "Offer a one-step way to engrave a whole plate from a single sketch.\n\n"
        "///\n"
    )
    question = "Which older tool inspired engraving a plate from a single sketch in one step?"
    cited = [sentence for _, sentence in _cited(text, question, heading="[Quill](https://q.org)")]
    assert cited[0] == "Quill: Offer a one-step way to engrave a whole plate from a single sketch."
    assert not any("///" in sentence for sentence in cited)  # a block marker is no sentence
    plain = "Offer a one-step way to engrave a whole plate from a single sketch.\n"
    [(_, sentence)] = _cited(plain, question, heading="Quill")  # nothing says what Quill is
    assert sentence.startswith("Offer")


def test_a_consequence_answers_why_with_its_cause_cited_where_the_cause_is() -> None:
    text = (
        "Raw tracebacks are long.\n"
        "Readers often miss the one line that matters in them.\n"
        "Therefore, the ledger prints only the error's message.\n"
    )
    [(source, sentence), *_] = _cited(text, "Why does the ledger print only the error's message?")
    assert sentence.startswith("Readers often miss") and source == "guide.md:2"


def test_a_default_on_a_line_of_its_own_below_is_quoted_and_cited_there() -> None:
    text = (
        "### spool_dir\n\n"
        "Set the folder the ledger spools receipts to.\n"
        "It can be changed on the command line.\n\n"
        "**default**: `spool`\n"
    )
    [(source, sentence), *_] = _cited(
        text, "Which folder does the ledger spool receipts to by default?"
    )
    assert sentence.endswith("**default**: `spool`") and source == "guide.md:6"


def test_an_entry_of_a_list_of_terms_the_question_does_not_name_is_passed_over() -> None:
    text = (
        "The ledger's keys are set in its settings:\n\n"
        "- **`help`**: Open a help panel that lists the keyboard shortcuts. Default: `72`\n"
        "- **`find`**: Open the find panel. Default: `70`\n"
    )
    question = "Which key code opens the find panel by default in the ledger's keyboard shortcuts?"
    cited = [sentence for _, sentence in _cited(text, question)]
    assert any("`70`" in sentence for sentence in cited)
    assert not any("`72`" in sentence for sentence in cited)


def test_a_second_figure_beside_the_best_one_is_a_rival_not_a_second_fact() -> None:
    text = "- Retire support of Python 2.6 in the cleanup.\n- Add support for Python version 3.5.\n"
    question = "Support for which Python version was retired in the cleanup?"
    cited = [sentence for _, sentence in _cited(text, question)]
    assert cited == ["Retire support of Python 2.6 in the cleanup."]


def test_another_page_s_rival_value_is_not_stated_beside_the_answer() -> None:
    def found(source: str, text: str, score: float = 1.0) -> _Answered:
        evidence = [Evidence(source=source, text=text, score=0.5)]
        return _Answered(_passage(text), score, evidence)

    cited = [
        found("a.md:3", "Turn colour off everywhere with the variable `LEDGER_NO_COLOR`.", 2.0),
        found("b.md:9", "Set the variable `LEDGER_PLAIN_ERRORS=1` to print plain errors."),
        found("c.md:2", "`LEDGER_NO_COLOR` is read once, when the ledger starts."),
        found("d.md:1", "An environment variable lives outside your code."),
    ]
    one = "Which environment variable turns colour off for the whole ledger?"
    assert [item.source for item in _agreeing(cited, one)] == ["a.md:3", "c.md:2", "d.md:1"]
    several = "Which environment variables does the ledger read?"
    assert len(_agreeing(cited, several)) == 4  # several asked: each is an answer
    stronger = [cited[0], replace(cited[1], score=3.0)]
    kept = _agreeing(stronger, one)  # a rival that answers better is kept, as disputed
    assert [(item.source, item.disputed) for item in kept] == [("a.md:3", False), ("b.md:9", True)]
    unvalued = found("e.md:2", "The ledger reads its colour setting before anything else.", 4.0)
    kept = _agreeing([unvalued, *stronger], one)  # the first passage to give a value answers
    assert [item.disputed for item in kept] == [False, False, True]


def test_one_version_written_with_or_without_its_trailing_zeros_agrees() -> None:
    question = "Support for which Python version did the ledger retire in release 0.15.0?"
    stated = given("version", "0.15.0: Retire Python 2.6, pending removal in 1.0.0.", question)
    assert stated == {"2.6", "1"}  # 0.15.0 is the question's own; 1.0.0 is 1.0
    assert given("name", "**`shortcuts`**: Defines the shortcut keys.", "Which shortcut?") == set()


@pytest.mark.parametrize(
    "question",
    [
        "Which spool does the ledger write to unless told otherwise?",
        "Which spool does the ledger write to out of the box?",
        "Which spool does the ledger write to if the spool option is left alone?",
        "If you never configure it, which spool does the ledger write to?",
        "Which spool does the ledger write to when --spool is not given?",
        "If I start the ledger without saying where to write, which spool does it use?",
        "Unless I ask for another, which spool does the ledger write to?",
        "Which spool does the ledger write to if I don't name one?",
        "Which spool does the ledger write to when I have not configured one?",
        "Which spool does the ledger write to if I don't override anything?",
    ],
)
def test_a_default_asked_in_other_words_finds_the_sentence_that_states_it(question: str) -> None:
    text = (
        "The ledger can write to a spool named `archive` when asked.\n\n"
        "The ledger writes to the spool named `daily`, which is the default.\n"
    )
    assert asks_default(question)
    [(_, sentence), *_] = _cited(text, question)
    assert "`daily`" in sentence


def test_a_word_written_with_a_hyphen_meets_the_same_words_written_apart() -> None:
    text = (
        "The ledger prints the left hand column in full.\n\n"
        "The right hand column is cut after 40 characters.\n"
    )
    [(_, sentence), *_] = _cited(text, "How wide can the right-hand column get?")
    assert "40 characters" in sentence


def test_a_statement_of_two_values_is_left_out_beside_one_that_states_the_answer_alone() -> None:
    def found(source: str, text: str) -> _Answered:
        return _Answered(_passage(text), 1.0, [Evidence(source=source, text=text, score=0.5)])

    cited = [
        found(
            "a.md:7",
            "A spool holds `[ledger]` (since 9.0) or `[ledger.old]` (8.1).",
        ),
        found("b.md:3", "Use `[ledger]` for native types (supported since ledger 9.0)."),
    ]
    question = "Since which ledger version can a spool hold a [ledger] table with native types?"
    assert [item.source for item in _agreeing(cited, question)] == ["b.md:3"]
    several = [
        found("c.md:4", "Ledger 2.1 dropped spools of kind 3.6; ledger 4.0 dropped kind 3.8."),
        found("d.md:8", "Ledger 2.1 dropped spools of kind 3.6."),
    ]
    pointed = "Which ledger releases must I keep to read spools of kind 3.6?"
    assert [item.source for item in _agreeing(several, pointed)] == ["d.md:8"]


def test_the_sentence_after_a_question_the_text_asks_answers_it() -> None:
    text = (
        "Every kiln can check its own glaze before a firing.\n\n"
        "Why does the kiln not check the clay for you? The right place for that is the potter's "
        "wheel, which the kiln never sees.\n"
    )
    [(source, sentence), *_] = _cited(text, "Why does the kiln not inspect the clay for you?")
    assert "potter's wheel" in sentence and source == "guide.md:3"


def test_adjectives_of_one_quality_meet() -> None:
    text = (
        "When checks are turned off, the kiln fires any glaze, which leaves each batch "
        "vulnerable to cracking.\n\n"
        "Turning checks off is common while you write a new glaze.\n"
    )
    [(_, sentence), *_] = _cited(text, "Why is turning checks off risky?")
    assert "cracking" in sentence


def test_a_shortcode_in_prose_is_not_a_word_of_the_sentence() -> None:
    text = "{{% note %}}\nThe kiln cools for six hours after each firing.\n{{% /note %}}\n"
    [(_, sentence)] = _cited(text, "How long does the kiln cool after a firing?")
    assert sentence == "The kiln cools for six hours after each firing."


def test_first_became_available_asks_when_it_was_introduced() -> None:
    text = (
        "### `kiln.parallel`\n\n"
        "*Introduced in 1.4.2*\n\n"
        "Fire several kilns at once with the new scheduler.\n"
    )
    question = "In which ledger version did firing several kilns at once first become available?"
    cited = [sentence for _, sentence in _cited(text, question)]
    assert any("1.4.2" in sentence for sentence in cited)
    assert plain_wording("It first became available in 2.0") == "It was introduced in 2.0"
    assert plain_wording("When did the --glaze option come in?").endswith("was introduced?")
    assert plain_wording("Do the kilns come in handy?") == "Do the kilns come in handy?"


@pytest.mark.parametrize(
    "text",
    [
        "In which release did the kiln gain the ability to glaze?",
        "Ledger 2.3 added support for glazing in the kiln.",
        "Since 2.3 the kiln is able to glaze, as it gained support for glazes.",
    ],
)
def test_gaining_an_ability_is_its_introduction(text: str) -> None:
    assert "introduced" in plain_wording(text)


def test_a_release_asked_with_two_words_before_it_asks_for_one_version() -> None:
    assert asks_one_value("In which future Python release may the kiln change?") == "version"


def test_a_sentence_referring_back_with_a_rival_value_is_not_quoted_for_one_value() -> None:
    text = (
        "Future kilns (potentially ledger 3.14) will fire without a fan by default.\n"
        "This behaviour is available to kilns in ledger 3.7 and later through the quiet switch.\n"
    )
    question = "In which future ledger release may kilns fire without a fan by default?"
    cited = _cited_text(text, question)
    assert "3.14" in cited and "3.7" not in cited


def test_a_short_form_meets_what_it_stands_for() -> None:
    text = "The kiln logs every firing to its ledger file.\n\nSend kiln stdout/stderr to `FILE`.\n"
    question = "Where can the kiln's standard output and error go?"
    [(_, sentence), *_] = _cited(text, question)
    assert sentence == "Send kiln stdout/stderr to `FILE`."
    assert plain_wording("Set the Env var in the config") == (
        "Set the Env var environment variable in the config configuration"
    )


@pytest.mark.parametrize(
    ("word", "same"),
    [
        ("folder", "directories"),
        ("practical", "handy"),
        ("merging", "combine"),
        ("final", "last"),
        ("place", "locations"),
        ("mandatory", "requirement"),
    ],
)
def test_words_of_one_sense_meet(word: str, same: str) -> None:
    assert sense(stem(word)) == sense(stem(same))


def test_a_version_note_block_names_its_release_in_the_sentence_it_holds() -> None:
    text = (
        "Pumps can run at night.\n\n"
        "/// version-added | v3.4\n"
        "Pumps can take a rate from the previous pump.\n"
        "///\n\n"
        "/// deprecated-removed | v3.6 v4\n"
        "The `burst` mode is kept for old pumps.\n"
        "///\n\n"
        "/// tip | Pumping at night\n"
        "Quiet pumps suit night shifts best.\n"
        "///\n"
    )
    assert prose_sentences(text) == [
        (1, "Pumps can run at night."),
        (3, "Added in v3.4: Pumps can take a rate from the previous pump."),
        (7, "Deprecated in v3.6 (removed in v4): The `burst` mode is kept for old pumps."),
        (12, "Quiet pumps suit night shifts best."),
    ]
    question = "Since which release can a pump take its rate from the pump before it?"
    [(_, best)] = best_sentences(text, question, limit=1)
    assert best.startswith("Added in v3.4")


def test_a_version_directive_names_its_release_above_the_section_it_opens() -> None:
    text = (
        "Pumps\n=====\n\n"
        ".. versionadded:: 3.4\n\n"
        "A pump can take its rate from the pump before it.\n\n"
        ".. versionchanged:: 3.6 Night shifts are logged.\n\n"
        ".. deprecated:: 4.0\n   Use the `steady` mode instead.\n"
    )
    assert prose_sentences(text) == [
        (4, "Added in 3.4:"),
        (6, "A pump can take its rate from the pump before it."),
        (8, "Changed in 3.6: Night shifts are logged."),
        (10, "Deprecated in 4.0: Use the `steady` mode instead."),
    ]
    question = "Since which release can a pump take its rate from the pump before it?"
    cited = [sentence for _, sentence in _cited(text, question)]
    assert "Added in 3.4:" in cited


def test_a_pronoun_under_a_version_note_stands_for_the_sentence_above_the_note() -> None:
    text = (
        "Fan extension\n-------------\n\n"
        "**Import name:** ``kiln.ext.fan``\n\n"
        ".. versionchanged:: 2.9\n\n"
        "    This extension is now built in and no longer does anything.\n"
    )
    question = "What happens nowadays when I enable the kiln.ext.fan extension?"
    cited = _cited_text(text, question)
    assert "no longer does anything" in cited


def test_a_version_as_a_ceiling_does_not_answer_from_when_something_holds() -> None:
    text = (
        "In Ledger 3.7 and earlier, a glazed pot reported only its glaze as fired.\n"
        "In Ledger 3.8 and later, both the glaze and the pot are reported.\n"
    )
    question = "On which Ledger release did a glazed pot start having its pot reported as fired?"
    cited = _cited_text(text, question)
    assert "3.8" in cited and "3.7" not in cited


def test_an_example_value_is_not_quoted_as_a_default() -> None:
    text = (
        "The kiln fires at the `low` heat setting by default, but you can change the setting.\n\n"
        "An example could be `blaze`:\n\n"
        "This setting must be configured on the kiln, by writing ``kiln.heat = 'blaze'`` in the "
        "kiln ledger before the kiln fires.\n"
    )
    question = "Which heat setting does the kiln fire at when I have not configured one?"
    cited = _cited_text(text, question)
    assert "`low`" in cited and "blaze" not in cited


def test_a_how_question_quotes_the_sentence_saying_how_it_is_done() -> None:
    text = (
        "The kiln has three fans.\n"
        "The `quiet` fan cools the kiln with much less noise than the others.\n"
        "It does this by slowing down once the kiln is cool.\n"
    )
    question = "How does the quiet fan keep its noise so much lower than the others?"
    cited = _cited_text(text, question)
    assert "slowing down" in cited


def test_a_when_question_quotes_the_sentence_saying_when_it_happens() -> None:
    text = (
        "The kiln has three fans.\n"
        "The `quiet` fan sometimes stops turning for a while.\n"
        "It does this when the kiln is cooler than the room.\n"
    )
    cited = _cited_text(text, "My kiln's quiet fan stops. When does the quiet fan stop turning?")
    assert "cooler than the room" in cited, cited


def test_a_myst_version_directive_names_its_release() -> None:
    text = (
        "Pumps can take a rate from the pump before them.\n\n"
        "```{versionadded} 3.4\n```\n\n"
        ":::{versionchanged} 3.6 Pumps may also run by day.\n:::\n"
    )
    assert prose_sentences(text) == [
        (1, "Pumps can take a rate from the pump before them."),
        (3, "Added in 3.4:"),
        (6, "Changed in 3.6: Pumps may also run by day."),
    ]


@pytest.mark.parametrize(
    ("question", "set_aside"),
    [
        ("If I install the pump from a kit instead of a crate, what is the oldest valve?", "crate"),
        ("Which release gave ordinary pumps (not rotary ones) a rate?", "rotary"),
    ],
)
def test_an_alternative_the_question_sets_aside_does_not_answer_it(
    question: str, set_aside: str
) -> None:
    text = (
        f"Installing from a {set_aside} needs a valve of the 2.0 series.\n"
        "Installing from a kit needs a valve of the 5.0 series.\n"
        if set_aside == "crate"
        else "Rotary pumps got a rate in 3.1.\nOrdinary pumps got one in 3.4.\n"
    )
    [(_, best)] = best_sentences(text, question, limit=1)
    assert set_aside not in best.lower()


def test_a_content_tab_title_is_no_sentence() -> None:
    text = '=== "`pump>=2.1`"\n    As of `v2.1` the pump can idle.\n'
    assert prose_sentences(text) == [(2, "As of `v2.1` the pump can idle.")]


def test_a_prefixed_word_in_the_question_meets_its_root() -> None:
    text = (
        "System installs put the manual in the shared folder.\n"
        "User installs put the manual in the home folder.\n"
    )
    [(_, best)] = best_sentences(text, "Where does a per-user install put the manual?", limit=1)
    assert best.startswith("User")
    assert best_sentences(text, "What goes under the manual, per install?", limit=1)  # no prefix


def test_a_release_note_under_a_setting_is_quoted_for_a_question_of_which_release() -> None:
    text = (
        "**Default**: `false`\n\n"
        "*Introduced in 2.0.0*\n\n"
        "The pump can skip idling between two loads of the ledger.\n\n"
        "*Deprecated in 3.1.0*\n\n"
        "The `slow` mode waits.\n\n"
        "*Changed default from `true` to `false` in 3.2.0*\n"
    )
    question = "Since which pump release can it skip idling between two loads?"
    cited = [sentence for _, sentence in _cited(text, question, heading="`pump.idle`")]
    assert cited == [
        "`pump.idle`: The pump can skip idling between two loads of the ledger.",
        "`pump.idle`: *Introduced in 2.0.0*",
    ]


def test_a_definition_list_term_opens_its_definition() -> None:
    text = (
        "Backends\n========\n\n"
        "steady\n    Pumps at one rate.\n\n    Requires ``pip install steady``.\n"
        "surge\n    Pumps in bursts, which suits night shifts.\n"
    )
    assert prose_sentences(text) == [
        (4, "steady: Pumps at one rate."),
        (7, "Requires ``pip install steady``."),
        (8, "surge: Pumps in bursts, which suits night shifts."),
    ]


def test_a_predicate_coordinated_inside_a_subordinate_clause_is_no_second_question() -> None:
    question = "How long can a pump stay idle before the relay stops it and starts another?"
    assert split_question(question) == []
    assert split_question("How do pumps start and how are they stopped?") == [
        "How do pumps start",
        "how are they stopped",
    ]


def test_a_figure_with_its_unit_written_on_is_a_figure() -> None:
    asked = "How long does the kiln wait before it opens?"
    assert given("quantity", "The kiln waits 200ms before it opens.", asked) == {"200"}
    assert given("quantity", "It ran in 0.12s and used 4.5MB.", asked) == {"0.12", "4.5"}
    assert given("quantity", "Use abc123 on the 3rd try.", asked) == set()


def test_for_a_default_the_item_marked_default_is_cited_without_its_alternatives() -> None:
    text = (
        "Several glazing methods are supported:\n\n"
        "- `dip`(default), dip each pot in the glaze bucket.\n"
        "- `spray`, spray the glaze on with the air gun.\n"
    )
    said = _cited_text(text, "If I don't pick a glazing method, how are my pots glazed?")
    assert "`dip`(default)" in said and "spray" not in said, said
    listed = _cited_text(text, "Which glazing methods are supported?")
    assert "`dip`" in listed and "`spray`" in listed, listed


def test_a_one_value_answer_is_not_quoted_on_into_a_sentence_that_gives_another() -> None:
    question = "What HTTP status does the kiln answer an expired badge with?"
    assert asks_one_value(question) == "quantity"
    text = (
        "When a badge is expired, the kiln answers with a ``401`` status and an error body. "
        "This means a client can tell an expired badge (``401``) from a badge without rights "
        "(``403``)."
    )
    said = _cited_text(text, question)
    assert "401" in said and "403" not in said, said


def test_since_when_no_longer_is_answered_by_what_held_before_a_release() -> None:
    asked = "Since which release is glazing no longer built into the kiln?"
    assert given("version", "Prior to Kiln 0.61 glazing was built in.", asked) == {"0.61"}
    assert given("version", "Glazing was built in up through 0.60.", asked) == set()
    plain = "Since which release is glazing built into the kiln?"
    assert given("version", "Prior to Kiln 0.61 glazing was a plugin.", plain) == set()


def test_a_list_of_settings_each_with_its_own_default_is_no_choice_of_one() -> None:
    text = (
        "The kiln takes a `Limits` object which defines:\n\n"
        "- `max_pots`, number of pots fired at once, or `None` for no limit.\n"
        "(Defaults 20)\n"
        "- `max_trays`, number of trays, or `None` for no limit. (Default 100)\n"
        "- `cool_time`, time to cool in minutes. (Default 5)\n"
    )
    said = _cited_text(text, "How many pots does the kiln fire at once by default?")
    assert "(Defaults 20)" in said, said


def test_a_default_named_to_compare_against_is_not_asked_for() -> None:
    assert not asks_default("Which backend fires faster than the default gas burner?")
    assert not asks_default("What can I use instead of the default glaze?")
    assert asks_default("Which burner is the default, and is it faster than the gas one?")


def test_a_why_answer_in_a_list_is_not_quoted_on_into_the_next_item() -> None:
    text = (
        "- Changed the kiln's test runner not to preheat by default (to match ``kiln.run()``)\n"
        "- Fixed ``RuntimeError`` when a firing is cancelled from a portal\n"
    )
    said = _cited_text(text, "Why did the kiln's test runner stop preheating by default?")
    assert "to match" in said and "RuntimeError" not in said, said
