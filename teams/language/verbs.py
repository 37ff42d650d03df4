"""Irregular English verb forms and their base form, for the offline readers.

The extraction patterns read these as verbs ("Tom Pike built the Heron", "was written by");
the offline answer matches a question's "wrote" with a relation's "written by" through
:func:`lemma`.

Example:
    >>> lemma("written"), lemma("built"), lemma("opens")
    ('write', 'build', 'opens')
"""

from __future__ import annotations

__all__ = ["IRREGULAR", "lemma"]

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

IRREGULAR: dict[str, str] = {}
"""Each irregular past form (and participle) -> its base form."""
for _entry in _TABLE.replace("\n", " ").split(";"):
    _base, *_forms = _entry.split()
    IRREGULAR |= dict.fromkeys(_forms or [_base], _base)


def lemma(word: str) -> str:
    """The base form of an irregular past or participle; any other word as it is."""
    return IRREGULAR.get(word.lower(), word)
