"""Irregular English verb forms and their base form, the converse of an exchange verb, and the
verb of a noun naming a deed, for the offline readers.

The extraction patterns read these as verbs ("Tom Pike built the Heron", "was written by");
the offline answer matches a question's "wrote" with a relation's "written by" through
:func:`lemma`. An exchange is said from either side: "X sold it to Z" is "Z bought it from X",
and :func:`converse` gives the other side's verb in the same form.

Example:
    >>> lemma("written"), lemma("built"), lemma("opens")
    ('write', 'build', 'opens')
    >>> converse("sold")
    Converse(verb='bought', preposition='from', own='to')
    >>> deed_participle("founding"), deed_participle("construction")
    ('founded', 'constructed')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["IRREGULAR", "Converse", "converse", "deed_participle", "lemma", "past_tense"]

_TABLE = """
be was were been; bear bore born borne; become became; begin began begun; bring brought; build
built; buy bought; catch caught; choose chose chosen; come came; dig dug; do did done; draw drew
drawn; drive drove driven; eat ate eaten; fall fell fallen; feed fed; feel felt; fight fought;
find found; fly flew flown; get got gotten; give gave given; go went gone; grind ground; grow
grew grown; hang hung; have had; hide hid hidden; hold held; keep kept; know knew known; lay
laid; lead led; leave left; lend lent; lose lost; make made; mean meant; meet met; pay paid;
ride rode ridden; rise rose risen; run ran; say said; see saw seen; sell sold; send sent; sing
sang sung; sink sank sunk; sit sat; speak spoke spoken; spend spent; spin spun; stand stood;
steal stole stolen; strike struck; sweep swept; swim swam swum; take took taken; teach taught;
tell told; think thought; throw threw thrown; understand understood; wear wore worn; weave wove
woven; win won; write wrote written; breed bred; split; shut; set; put; read; cut; hit; let;
cast; cost; spread
"""

_DEEDS = """
acquisition acquired; appointment appointed; capture captured; completion completed;
composition composed; conquest conquered; construction constructed; creation created;
dedication dedicated; demolition demolished; design designed; development developed; discovery
discovered; election elected; erection erected; establishment established; excavation
excavated; foundation founded; installation installed; introduction introduced; invention
invented; publication published; purchase purchased; reconstruction reconstructed; restoration
restored; sale sold; translation translated
"""
"""Nouns of a deed and the participle of their verb; a noun in "-ing" needs none."""
_DEED_PARTICIPLES = dict(entry.split() for entry in _DEEDS.replace("\n", " ").split(";"))

_EXCHANGES = """sell to, buy from; give to, receive from; lend to, borrow from; teach to, learn
from; send to, receive from; lose to, win against"""
"""Each exchange as its giver's verb and preposition, then its receiver's: "X sold Y to Z" is
"Z bought Y from X"; "X lost to Z" is "Z won against X"."""

IRREGULAR: dict[str, str] = {}
"""Each irregular past form (and participle) -> its base form."""
_PAST: dict[str, str] = {}
"""Each irregular base form -> its past form."""
_PARTICIPLE: dict[str, str] = {}
"""Each irregular base form -> its past participle."""
for _entry in _TABLE.replace("\n", " ").split(";"):
    _base, *_forms = _entry.split()
    IRREGULAR |= dict.fromkeys(_forms or [_base], _base)
    _PAST[_base] = (_forms or [_base])[0]
    _PARTICIPLE[_base] = (_forms or [_base])[-1]


def lemma(word: str) -> str:
    """The base form of an irregular past or participle; any other word as it is."""
    return IRREGULAR.get(word.lower(), word)


def deed_participle(noun: str) -> str:
    """The past participle of the verb whose deed ``noun`` names ("founding": "founded",
    "rebuilding": "rebuilt", "construction": "constructed"); "" for any other noun ("string":
    no syllable is left without its "-ing")."""
    noun = noun.lower()
    base = noun[:-3]
    if noun in _DEED_PARTICIPLES or not noun.endswith("ing") or not set(base) & set("aeiouy"):
        return _DEED_PARTICIPLES.get(noun, "")
    for prefix in ("", "re"):
        verb = base[len(prefix) :] if base.startswith(prefix) else ""
        for form in (verb, f"{verb}e", verb[:-1]):  # "building", "making", "digging"
            if form in _PARTICIPLE:
                return f"{prefix}{_PARTICIPLE[form]}"
    return f"{base}ed"  # "founding", "naming", "planning": the "-ing" cut, "-ed" put


@dataclass(frozen=True)
class Converse:
    """The other side of an exchange verb: its verb in the same form, the preposition that
    verb names the other party with, and the one the given verb names it with."""

    verb: str
    preposition: str
    own: str


def _past(base: str) -> str:
    if base in _PAST:
        return _PAST[base]
    return f"{base}d" if base.endswith("e") else f"{base}ed"


def past_tense(base: str) -> str:
    """The past form of a verb given in its base form ("build": "built", "design": "designed")."""
    return _past(base.lower())


def _third_person(base: str) -> str:
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{base}es"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return f"{base[:-1]}ies"
    return f"{base}s"


def _converses() -> dict[str, Converse]:
    """Every form of every exchange verb (base, past, participle, third person) -> its
    converse; a verb of two exchanges ("receive") takes the first."""
    table: dict[str, Converse] = {}
    for pair in _EXCHANGES.replace("\n", " ").split(";"):
        (giver, to), (receiver, back) = (side.split() for side in pair.split(","))
        for verb, own, other, its in ((giver, to, receiver, back), (receiver, back, giver, to)):
            participles = {form for form, base in IRREGULAR.items() if base == verb}
            for inflect in (str, _past, _third_person):
                forms = {inflect(verb)} | (participles if inflect is _past else set())
                for form in forms:
                    table.setdefault(form, Converse(inflect(other), its, own))
    return table


_CONVERSES = _converses()


def converse(verb: str) -> Converse | None:
    """The converse of an exchange verb in the same form ("sold": "bought", "lends":
    "borrows"); None for any other verb."""
    return _CONVERSES.get(verb.lower())
