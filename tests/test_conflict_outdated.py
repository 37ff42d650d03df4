"""What a page marks as out of date is withdrawn before its figures are read: a collapsed block
of old figures, the text a note says is out of date, a change a later entry undoes; the
statement that stands rejects the old figure. A count of pairs agrees with twice as many; times
in two zones agree in UTC; a wiki signature dates its comment; a regnal year is a year; a table
in thousands is multiplied out; a version ceiling reads "below"; a configuration file's
settings of a figure are statements; a clause that prevails over another by its number, a
reduced price ("Was £85 Now £64") and a yanked release's note take back the old figure."""

from __future__ import annotations

from teams.language._numbers import Value
from teams.language.calendars import plain_dates, unsigned
from teams.language.config_files import setting_statements
from teams.language.contradiction import without_rejected
from teams.language.outdated import drop_outdated, self_doubting
from teams.language.senses import plain_wording
from teams.language.standing import disowned_as
from teams.language.tables import table_statements
from teams.language.values import stated_date, values_agree, values_in


def test_a_collapsed_block_of_old_figures_is_withdrawn_and_rejected() -> None:
    text = (
        "# Hobb museum\n\nThe Hobb museum has 14 galleries.\n\n<details>\n"
        "<summary>Previous figures (before 2019)</summary>\n\nThe Hobb museum has 9 galleries.\n"
        "</details>\n"
    )
    read = drop_outdated(text).split("\n")
    assert read[2] == "The Hobb museum has 14 galleries, not 9."
    assert not any("9 galleries" in line for line in read)
    assert len(read) == len(text.split("\n"))
    headed = (
        "## The 2019 rehang\n\n<details>\n<summary>Previous figures</summary>\n"
        "9 galleries\n</details>"
    )
    assert drop_outdated(headed).split("\n")[0] == "## The 2019 rehang"  # a heading rejects nothing
    kept = text.replace("Previous figures (before 2019)", "Galleries by floor")
    assert drop_outdated(kept) == kept


def test_a_note_that_the_text_before_is_out_of_date_withdraws_it() -> None:
    text = (
        "## Slide 7\n\nThe Orme tram runs 3 kilometres.\n\n"
        "Notes: this slide is out of date. Since the 2023 extension the Orme tram runs 5 "
        "kilometres.\n\n## Slide 8\n\nThe depot holds 12 trams.\n"
    )
    read = drop_outdated(text).split("\n")
    assert read[2] == ""
    assert read[4].endswith("runs 5 kilometres, not 3.")
    assert read[8] == "The depot holds 12 trams."


def test_a_change_a_later_entry_undoes_is_withdrawn() -> None:
    text = (
        "- May 2021: the Lune ferry goes from 6 crossings a day to 9.\n"
        "- June 2021: the change of May 2021 is reversed; the Lune ferry makes 6 crossings a day."
    )
    first, second = drop_outdated(text).split("\n")
    assert first == ""
    assert second.endswith("makes 6 crossings a day, not 9.")


def test_a_repealed_clause_and_a_setting_commented_out_are_withdrawn() -> None:
    bylaws = (
        "# Brede pier bylaws\n\n7. Anglers may use 3 rods at most. [Repealed]\n\n"
        "7A. Anglers may use 2 rods at most.\n"
    )
    read = drop_outdated(bylaws).split("\n")
    assert read[2] == ""
    assert read[4] == "7A. Anglers may use 2 rods at most, not 3."
    other = "7. Anglers may use 3 rods at most. [Repealed]\n\n8. A permit costs 40 pounds."
    assert drop_outdated(other) == other
    config = "```toml\n[lift]\n// max_riders = 8\nmax_riders = 6\n```"
    assert drop_outdated(config).split("\n")[2:4] == ["", "max_riders = 6, not 8"]
    unrelated = "```ini\n# retries = 5\ntimeout = 30\n```"
    assert drop_outdated(unrelated) == unrelated


def test_a_clause_that_prevails_over_another_a_reduced_price_and_a_yanked_release() -> None:
    rules = (
        "4. A member must give 30 days' notice to leave.\n\n"
        "9. Notwithstanding rule 4, a member must give 14 days' notice to leave.\n"
    )
    read = drop_outdated(rules).split("\n")
    assert read[0] == ""
    assert read[2] == "9. A member must give 14 days' notice to leave, not 30."
    other = "4. A member must give 30 days' notice.\n\n9. Notwithstanding rule 4, a fee is £5."
    assert drop_outdated(other) == other  # another measure: nothing withdrawn
    shop = drop_outdated("Was £85 Now £64\n\nA brass tide clock.", "Brede chandlery: tide clock")
    assert shop.split("\n")[0] == "Brede chandlery: tide clock: the price is now £64, not £85."
    assert without_rejected(shop.split("\n")[0]).endswith("now £64.")
    yanked = (
        "> **Yanked.** Reason: the default timeout stated in this release is wrong.\n\n"
        "The default timeout is 5 seconds.\n"
    )
    assert self_doubting(drop_outdated(yanked).split("\n")[2])
    assert disowned_as(yanked) == "states a wrong figure"


def test_a_configuration_files_settings_are_statements_an_examples_are_not() -> None:
    live = '\n\n```toml\n[lift]\n\nmax_riders = 6, not 8\nname = "Brede"\n```'
    read = setting_statements(live, "Brede cliff lift: live configuration").split("\n")
    assert read[5] == "Brede cliff lift: max_riders is 6 riders, not 8."
    assert len(read) == len(live.split("\n"))  # line for line, its fences left blank
    assert not any("```" in line or "name" in line for line in read)
    example = "Set the riders like this:\n\n```toml\nmax_riders = 6\n```"
    assert setting_statements(example, "Brede cliff lift") == example  # an example of prose
    script = "```python\nmax_riders = 6  # FIXME: out of date since the refit\n```"
    assert setting_statements(script, "Brede cliff lift") == script  # not to be relied on


def test_a_code_file_shown_whole_sets_what_its_live_lines_set() -> None:
    header = (
        "```c\n#ifndef LIFT_H\n#define LIFT_H\n#if 0\n#define MAX_RIDERS 8\n#endif\n"
        "#define MAX_RIDERS 6\n#endif\n```"
    )
    read = setting_statements(header, "Brede cliff lift: lift.h").split("\n")
    assert [line for line in read if line] == ["Brede cliff lift: MAX_RIDERS is 6 riders."]
    client = (
        "```python\nclass Base:\n    retries = 3\n\nclass TideClient(Base):\n    retries = 5\n```"
    )
    read = setting_statements(client, "skerryvane: client.py").split("\n")
    assert read[2] == "Base: retries is 3 retries."  # each class's own attribute
    assert read[5] == "TideClient: retries is 5 retries."
    pool = '```json\n{\n  "pool_size": 50,\n  "pool_size": 80\n}\n```'
    read = setting_statements(pool, "harbour-api: pool.json").split("\n")
    assert [line for line in read if line] == ["harbour-api: pool_size is size 80, not 50."]
    docker = "```dockerfile\nFROM python AS build\nENV WORKERS=8\nFROM python\nENV WORKERS=4\n```"
    read = setting_statements(docker, "tapster: Dockerfile").split("\n")
    assert [line for line in read if line] == ["tapster: WORKERS is 4 workers, not 8."]
    example = "```python\nTIMEOUT = 60\n```"
    assert setting_statements(example, "tapster", whole_page=False) == example  # a section's
    diff = "```\n--- a/settings.py\n+++ b/settings.py\n-TIMEOUT = 75\n+TIMEOUT = 65\n```"
    assert setting_statements(diff, "tapster: the last commit") == diff  # a change, not a file


def test_a_key_set_twice_in_a_configuration_file_is_set_by_its_last_line() -> None:
    env = (
        "# taproom server: .env\n\n```\nTHREADS=4\nPORT=8041\n\n# raised for market day\n"
        "THREADS=12\n[other]\nTHREADS=2\n```"
    )
    read = setting_statements(env, "taproom server: .env").split("\n")
    assert read[3] == ""  # not what is set: the same key is set again below, in its section
    assert read[7] == "taproom server: THREADS is 12 threads, not 4."
    assert read[9] == "taproom server: THREADS is 2 threads."  # another section's own key


def test_a_post_tagged_as_sarcasm_and_a_comment_marked_misleading_doubt_themselves() -> None:
    post = "**reeve:** The Hobb causeway is 9 kilometres long. /s"
    assert (
        drop_outdated(post)
        == "**reeve:** The Hobb causeway is 9 kilometres long (said as sarcasm)."
    )
    assert self_doubting(drop_outdated(post))
    flagged = "The tarn is 90 metres deep.\n\n*This comment was flagged as misleading.*"
    assert self_doubting(drop_outdated(flagged).split("\n")[0])


def test_a_chat_mend_with_an_asterisk_and_a_recount_withdraw_what_they_mend() -> None:
    chat = (
        "Ada Holm  9:14 AM\nthe Brede jetty is 160 metres long\n\nAda Holm  9:15 AM\n*60 metres\n"
    )
    read = drop_outdated(chat).split("\n")
    assert read[:4] == ["Ada Holm  9:14 AM", "", "", ""]
    assert read[4] == "the Brede jetty is 60 metres long, not 160"
    assert without_rejected(read[4]) == "the Brede jetty is 60 metres long"
    declared = (
        "The first count gave Noor Halse 912 votes.\n\nAfter a recount, Noor Halse had 921 votes."
    )
    first, _, recount = drop_outdated(declared).split("\n")
    assert first == ""
    assert recount == "After a recount, Noor Halse had 921 votes, not 912."
    assert without_rejected(recount) == "After a recount, Noor Halse had 921 votes."
    turnout = "Turnout was 34 per cent.\n\nAfter a recount, Noor Halse had 921 votes."
    assert drop_outdated(turnout) == turnout  # a recount of votes mends no turnout
    italic = "The Brede jetty is 160 metres long.\n*60 metres of it is new*"
    assert drop_outdated(italic) == italic
    footnote = "The Brede jetty is 160 metres long.\n\n*1 Figures are estimates."
    assert drop_outdated(footnote) == footnote


def test_a_drill_scenario_doubts_its_own_figures() -> None:
    sheet = "# EXERCISE EXERCISE EXERCISE\n\nThe river at Brede reached 6.1 metres."
    assert self_doubting(drop_outdated(sheet).split("\n")[2])
    assert not self_doubting(drop_outdated("# Exercise classes\n\nThe hall holds 40 people."))


def test_a_count_of_pairs_agrees_with_twice_as_many() -> None:
    (pairs,) = values_in("The heronry at Wyke has 40 nesting pairs.")
    (birds,) = values_in("The heronry at Wyke has 80 nesting birds.")
    (fewer,) = values_in("The heronry at Wyke has 70 nesting birds.")
    assert values_agree(pairs, birds)
    assert values_agree(birds, pairs)
    assert not values_agree(pairs, fewer)


def test_times_in_two_zones_agree_in_utc() -> None:
    def time(text: str) -> Value:
        return next(value for value in values_in(text) if value.kind == "time")

    utc, summer = time("The bus leaves at 06:15 UTC."), time("The bus leaves at 07:15 BST.")
    assert values_agree(utc, summer)
    assert not values_agree(utc, time("The bus leaves at 08:15 BST."))
    assert values_agree(summer, time("The bus leaves at 07:15."))  # a local time, no zone


def test_a_wiki_signature_dates_its_comment_and_names_no_one_in_it() -> None:
    signed = "The weir is 4 m high. --Millwright (talk) 10:02, 3 May 2019 (UTC)"
    assert unsigned(signed) == "The weir is 4 m high. Written 3 May 2019."
    assert stated_date("", f"# Talk\n\n{signed}\n") == "2019-05-03"


def test_regnal_years_and_a_table_in_thousands() -> None:
    assert plain_dates("Issued in the 2nd year of the reign of Queen Elizabeth II.") == (
        "Issued in 1953."
    )
    table = "Riders (in thousands):\n\n| Year | Riders |\n|---|---|\n| 2022 | 12 |\n| 2023 | 15 |"
    assert "15,000 riders" in table_statements(table)


def test_a_version_ceiling_is_read_as_below_it() -> None:
    assert "below 3" in plain_wording("Support for servers < 3 was dropped.")
    assert "below 3" in plain_wording("servers older than 3")


def test_a_table_key_marking_bracketed_figures_as_last_years_drops_them() -> None:
    table = (
        "| Item | This season (last season) |\n| --- | --- |\n| Berths | 40 (32) |\n"
        "| Depth | 3 m (3 m) |\n\nFigures in brackets are last season's."
    )
    rows = table_statements(table).split("\n")
    assert rows[2] == "Berths: 40 berths this season, not 32."
    assert rows[3] == "Depth: depth 3 m this season."
    assert "(32)" in table_statements(table.replace("Figures in brackets", "Notes"))
