"""Who made a thing as a format's metadata records it: a git commit's author of what its
subject line adds, Sphinx's module and section authors, a module's ``__author__``, LaTeX's
``\\author`` of its ``\\title`` (not the ``\\thanks`` inside), a CITATION.cff file's authors (not
its contact), an iCalendar event's organiser (not its attendees) and a JSON-LD creator (not its
publisher); and that "wrote" asks for an author, "made" for a creator. A term an agreement
defines ("the Builder") stands for its party; a clause after "two years before" has its own
subject; an author-year citation is no party to the claim it supports; a reply's "Not quite:"
denies what it answers, not what it goes on to say."""

from __future__ import annotations

from teams.extraction.asides import without_citations
from teams.extraction.metadata import metadata_fields
from teams.extraction.patterns import read_sentence
from teams.language.senses import deed_sense
from teams.language.words import stem
from tests.extracting import triples


def _relations(text: str) -> set[tuple[str, str, str]]:
    found, _ = triples(text)
    return {(subject, predicate, thing) for subject, predicate, thing, _ in found}


def _fields(text: str) -> set[tuple[str, str, str]]:
    return {(thing, role, who) for _, thing, role, who in metadata_fields(text.split("\n"))}


def test_a_commit_names_the_author_of_what_it_adds_not_its_committer() -> None:
    log = (
        "```\ncommit 3f9c2ab71d0e\nAuthor:     Ina Vale <ina@example.org>\n"
        "Commit:     Tom Wren <tom@example.org>\n\n    Add the kiln purge command\n\n"
        "    Reviewed-by: Oli Pry <oli@example.org>\n```"
    )
    assert _fields(log) == {("kiln purge command", "author", "Ina Vale")}
    assert metadata_fields(log.split("\n"))[0][0] == 3  # the "Author:" line
    assert not _fields("commit 3f9c2ab\nAuthor: Ina Vale\n\n    Fix a typo")  # adds nothing


def test_sphinx_directives_name_a_modules_and_a_sections_authors() -> None:
    page = (
        "Kiln storage\n============\n\n.. module:: kiln.store\n"
        ".. moduleauthor:: Pia Quay <pia@example.org>\n.. sectionauthor:: Oz Lisle\n"
    )
    assert _fields(page) == {
        ("kiln.store module", "author", "Pia Quay"),
        ("Kiln storage", "author", "Oz Lisle"),
    }


def test_a_modules_dunder_author_is_its_packages() -> None:
    code = '# kiln/__init__.py\n\n```python\n__author__ = "Ivo Bell"\n__version__ = "2.3"\n```'
    assert _fields(code) == {("kiln package", "author", "Ivo Bell")}
    assert _fields("See fire.py:\n\n__maintainer__ = 'Rae Quill'") == {
        ("fire module", "maintainer", "Rae Quill")
    }
    assert not _fields('__author__ = "Ivo Bell"')  # of no file named


def test_latex_authors_are_of_the_title_without_their_thanks() -> None:
    title = "\\title{Salt pans}\n\\author{Cai Rees\\thanks{Paid by Hal Vane.} \\and Bo Lund}"
    assert _fields(title) == {
        ("Salt pans", "author", "Cai Rees"),
        ("Salt pans", "author", "Bo Lund"),
    }


def test_a_citation_files_authors_not_its_contact() -> None:
    cff = (
        "cff-version: 1.2.0\ntitle: Skein\nauthors:\n  - family-names: Garrow\n"
        "    given-names: Elin\ncontact:\n  - family-names: Pask\n    given-names: Mor\n"
    )
    assert _fields(cff) == {("Skein", "author", "Elin Garrow")}
    assert metadata_fields(cff.split("\n"))[0][0] == 4


def test_an_events_organiser_not_its_attendees() -> None:
    event = (
        "BEGIN:VEVENT\nSUMMARY:Kelby lantern fair\nORGANIZER;CN=Hal Bligh:mailto:h@example.org\n"
        "ATTENDEE;CN=Ro Pike:mailto:r@example.org\nEND:VEVENT"
    )
    assert _fields(event) == {("Kelby lantern fair", "organizer", "Hal Bligh")}


def test_a_linked_data_creator_not_its_publisher() -> None:
    data = (
        '<script type="application/ld+json">\n{\n  "@context": "https://schema.org",\n'
        '  "name": "The Heron",\n  "creator": {"@type": "Person", "name": "Wen Trask"},\n'
        '  "publisher": {"@type": "Organization", "name": "Arts Trust"}\n}\n</script>'
    )
    assert _fields(data) == {("The Heron", "creator", "Wen Trask")}
    assert not _fields('{"name": "The Heron", "creator": "Wen Trask"}')  # no linked data


def test_metadata_fields_are_relations_of_their_documents() -> None:
    found, _ = triples(
        "# History\n\n```\ncommit 4f1c2a9\nAuthor: Ina Vale\n\n    Add the tide parser\n```\n"
    )
    assert any(t[0] == "tide parser" and t[2] == "Ina Vale" and t[3] == 5 for t in found)


def test_writing_asks_for_an_author_and_making_for_a_creator() -> None:
    assert deed_sense(stem("author")) == deed_sense(stem("write"))
    assert deed_sense(stem("creator")) == deed_sense(stem("make"))
    assert deed_sense(stem("author")) != deed_sense(stem("build"))


def test_a_defined_term_stands_for_its_party() -> None:
    found = _relations(
        "# Agreement\n\nThis agreement is made between the Trustees of Ross chapel "
        '("the Trustees") and Ivo Pell, mason, of Truro ("the Builder").\n\n'
        "1. The Builder shall build the Ross schoolroom by 1874.\n"
    )
    assert ("Ivo Pell", "shall build", "Ross schoolroom") in found


def test_a_clause_after_before_has_its_own_subject_and_quote() -> None:
    found, _ = triples(
        "# Kell\n\nRuth Orme built the Kell bridge in 1830, two years before Sam Dent built "
        "the Kell mill.\n"
    )
    mill = [t for t in found if t[0] == "Sam Dent" and t[2] == "Kell mill"]
    assert mill and not any(t[0] == "Ruth Orme" and t[2] == "Kell mill" for t in found)


def test_an_author_year_citation_is_no_party_to_the_claim() -> None:
    assert (
        without_citations("It was built in 1834 (Greenhalgh 1952, p. 41) by Ann Oddy.", " … ")
        == "It was built in 1834 … by Ann Oddy."
    )
    assert read_sentence("The bridge was built in 1834 (Greenhalgh 1952, p. 41) by Ann Oddy.")


def test_a_reply_that_opens_with_a_rebuttal_states_what_follows() -> None:
    found = _relations(
        "# Re: the Tarn mill\n\nOn 3 May, Nell Ashby wrote:\n"
        "> I read that Jon Reed built the Tarn mill.\n\n"
        "Not quite: Ada Reed built the Tarn mill in 1802.\n"
    )
    assert ("Ada Reed", "built", "Tarn mill") in found
    assert ("Jon Reed", "built", "Tarn mill") not in found
