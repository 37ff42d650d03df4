"""The value readers: money, fractions, ordinals, ranges, relative dates, Markdown tables, a
value rejected in passing, and two statements compared by the attribute a value fills."""

from __future__ import annotations

import pytest

from teams.language import disagreement, rejects, values_agree, values_in
from teams.language.relative_dates import resolve_relative_dates
from teams.language.tables import table_statements


def _read(text: str) -> list[tuple[str, str, float]]:
    return [(v.kind, v.key, round(v.number, 2)) for v in values_in(text)]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("It costs $40.", ("money", "USD", 40.0)),
        ("It costs US$40.", ("money", "USD", 40.0)),
        ("It costs USD 40.", ("money", "USD", 40.0)),
        ("It costs 40 USD.", ("money", "USD", 40.0)),
        ("It costs forty dollars.", ("money", "USD", 40.0)),
        ("It costs 40 Canadian dollars.", ("money", "CAD", 40.0)),
        ("Entry is €12.", ("money", "EUR", 12.0)),
        ("Entry is 12 euros.", ("money", "EUR", 12.0)),
        ("A bed costs 25 pounds.", ("money", "GBP", 25.0)),
        ("The bag weighs 25 pounds.", ("quantity", "mass", 11.34)),
        ("The bridge cost $2.5 million.", ("money", "USD", 2_500_000.0)),
        ("Two thirds of the marsh floods.", ("quantity", "share", 66.67)),
        ("A quarter of the farm is wood.", ("quantity", "share", 25.0)),
        ("Half of the pupils walk.", ("quantity", "share", 50.0)),
        ("One in five pupils walk.", ("quantity", "share", 20.0)),
        ("Three out of four residents agree.", ("quantity", "share", 75.0)),
        ("75 per cent of the water goes.", ("quantity", "share", 75.0)),
        ("She finished 3rd in the race.", ("ordinal", "", 3.0)),
        ("She finished third in the race.", ("ordinal", "", 3.0)),
        ("It was the twenty-first church built.", ("ordinal", "church", 21.0)),
        ("The lake is 20-30 metres deep.", ("quantity", "length", 25.0)),
        ("The trail is between 8 and 10 km long.", ("quantity", "length", 9000.0)),
        ("The crossing takes half an hour.", ("quantity", "duration", 1800.0)),
        ("The crossing takes a quarter of an hour.", ("quantity", "duration", 900.0)),
        ("The quay is three quarters of a mile long.", ("quantity", "length", 1207.01)),
        ("The climb takes an hour and a half.", ("quantity", "duration", 5400.0)),
        ("The climb takes two and a quarter hours.", ("quantity", "duration", 8100.0)),
        ("The pool is 3 and a half metres deep.", ("quantity", "length", 3.5)),
        ("The town has one and a half million people.", ("count", "people", 1_500_000.0)),
        ("The climb takes 3 hours 20 minutes.", ("quantity", "duration", 12000.0)),
        ("The climb takes an hour and 20 minutes.", ("quantity", "duration", 4800.0)),
        ("The mast is 5 feet and 6 inches tall.", ("quantity", "length", 1.68)),
        ("The ferry runs twice a day.", ("quantity", "frequency", 0.08)),
        ("It opened on March 3rd, 1881.", ("date", "date", 1881.0)),
        ("The hall seats three hundred and forty-two thousand.", ("count", "", 342_000.0)),
    ],
)
def test_values_in_their_many_forms(text: str, read: tuple[str, str, float]) -> None:
    assert _read(text)[0] == read


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("two thirds of it", "66% of it", True),
        ("two thirds of it", "67% of it", True),
        ("a third of it", "30% of it", False),
        ("costs $40", "costs USD 40", True),
        ("costs $40", "costs €40", False),
        ("the 2nd floor", "the second floor", True),
        ("20-30 metres", "25 metres", True),
        ("20-30 metres", "45 metres", False),
        ("an hour", "60 minutes", True),
        ("one hour", "45 minutes", False),
        ("40 feet", "about 12 metres", True),
        ("three and a half hours", "210 minutes", True),
        ("three and a half hours", "3 hours 30 minutes", True),
        ("three and a half hours", "3 hours", False),
        ("a quarter of an hour", "15 minutes", True),
        ("0.42 kilometres", "420 metres", True),
        ("0.42 kilometres", "380 metres", False),
        ("2 tonnes", "2000 kg", True),
        ("1.5 litres", "1500 ml", True),
        ("1.5 hectares", "15,000 square metres", True),
        ("2 km²", "200 hectares", True),
        ("120 sq ft", "11.1 m²", True),
        ("120 sq ft", "120 m²", False),
        ("3 cubic metres", "3000 litres", True),
        ("33 cl", "330 ml", True),
    ],
)
def test_values_agree_once_normalised(first: str, second: str, same: bool) -> None:
    a, b = values_in(first)[0], values_in(second)[0]
    assert values_agree(a, b) is same


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        ("Two thirds of the marsh floods.", "40% of the marsh floods.", "different figures"),
        ("The ferry costs $40.", "The ferry costs 55 dollars.", "different amounts"),
        ("Ida finished 3rd in the race.", "Ida finished fifth in the race.", "different ordinals"),
        ("The Dunn pier is built of teak.", "The Dunn pier is built of larch.", "materials"),
        ("The Quill barn roof is thatched.", "The Quill barn roof is tiled.", "different values"),
        (
            "Records show the Vell engine was fired by peat.",
            "The Vell engine was fired by wood.",
            "different values (peat; wood)",
        ),
        (
            "The Lorn cottage has a slate roof.",
            "The Lorn cottage has a thatched roof.",
            "different values",
        ),
        ("The Kell hostel costs $40 a night.", "The Kell hostel costs 40 zł a night.", "cannot"),
        (
            "Restored in 1968, the Merrow aqueduct carries the canal 38 metres above the valley.",
            "Engineers who surveyed it say the Merrow aqueduct carries the canal 45 metres above "
            "the valley, a height few expect.",
            "different figures (38 metres, 45 metres)",
        ),
        ("The Corran tower is 37 m tall.", "The Corran tower is 31 m tall, not 37 m.", "figures"),
    ],
)
def test_values_of_one_attribute_that_differ_disagree(first: str, second: str, why: str) -> None:
    found = disagreement(first, second)
    assert found is not None and why in found, found


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The toll on the causeway is USD 4.", "The toll on the causeway is $4."),
        ("Entry to the gallery costs €12.", "Entry to the gallery costs 12 euros."),
        ("One in four homes in Marr has solar panels.", "25 per cent of homes in Marr do."),
        ("The Gorse light was the 2nd light built.", "The Gorse light was the second light built."),
        ("The Moss lamps are painted dark green.", "The Moss lamps are green."),
        ("The Hollin pass is shut in winter.", "The Hollin pass is not open in winter."),
        ("The bridge was designed by Ada Marsh.", "The bridge was built by Ada Marsh."),
        (
            "The Brisk tower, which was rebuilt after a fire in 1911, is 40 metres tall.",
            "Rising above the square since 1860, the Brisk tower is 40 metres tall.",
        ),
        (
            "The Moor school opened in 1921, and three years later (1924) a library was added.",
            "A library was added to the Moor school in 1924.",
        ),
    ],
)
def test_the_same_value_in_other_words_does_not_disagree(first: str, second: str) -> None:
    assert disagreement(first, second) is None


def test_a_value_rejected_in_passing_is_not_stated() -> None:
    correcting = "The Rowan ferry carries 45 cars rather than the 60 often quoted."
    assert rejects(correcting, "The Rowan ferry carries 60 cars.")
    assert not rejects(correcting, "The Rowan ferry carries 45 cars.")
    assert disagreement(correcting, "The Rowan ferry carries 45 cars.") is None
    assert rejects("The Pim survey figure of 40% was a typo.", "Forest covers 40% of Pim.")


def test_relative_dates_are_resolved_against_the_year_before_them() -> None:
    text = (
        "The hall was built in 1950 and extended two years later. It closed a decade "
        "afterwards.\n\nTwo years after the war it was sold."
    )
    assert resolve_relative_dates(text) == (
        "The hall was built in 1950 and extended two years later (1952). It closed a decade "
        "afterwards (1962).\n\nTwo years after the war it was sold."
    )
    assert resolve_relative_dates(
        "The line closed in 1963; the station went the following year."
    ) == ("The line closed in 1963; the station went the following year (1964).")


def test_table_rows_are_statements_on_their_own_lines() -> None:
    table = (
        "# Lighthouses\n\n| Lighthouse | Lamps | Height (m) | Fuel | Built | Price ($) |\n"
        "|---|---|---|---|---|---|\n| Brack | 4 | 30 | gas | 1871 | 12 |\n"
    )
    lines = table_statements(table).split("\n")
    assert lines[2:4] == ["", ""]
    assert lines[4] == (
        "Brack lighthouse: 4 lamps; height 30 m; fuel gas; built in 1871; price $12."
    )
    assert _read(lines[4]) == [
        ("count", "lamp", 4.0),
        ("quantity", "length", 30.0),
        ("fuel", "gas", 0.0),
        ("date", "date", 1871.0),
        ("money", "USD", 12.0),
    ]


def test_number_words_that_make_no_one_number_are_not_added_up() -> None:
    assert _read("It happened in nineteen eighty-four.") == [("count", "", 1984.0)]
    assert _read("There were twenty one boats.") == [("count", "boat", 21.0)]
    assert [number for _, _, number in _read("Nine ten people came.")] == [9.0, 10.0]
    assert _read("It sleeps three and four sleep here.")[:1] == [("count", "", 3.0)]
    assert _read("The walk takes 3 hours 90 minutes.")[0][2] == 10800.0  # no smaller part
    assert [n for _, _, n in _read("The 3 km path and 2 km lane meet.")] == [3000.0, 2000.0]
    assert [n for _, _, n in _read("It takes 3 hours, 30 minutes uphill.")] == [10800.0, 1800.0]


def test_counts_and_measures_in_other_writings_read_to_one_value() -> None:
    def agree(a: str, b: str) -> bool:
        return values_agree(values_in(a)[0], values_in(b)[0])

    assert agree("The fair drew 1,50,000 visitors.", "The fair drew 150,000 visitors.")
    assert not agree("The fair drew 1,50,000 visitors.", "The fair drew 50,000 visitors.")
    assert agree("The fair drew 1.5 lakh visitors.", "The fair drew 150,000 visitors.")
    assert agree("The bridge cost 2 crore rupees.", "The bridge cost 20,000,000 rupees.")
    assert not agree("The fair drew 1.5 lakh visitors.", "The fair drew 15,000 visitors.")
    assert agree("The tank holds 2,000 imperial gallons.", "The tank holds about 9,100 litres.")
    assert not agree("The tank holds 2,000 gallons.", "The tank holds about 9,100 litres.")
    assert agree("The light is 12 nautical miles out.", "The light is about 22 kilometres out.")
    assert agree("The row has a baker's dozen cottages.", "The row has 13 cottages.")
    assert not agree("The row has a dozen cottages.", "The row has 13 cottages.")
