"""The offline research roles: a real retrieval team over a local corpus, no model needed."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, replace

from framework.engine.batching import may_pause
from framework.engine.records import (
    Evidence,
    MemoryFact,
    Plan,
    ReviewVerdict,
    Task,
    WorkerResult,
)
from framework.engine.roles import Worker
from framework.engine.runtime import NodeContext
from framework.engine.state import TeamState
from framework.memory import (
    LIST_MARKER,
    Corpus,
    EvidenceRecord,
    Namespace,
    Passage,
    ResearchMemory,
    SemanticStore,
    describes,
)
from teams.language.acronyms import with_acronyms
from teams.language.examples import FENCE_LINE, named_in_example, quoted_example
from teams.language.questions import (
    answer_kind,
    asked_thing,
    asks_default,
    asks_one_value,
    asks_since,
    asks_when,
    chained_parts,
    platforms,
    pointers,
    premised_parts,
    quoted_terms,
    shared_words,
    split_question,
    which_one,
)
from teams.language.sentence_choice import (
    Scored,
    another_version,
    foreign_versions,
    given,
    gives_reason,
    named_in_code,
    product_versions,
    products_asked,
    ranked_sentences,
    term_weights,
    versions_of_others,
)
from teams.language.superseded import asks_what_was, without_superseded
from teams.language.tables import table_statements
from teams.language.words import joined_codes, keywords, stem
from teams.research.facts import FACTS_NAMESPACE, fact_provenance, remember_facts
from teams.research.releases import (
    asks_release,
    entries_naming,
    entry_release,
    first_entry,
    newer_entries,
)
from teams.research.report import cited_report, rejected_tasks, results_in_order

__all__ = [
    "EVIDENCE_ORIGIN",
    "CorpusSearchWorker",
    "CoverageReviewer",
    "EvidenceAggregator",
    "EvidenceCurator",
    "RememberingWorker",
    "ReportFormatter",
    "SubQuestionPlanner",
    "remember_evidence",
]

EVIDENCE_ORIGIN = "corpus"
"""The origin recorded on the evidence the research workers store in research memory."""


class SubQuestionPlanner:
    """Splits the question into sub-questions and plans one corpus search per part."""

    def __init__(self, corpus: Corpus, max_parts: int = 4) -> None:
        self.corpus = corpus
        self.max_parts = max_parts

    def plan(self, state: TeamState, context: NodeContext) -> Plan:
        """Plan the whole question plus its sub-questions; answer directly on an empty corpus."""
        question = state["question"]
        if len(self.corpus) == 0:
            return Plan(goal=question, direct_answer="The corpus is empty: nothing to search.")
        asked = which_one(question)  # "Is there an X that ...? Which one?": which X
        subs = split_question(asked, self.max_parts)
        topic = shared_words(subs)  # a sub-question is about what it adds to their topic
        premised = premised_parts(subs)  # "My X seems ignored. Since when is it not read?"
        chained = {  # "..., and in which release was it added?": the part that names "it"
            at: _with_case(named, premised.get(subs.index(named), ""))
            for at, named in chained_parts(subs).items()
        }
        parts = [asked, *subs]
        tasks = [
            Task(
                id=f"q{index}",
                description=part,
                inputs={
                    "query": part,
                    **({"topic": topic} if index and topic else {}),
                    **({"antecedent": chained[index - 1]} if index - 1 in chained else {}),
                    **({"premise": premised[index - 1]} if index - 1 in premised else {}),
                },
            )
            for index, part in enumerate(parts)
        ]
        return Plan(
            goal=question,
            tasks=tasks,
            rationale=f"{len(parts) - 1} sub-questions plus the whole question",
        )


def _with_case(part: str, case: str) -> str:
    """``part`` with the asker's case its "it" speaks of ("What command clears it (My download
    cache looks corrupt)"), as a search of it is asked; ``part`` alone without a case."""
    return f"{part} ({case})" if case else part


class CorpusSearchWorker:
    """Searches the corpus semantically for a task's query.

    Args:
        corpus: The corpus to search.
        k: Passages per search.
        min_score: Passages scoring lower are not used.
        memory: Where the evidence found is also stored (origin ``"corpus"``, stored by the
            run's thread), so later runs start from it; ``None`` keeps none.
    """

    def __init__(
        self,
        corpus: Corpus,
        k: int = 4,
        min_score: float = 0.2,
        memory: ResearchMemory | None = None,
    ) -> None:
        self.corpus = corpus
        self.k = k
        self.min_score = min_score
        self.memory = memory

    def may_pause(self, task: Task) -> bool:
        """Never: a search of local text asks nobody (its tasks may run in batches)."""
        return False

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Return the best passages as evidence; confidence is the best score.

        A retry's reformulated query widens the search but does not replace what the task
        asks: the passages its own description finds are candidates too, and sentences are
        chosen by how well they answer the description (a reformulation that adds the whole
        question's words would let the question's other part crowd this one out)."""
        asked = task.description or str(task.inputs.get("query") or "")
        topic = str(task.inputs.get("topic") or "")
        together: tuple[str, ...] = ()  # what "it" is, named: where all its words are
        antecedent = str(task.inputs.get("antecedent") or "")  # of "... was it added"
        named = self._answer_named(antecedent, topic) if antecedent else ""
        if named:
            thing = f"{named} {asked_thing(antecedent)}".strip()  # "context argument"
            asked, together = _with_case(asked, thing), tuple(keywords(thing))
        else:  # what "it" is: the asker's thing, if any
            asked = _with_case(asked, str(task.inputs.get("premise") or ""))
        queries = list(dict.fromkeys(filter(None, (str(task.inputs.get("query") or ""), asked))))
        cited, asked = self._cited(asked, queries, topic, together, named)
        evidence = _on_its_premise(_agreeing(cited, asked), asked)
        if self.memory is not None:
            records = [
                _record(item, context, path=answered.passage.path, title=answered.passage.heading)
                for answered in cited
                for item in answered.evidence
            ]
            remember_evidence(self.memory, records, context)
        return WorkerResult(
            task_id=task.id,
            status="ok",
            output=evidence[0].text if evidence else "",
            evidence=evidence,
            confidence=max(0.0, min(1.0, evidence[0].score)) if evidence else 0.0,
            attempt=task.attempt,
        )

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Search on a thread: embedding is CPU work."""
        return await asyncio.to_thread(self.run, task, question, context)

    def _answer_named(self, question: str, topic: str) -> str:
        """The name the best answer to ``question`` gives as code, in the first of its
        statements that gives one (the first may be a list's lead-in: "... they have to be
        marked for the plugin", then "Setting the ``anyio_mode`` option"); "" when none: what a
        later part that asks about "it" speaks of."""
        cited, asked = self._cited(question, [question], topic)
        evidence = _on_its_premise(_agreeing(cited, asked), asked)
        return next((name for item in evidence if (name := named_in_code(item.text, question))), "")

    def _cited(
        self,
        asked: str,
        queries: Sequence[str],
        topic: str,
        together: tuple[str, ...] = (),
        named: str = "",
    ) -> tuple[list[_Answered], str]:
        """The passages that answer ``asked`` best, found by ``queries`` and where the words
        ``together`` are, and ``asked`` as searched (with an acronym the text spells out);
        ``named`` is the name its "it" stands for, when a part before named it."""
        words = keywords(asked)
        rare_words: list[str | tuple[str, ...]] = [
            *([together] if together else []),
            *words,
            *joined_codes(words),  # "utf8" for "UTF-8"
            *product_versions(asked),
        ]
        rare = self.corpus.rare_holders(asked, rare_words, form=stem, k=self.k)
        found = _merged(
            [
                *self.corpus.search_many(queries, k=self.k * _CANDIDATES, min_score=self.min_score),
                rare,
            ]
        )
        expanded = with_acronyms(asked, (passage.text for passage in found))  # "drive (SSD)"
        if expanded != asked:  # the text's acronym finds passages its spelled-out words did not
            more = self.corpus.search(expanded, k=self.k * _CANDIDATES, min_score=self.min_score)
            found, asked = _merged([found, more]), expanded
        pointed = _pointed(self.corpus, asked, found, self.k * _CANDIDATES)
        entries_asked = [
            *entries_naming(self.corpus, asked),
            *first_entry(self.corpus, asked, named),
        ]
        pointed += _scored_as_best(entries_asked, found)
        preferred = {passage.source for passage in pointed}
        found = [*pointed, *(passage for passage in found if passage.source not in preferred)]
        cited = _reranked(found, asked, topic, preferred, self.k)
        if entries := _entries_referred(self.corpus, asked, cited, found):
            preferred |= {passage.source for passage in entries}
            cited = _reranked([*entries, *found], asked, topic, preferred, self.k)
        cited = _entry_first(cited, found, asked)
        return _newest_entry(self.corpus, asked, topic, cited, found, k=self.k), asked


def _entry_first(cited: list[_Answered], found: Sequence[Passage], query: str) -> list[_Answered]:
    """``cited``, or, for a question of which version or release (of one part) when no passage
    ``cited`` gives one ("Quart will ensure that the tasks finish during the shutdown"), the
    changelog entry ``found`` that answers it best first ("Version 0.19.0 >
    Allow background tasks a grace period to complete during shutdown."): one whose answer
    holds at least :data:`_ENTRY_SHARED` words of the question in lower case (not the
    product's name) that are not its headings'."""
    if answer_kind(query) != "version" or not asks_release(query) or len(split_question(query)) > 1:
        return cited  # a question of two parts: its part of which release is asked alone
    if any(given("version", item.text, query) for answered in cited for item in answered.evidence):
        return cited
    asked = {stem(word) for word in keywords(query) if not word[:1].isupper()}  # not "Quart"
    entries = [
        answered
        for passage in found
        if entry_release(passage) is not None
        and (answered := _answers(passage, query)) is not None
        and len(asked & _said_stems(answered)) >= _ENTRY_SHARED
    ]
    if not entries:
        return cited
    best = max(entries, key=lambda answered: answered.score)
    return [best, *(item for item in cited if item.passage.source != best.passage.source)]


_ENTRY_SHARED = 2
"""How many of a question's words an entry's answer holds to say which release did it."""


def _said_stems(answered: _Answered) -> set[str]:
    """The stems of what ``answered`` cites, less those of its passage's headings."""
    passage = answered.passage
    headings = {stem(word) for word in keywords(f"{passage.outline} {passage.heading}")}
    said = {stem(word) for item in answered.evidence for word in keywords(item.text)}
    return said - headings


def _merged(searches: Sequence[Sequence[Passage]]) -> list[Passage]:
    """The passages of several searches, each once at its best score, best first."""
    best: dict[str, Passage] = {}
    for passage in (passage for found in searches for passage in found):
        if passage.source not in best or passage.score > best[passage.source].score:
            best[passage.source] = passage
    return sorted(best.values(), key=lambda passage: -passage.score)


def _pointed(corpus: Corpus, query: str, found: Sequence[Passage], k: int) -> list[Passage]:
    """The ``k`` passages a version, a year or a quoted term of ``query`` points to (see
    :meth:`Corpus.pointed_to`), each scored at least as the best passage ``found`` by meaning:
    the question names where its answer is, which its other words may match less well than a
    newer release's passage; so does a variable's name in capitals ("NO_PROXY"), to the
    section it heads. A version of another product than the one whose release is asked
    for points only where that product is named beside it ("Tornado 6.2" to "What's new in
    Tornado 6.2.0", for "the oldest Python version that Tornado 6.2 supports")."""
    terms = [*quoted_terms(query), *_IDENTIFIER.findall(query)]
    named = {term.lower() for term in terms}
    foreign = foreign_versions(query)  # "Python 3.4" points to no APScheduler release
    named_versions = product_versions(query)
    beside = [f"{name} {version}" for name, version in named_versions if version in foreign]
    own = {version for name, version in named_versions if _corpus_own(corpus, name, query)}
    versions = [p for p in pointers(query) if p not in foreign or p in own]
    pointed = corpus.pointed_to(query, [*versions, *beside], k=k)  # "Tornado 6.2": its notes
    pointed += [  # a quoted term names the section it heads
        passage
        for passage in corpus.pointed_to(query, terms, k=k)
        if passage.heading.strip(' `*"').lower() in named
    ]
    return _scored_as_best(pointed, found)


def _scored_as_best(passages: Sequence[Passage], found: Sequence[Passage]) -> list[Passage]:
    """``passages`` each scored at least as the best passage ``found`` by meaning: where the
    question points, though its other words match another passage better."""
    best = max((passage.score for passage in found), default=0.0)
    return [replace(passage, score=max(passage.score, best)) for passage in passages]


def _corpus_own(corpus: Corpus, product: str, query: str) -> bool:
    """Whether ``product`` is what the corpus is about rather than a product whose version
    ``query`` asks for: more of its passages name it than name each of those ("Invoke" of the
    Invoke documentation, for "the oldest Python version that Invoke 3.0 runs on": Invoke's
    bare release headings, "3.0.0", are where that answer is)."""
    asked = products_asked(query)
    held = corpus.holder_count(product, str.lower)
    return bool(asked) and all(held > corpus.holder_count(name, str.lower) for name in asked)


def _newest_entry(
    corpus: Corpus,
    query: str,
    topic: str,
    cited: list[_Answered],
    found: Sequence[Passage],
    *,
    k: int,
) -> list[_Answered]:
    """``cited``, or, where the best answer is a changelog entry whose figure a newer release
    of the same file gives again otherwise (see :func:`~teams.research.releases.newer_entries`),
    the newest such entry first, scored as the best passage ``found``, and the file's older
    entries that give a figure of that kind left out: the figure in force is stated, not the
    ones it replaced."""
    if not cited or not cited[0].evidence:
        return cited
    newer = newer_entries(corpus, query, cited[0].passage, cited[0].evidence[0].text)
    if not newer:
        return cited
    [newest] = _scored_as_best(newer[:1], found)
    ranked = _reranked([newest, *found], query, topic, {newest.source}, k)
    if not ranked or ranked[0].passage.source != newest.source:
        return cited
    kind, release = asks_one_value(query), entry_release(newest) or ()
    return [
        answered
        for answered in ranked
        if answered.passage.path != newest.path
        or (entry_release(answered.passage) or release) >= release
        or not any(given(kind, item.text, query) for item in answered.evidence)
    ]


_IDENTIFIER = re.compile(r"(?<![\w`])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
"""A constant's or a variable's name, in capitals with an underscore: "NO_PROXY" (a setting's
name in lower case, "use_directory_urls", points to its section's first chunk no better than
the search by meaning: MkDocs m13 was lost to a later chunk of it)."""
_REFERENCE = re.compile(
    r":(?:[\w]+:)?(?:setting|confval|option|envvar|conf):`~?(?:[^`<]*<)?(?P<role>[\w.-]+)>?`"
    r"|``(?P<literal>[A-Z][A-Z0-9_]{2,})``"
)
"""A reference to a setting's entry on a reference page: a role that names a setting, an
option or a variable (":setting:`AUTOTHROTTLE_START_DELAY`") or a constant's name in code
marks; whose default its entry states."""


def _entries_referred(
    corpus: Corpus, query: str, cited: Sequence[_Answered], found: Sequence[Passage]
) -> list[Passage]:
    """For a question of a default that no statement ``cited`` answers with a default stated
    in so many words, the entries its statements refer to ("spiders start with a download delay
    of :setting:`AUTOTHROTTLE_START_DELAY`": the entry headed so, whose "Default:" line
    answers), each scored as the best passage ``found``; [] otherwise."""
    kind = asks_one_value(query)
    if not asks_default(query) or answer_kind(query) == "reason":
        return []
    if any(_default_value(answered, kind) for answered in cited):
        return []
    names = list(
        dict.fromkeys(
            found["role"] or found["literal"]
            for answered in cited
            for item in answered.evidence
            for found in _REFERENCE.finditer(item.text)
        )
    )
    pointed = corpus.pointed_to(query, names, k=len(names)) if names else []
    return _scored_as_best(pointed, found)


_CANDIDATES = 12
"""Passages searched per passage kept: the search ranks them by meaning, then the ones whose
best sentence answers the query best are kept."""
_ANSWER_WEIGHT = 0.6
"""How much the best sentence's answer score (relative to the best candidate's) adds to a
passage's similarity when passages are re-ranked."""


@dataclass(frozen=True)
class _Answered:
    """A passage with the sentences it answers with, and how well its best one answers."""

    passage: Passage
    score: float
    evidence: list[Evidence]


def _reranked(
    passages: Sequence[Passage],
    query: str,
    topic: str,
    preferred: Set[str],
    k: int,
) -> list[_Answered]:
    """The ``k`` passages that answer best, each with the sentences it answers with as evidence
    (see :func:`_answers`), best first: the passage's similarity, plus how well its best
    sentence answers the query, the words of the question's ``topic`` counting less, the
    passages whose source is ``preferred`` (those a version or year of the question points to)
    before the others, but for up to half of the ``k`` that answer better than every preferred
    one ("the docker package ... under urllib3 2.0": the page that answers is not the 2.0
    release's) (a passage of code or tables cites nothing and is left out)."""
    weights = term_weights([passage.text for passage in passages], query, topic)
    answered = []
    for passage in passages:
        best = _answers(passage, query, weights)
        if best is not None:
            answered.append(best)
    top = max((item.score for item in answered), default=0.0) or 1.0

    def worth(item: _Answered) -> float:
        return item.passage.score + _ANSWER_WEIGHT * item.score / top

    def pointed(item: _Answered) -> bool:
        return item.passage.source in preferred and bool(item.score)

    ranked = sorted(answered, key=lambda item: (not pointed(item), -worth(item)))
    bar = max((worth(item) for item in answered if pointed(item)), default=math.inf)
    better = [item for item in ranked if not pointed(item) and worth(item) > bar][: k // 2]
    taken = {id(item) for item in better}  # by identity: comparing answers field by field is slow
    kept = [item for item in ranked if id(item) not in taken][: k - len(better)]
    return kept + better


_COMPLEMENT_SCORE = 0.5
"""A second sentence of a passage is cited beside its best when it scores at least half as
well and holds a word of the query the best one lacks: the second fact of a two-fact
answer."""


@dataclass(frozen=True)
class _Asked:
    """What a question asks for, as far as what is quoted with its answer goes: a time or
    version (the headings above), a reason (the sentence that explains), a default (the
    sentence that states it)."""

    when: bool = False
    why: bool = False
    default: bool = False
    named: frozenset[str] | None = None
    """For a question that asks for a name ("Which library ..."), the stems of its words: a
    heading that names something else may be the name asked for."""
    now: bool = False
    """Whether it asks one value as it stands now: a value the sentence gives as replaced
    ("Previously was 8KiB, now 16KiB") is left out of the quote (see
    :func:`~teams.language.superseded.without_superseded`)."""
    one_value: str = ""
    """The kind asked for, when a one-part question asks for one figure, version or name (see
    :func:`~teams.language.questions.asks_one_value`): a second sentence that gives another
    value of that kind, and none of the best one's, is a rival answer ("Add official support
    for Python version 3.5" beside "Deprecate support of Python 2.6"), not a second fact."""

    @classmethod
    def of(cls, query: str) -> _Asked:
        kind = answer_kind(query)
        named = frozenset(_word_stems(query)) if kind == "name" else None
        one = asks_one_value(query)
        now = bool(one) and not asks_what_was(query)
        return cls(asks_when(query), kind == "reason", asks_default(query), named, now, one)


def _word_stems(text: str) -> set[str]:
    return {stem(word) for word in keywords(text)}


_NOTHING_ASKED = _Asked()


def _answers(
    passage: Passage, query: str, weights: Mapping[str, float] | None = None
) -> _Answered | None:
    """The passage's answer to ``query`` with its score: its best sentence (see
    :func:`_evidence`), then a sentence that adds a word of the query the best one lacks; for
    an item of a list, the lead-in that quotes the list, then the item; a sentence quoted for
    its pronoun's sake also alone, at its own line (see :func:`_stood_for`). None when the
    passage holds no prose."""
    if passage.code:
        return None
    passage = replace(passage, text=table_statements(passage.text, passage.lead))  # rows as said
    ranked = ranked_sentences(passage.text, query, heading=passage.heading, weights=weights)
    if not ranked:
        return None
    asked = _Asked.of(query)
    on = platforms(query)
    plain = [
        at
        for at in range(len(ranked))
        if not (asked.default and _exemplifies(ranked, at))
        and not _elsewhere(ranked[at].sentence, on)
    ]
    top = _best_index(ranked, plain or None)  # for a default not an example; not elsewhere
    index = _quoting(ranked, top)
    kind = asked.one_value
    beyond = _beyond(kind, given(kind, ranked[top].sentence, query), ranked[index].sentence, query)
    if beyond or (asked.default and _exemplifies(ranked, index)):
        index = top  # "... (potentially 3.14) ... This is available in 3.7 ...", "... a 401
        # status. This means clients can tell (401) from (403)": not quoted on
    best = ranked[index]
    answer = given(asked.one_value, best.sentence, query)
    others = [
        at
        for at, item in enumerate(ranked)
        if not index - best.leans <= at <= index  # not quoted with the best already
        and item.score >= _COMPLEMENT_SCORE * best.score
        and item.hits - best.hits
        and not any(  # nor in the sentences it is quoted with
            _beyond(asked.one_value, answer, ranked[quoted].sentence, query)
            for quoted in range(at - item.leans, at + 1)
        )
        and not (asked.default and _exemplifies(ranked, at))
        and not _elsewhere(item.sentence, on)
    ]
    chosen = [index, _best_index(ranked, others)] if others and best.score > 0 else [index]
    if asked.when:  # "*Introduced in 2.0.0*" under its setting
        versioned = any(given("version", ranked[at].sentence, query) for at in chosen)
        notes = _release_note(ranked, chosen, query)
        chosen += [at for at in notes if at not in chosen and (ranked[at].hits or not versioned)]
    after = index + 1
    if (
        _MANNER_ASKED.match(query)
        and after < len(ranked)
        and _BY_MEANS.match(ranked[after].sentence)
    ):
        chosen.append(after)  # "... with lower overhead. It does this by disabling events ..."
    elif (
        _CONDITION_ASKED.search(query)
        and after < len(ranked)
        and _ON_CONDITION.match(ranked[after].sentence)
    ):
        chosen.append(after)  # "... buffering of its output. It does this when ..."
    lead = best.lead_in
    if lead is not None and ranked[lead].score >= _COMPLEMENT_SCORE * best.score:
        chosen.insert(0, lead)  # the lead-in quotes the whole list the item is one of
    evidence = [
        _evidence(passage, ranked, cited, asked)
        for at in chosen
        for cited in (*_stood_for(ranked, at, asked.why), at)
    ]
    if (example := quoted_example(passage.text, ranked, query)) is not None:
        led = _example_led(passage, ranked, example, asked)
        together = ranked_sentences(led.text, query, weights=weights)
        score = max([best.score, *(item.score for item in together)])
        return _Answered(passage, score, [led, *(e for e in evidence if e.source != led.source)])
    return _Answered(passage, best.score, evidence)


def _example_led(
    passage: Passage, ranked: Sequence[Scored], example: tuple[int, str], asked: _Asked
) -> Evidence:
    """The sentence that leads into the code example a phrase of the question is quoted from,
    cited with that line of code (see :func:`~teams.language.examples.quoted_example`)."""
    at, code = example
    lead = _evidence(passage, ranked, at, asked)
    return lead.model_copy(update={"text": f"{lead.text} `{code}`"})


_MANNER_ASKED = re.compile(r"^\s*how\s+(?:does|do|did|is|are|can|could)\b", re.I)
"""A question of how something is done (not "how many", "how long")."""
_BY_MEANS = re.compile(
    r"^(?:it|this|they|that)\s+(?:does|do|did|works?|worked|achieves?|manages?)\s+"
    r"(?:this|that|so\s+)?\s*by\s+\w+ing\b|^(?:this|that)\s+is\s+(?:done|achieved)\s+by\b",
    re.I,
)
"""A sentence after the one that states a thing, saying how it is done ("It does this by
disabling events ...")."""
_CONDITION_ASKED = re.compile(
    r"(?:^|[.?!]\s+)when\s+(?:does|do|did|is|are|will|would|can|could)\b", re.I
)
"""A question of when something happens ("When does the interpreter hold its output back?")."""
_ON_CONDITION = re.compile(
    r"^(?:it|this|they|that)\s+(?:does|do|did|happens?|occurs?)\s+(?:this\s+|that\s+|so\s+)?"
    r"(?:only\s+)?(?:when|whenever|if|once|unless)\b",
    re.I,
)
"""A sentence after the one that states a thing, saying when it happens ("It does this when it
thinks it's being called in a non-interactive fashion.")."""
_EXAMPLE = re.compile(
    r"^(?:an?\s+example|for example|for instance|e\.g\.|example\b)(?!.*\bdefault)", re.I
)
"""A sentence that is an example ("An example time zone could be `Europe/London`:"), stating no
default: for a question of a default, neither the answer nor a second statement of it."""


def _elsewhere(sentence: str, on: Set[str]) -> bool:
    """Whether ``sentence`` is about another operating system than those a question asks
    about (``on``): "... on Windows systems Hatch will use ..." for "On Linux or macOS, ...?"."""
    named = platforms(sentence)
    return bool(on and named and not named & on)


def _exemplifies(ranked: Sequence[Scored], at: int) -> bool:
    """Whether sentence ``at``, or a sentence it leans on, gives an example (:data:`_EXAMPLE`)."""
    first = at - ranked[at].leans
    return any(_EXAMPLE.search(ranked[before].sentence) for before in range(first, at + 1))


_RELEASE_NOTE = re.compile(
    r"^[*_]?(?:added|introduced|changed|deprecated|new|removed)\b[^.]{0,80}?\bin\s+v?\d+(?:\.\d+)+"
    r"|:version_?(?:added|changed):\s*v?\d",
    re.I,
)
"""A release note set apart from the prose it is about: "*Introduced in 2.0.0*", "Added in
v2.12: The `exclude_if` parameter.", a directive's ":version_added: 4.44"."""
_ADDED = re.compile(r"[*_]?(?:added|introduced|new)\b|:version_?added:", re.I)
_NOTE_WORDS = 12
_NOTE_REACH = 6


_NAMED_ENTRY = re.compile(r"^``[^`]+``:\s+")
"""The name of the entry a sentence opens (``.. option:: -j N, --jobs N`` read as its body's
term): every note of the entry names it, so it tells none of them apart."""


def _release_note(ranked: Sequence[Scored], chosen: Sequence[int], query: str) -> list[int]:
    """The release note nearest the best sentence (the first ``chosen``) in its passage
    (within six sentences of one ``chosen``, the better scored first), for a question of when
    or in which release: a setting's note stands above or below its description. It is quoted
    when it holds a word of the question ("*Changed default ... in 2.3.0*" for "by default")
    or no quoted sentence names a release. A note on what the chosen sentences speak of comes
    first ("Changed in 1.7: Support ``auto`` argument." for "If ``auto`` argument is given,
    ...", not the entry's name: "Changed in 6.2: Add ``--jobs`` long option." for "``-j N, --jobs
    N``: Distribute the build ..."); then, for a question of since when, a note of an
    addition."""
    index = chosen[0]
    notes = [
        at
        for at, item in enumerate(ranked)
        if min(abs(at - near) for near in chosen) <= _NOTE_REACH
        and len(item.sentence.split()) <= _NOTE_WORDS
        and _RELEASE_NOTE.search(item.sentence)
    ]
    since = asks_since(query)
    said = set().union(*(_word_stems(_NAMED_ENTRY.sub("", ranked[at].sentence)) for at in chosen))
    best = said - _word_stems(query)

    def rank(at: int) -> tuple[bool, bool, float, int]:
        about = bool(best & _word_stems(_RELEASE_NOTE.sub("", ranked[at].sentence)))
        added = since and _ADDED.match(ranked[at].sentence) is not None
        return about, added, ranked[at].score, -abs(at - index)

    return [max(notes, key=rank)] if notes else []


def _beyond(kind: str, answer: Set[str], sentence: str, query: str) -> bool:
    """Whether ``sentence`` gives, for a one-value question of ``kind``, values beyond the
    ``answer`` (the values the best sentence gives): a rival (:func:`_rival`), or the answer
    beside another ("tell (``401``) from (``403``)")."""
    return bool(answer and given(kind, sentence, query) - answer)


def _rival(kind: str, answer: Set[str], sentence: str, query: str) -> bool:
    """Whether ``sentence`` answers a one-value question of ``kind`` otherwise than the
    ``answer`` (the values the best sentence gives): it gives values of that kind, none of
    them the answer's."""
    values = given(kind, sentence, query)
    return bool(answer and values) and not answer & values


def _agreeing(cited: Sequence[_Answered], query: str) -> list[Evidence]:
    """The evidence of the passages ``cited``, best first; for a question that asks for one
    value, without a later passage's sentences that give a rival to the values of the first
    passage that gives any (the best answering of the others when that one speaks only of
    another version of a product the question names: "drops ... Python 3.7" for Python 3.9;
    see :func:`_rival`): the best answer is stated, not beside another
    page's different figure or name ("`TYPER_USE_RICH`" stated alone, not with a neighbouring
    section's other variable); a rival whose passage answers as well is kept as disputed, a
    disagreement to report. For a question of a default, the first passage whose statement
    states a default and gives a value is the one others are checked against ("Default:
    ``2083``", not "a single website"), and only another stated default disputes it. A question
    for versions that names one ("Which releases still create Python 3.6 environments?") is
    answered without a statement that gives several beside one that gives one of them alone."""
    evidence = [item for answered in cited for item in answered.evidence]
    kind = asks_one_value(query) or _one_value_part(query)
    if not kind and answer_kind(query) == "version" and pointers(query):
        return _unambiguous(evidence, "version", query)  # "Which releases ... Python 3.6?"
    if not kind or not cited:
        return evidence
    values = [  # "CPython 3.9-3.11; minimum target 10.9" answers nothing of CPython 3.12
        set().union(
            *(given(kind, e.text, query) for e in a.evidence if not another_version(e.text, query))
        )
        for a in cited
    ]
    first = next((at for at, found in enumerate(values) if found), 0)  # the first to answer
    elsewhere = [all(another_version(e.text, query) for e in a.evidence) for a in cited]
    if elsewhere[first]:  # "drops ... Python 3.7" for Python 3.9: the best of the others
        others = (at for at, found in enumerate(values) if found and not elsewhere[at])
        first = max(others, key=lambda at: cited[at].score, default=first)
    naming = _naming_pointers(cited, query)
    if naming and first not in naming:  # "Removed support for Python 3.7" for "... drop 3.7?"
        first = max(
            (at for at in naming if values[at]), key=lambda at: cited[at].score, default=first
        )
    stated = [_default_value(answered, kind) for answered in cited] if asks_default(query) else []
    if not stated and _LEAST_ASKED.search(query):  # "the oldest Python": "3.10 or newer"
        stated = [_least_stated(answered, kind) for answered in cited]
    dated = [entry_release(answered.passage) is not None for answered in cited]
    present = [said and not old for said, old in zip(stated, dated, strict=False)]
    stated = present if any(present) else stated  # a changelog's old floor: the docs' now
    first = stated.index(True) if any(stated) else first  # a default stated as one, if any
    agreeing = _against(cited, first, values[first], stated, kind=kind, query=query)
    return _unambiguous(agreeing, kind, query)


def _against(
    cited: Sequence[_Answered],
    first: int,
    answer: Set[str],
    stated: Sequence[bool],
    *,
    kind: str,
    query: str,
) -> list[Evidence]:
    """The evidence of ``cited`` checked against the ``answer`` of passage ``first``: a rival
    kept as disputed when its passage answers as well (and, where ``stated`` marks the passages
    that state a default or a least value, states one); a rival for another version of a
    product the question names left out, even in passage ``first`` ("CPython 3.9-3.11; minimum
    target 10.9" beside the row of 3.12)."""
    agreeing = []
    for at, answered in enumerate(cited):
        for item in answered.evidence:
            rival = _rival(kind, answer, item.text, query)
            if rival and another_version(item.text, query):
                continue
            if at == first or not rival:
                agreeing.append(item)
            elif answered.score >= cited[first].score and (not stated or stated[at]):
                agreeing.append(item.model_copy(update={"disputed": True}))  # they disagree
    return agreeing


def _naming_pointers(cited: Sequence[_Answered], query: str) -> set[int]:
    """The passages of ``cited`` whose evidence names a version or year the question names
    ("3.7" of "... the first to drop support for Python 3.7?"; "3.7.0" names "3.7"): the answer
    is stated of it, so a passage that names none ("the first major release of isort") answers
    something else."""
    named = [re.compile(rf"(?<![\d.]){re.escape(p)}(?:\.\d+)*(?!\w)") for p in pointers(query)]
    return {
        at
        for at, answered in enumerate(cited)
        if named and any(p.search(item.text) for p in named for item in answered.evidence)
    }


def _one_value_part(query: str) -> str:
    """ "version" when the first part of a split question asks for one version (see
    :func:`~teams.language.questions.asks_one_value`) and the other parts ask nothing of their
    own, holding no question word ("Starting with which Python version can I spell a union as
    int | str and have it work at runtime ...?"); "" otherwise ("In which release ... and what
    is the cap?" asks for a figure too)."""
    parts = split_question(query)
    kind = asks_one_value(parts[0]) if len(parts) > 1 else ""
    asking = any(_QUESTION_WORD.search(part) for part in parts[1:])
    return kind if kind == "version" and not asking else ""


_QUESTION_WORD = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)


def _default_value(answered: _Answered, kind: str) -> bool:
    """Whether a statement of ``answered`` states a default in so many words ("Default:
    ``2083``", "defaults to 5", "The default is 80") and gives a value of ``kind`` (of any
    kind when ``kind`` is "")."""
    return any(
        _DEFAULT_STATED.search(item.text) and (not kind or given(kind, item.text, ""))
        for item in answered.evidence
    )


_LEAST_ASKED = re.compile(r"\b(?:oldest|earliest|minimum|lowest)\b", re.I)
"""A question of the least value that will do ("the oldest Python I can install it on")."""
_LEAST_STATED = re.compile(
    r"\b(?:or|and)\s+(?:newer|later|higher|above|greater)\b|\bat\s+least\b|\d\+(?![\w.])|"
    r"\b(?:minimum|lowest)(?:\s+[a-z]+){0,2}\s+v?\d+(?:\.\d+)*\s*(?:[;.,]|$)",
    re.I,
)
"""A value stated as the least that will do: "Python 3.10 or newer", "3.8.0 and above", "at
least 3.9", "3.8+" (not a specifier, ">=3.9", which examples use as often), a value right after
"minimum" as a table's row reads ("minimum target 10.13."; not "minimum MarkupSafe version to
>= 3.0")."""


def _least_stated(answered: _Answered, kind: str) -> bool:
    """Whether a statement of ``answered`` gives a value of ``kind`` as the least that will do
    (:data:`_LEAST_STATED`)."""
    return any(
        _LEAST_STATED.search(item.text) and given(kind, item.text, "") for item in answered.evidence
    )


def _unambiguous(evidence: Sequence[Evidence], kind: str, query: str) -> list[Evidence]:
    """``evidence`` without a statement that gives the values of ``kind`` another gives and
    more, alternatives to them: "[tool.pytest] (since version 9.0) or [tool.pytest.ini_options]
    (since version 8.1)" is left out beside "supported since pytest 9.0", "a 403 response and
    a close code of either 3404 ... or 3405 ..." beside "a 403 response with a 3404 close
    code" (for names, only beside a statement that gives one name: a sentence that explains
    names more things than one that does not); nor, for a version of a product the question
    names, one that gives only another product's version when another statement gives one
    ("using OpenSSL 3.0" beside "since Python 3.12"). A statement whose only values are
    versions the question names, of another product or not ("3.0.0 (2026-04-05): The only
    scenario ..." for "the oldest Python that Invoke 3.0 runs on"), is narrower than none."""
    values = [given(kind, item.text, query) for item in evidence]
    named = given(kind, " ".join(pointers(query)), "")  # "Invoke 3.0": where, not what
    narrower = [  # for names, one alone: a sentence that explains names more things
        stated
        for item, stated in zip(evidence, values, strict=True)
        if stated - named and not item.disputed and (kind != "name" or len(stated) == 1)
    ]
    answered = kind == "version" and any(values)
    return [
        item
        for item, stated in zip(evidence, values, strict=True)
        if not any(other < stated for other in narrower)
        and not (answered and not stated and versions_of_others(item.text, query))
    ]


_PREMISE = re.compile(r"\b(?:if|when|where|say|suppose)\b[^,;:()]*?(?<![\w.])(\d+(?:\.\d+)+)\b")
"""A condition naming a version or figure: "if the latest stable Rust version is 1.85"."""
_DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+)+\b")


def _on_its_premise(evidence: Sequence[Evidence], query: str) -> list[Evidence]:
    """``evidence`` without the statements that work an example from a premise the question
    states otherwise (:func:`_another_premise`), unless every statement does."""
    kept = [item for item in evidence if not _another_premise(item.text, query)]
    return kept or list(evidence)


def _another_premise(sentence: str, query: str) -> bool:
    """Whether ``sentence`` works an example from a premise the question states otherwise: "if
    the latest stable Rust version is 1.85, ... at most 1.83" for a question that says the
    latest is 1.86 (its figures answer another case)."""
    asked = set(_DOTTED.findall(query))
    premises = {found[1] for found in _PREMISE.finditer(sentence)}
    return bool(asked and premises) and not premises & asked


def _stood_for(ranked: Sequence[Scored], at: int, why: bool = False) -> tuple[int, ...]:
    """The sentence that sentence ``at``'s pronoun stands for, when it is on another line and
    holds words of the query that ``at`` only borrows from it: quoted with ``at``, it would be
    cited at ``at``'s line, so it is also cited alone, at its own (each half of an answer
    cited where it is written); () otherwise. For a why-answer (``why``) the sentence before is
    the claim explained, not a half of the answer: only one of the chain that gives a reason in
    its own words ("... disabled to avoid showing delicate information. In these cases, it
    could be problematic ...") is also cited at its own line."""
    item = ranked[at]
    head = at - item.leans
    if why:
        reasons = [i for i in range(head, at) if gives_reason(ranked[i].sentence)]
        return (reasons[0],) if reasons and ranked[reasons[0]].offset != item.offset else ()
    if not item.borrowed or head == at or ranked[head].offset == item.offset:
        return ()
    return (head,)


_QUOTING_SCORE = 0.9
"""A sentence that stands for the best one by a pronoun is cited in its place (quoting both)
when it holds all its matches, one of them its own, and scores at least this share of it."""


def _quoting(ranked: Sequence[Scored], index: int) -> int:
    """``index``, or the sentence after it that refers back to it ("... the `clear` function
    ... It does what the name suggests: it clears ...") and answers as well: cited with what
    it stands for, it quotes the best sentence and says more of what was asked."""
    best = ranked[index]
    for at in range(index + 1, min(len(ranked), index + 3)):
        item = ranked[at]
        if (
            at - item.leans <= index
            and best.hits <= item.hits
            and item.hits - item.borrowed
            and item.score >= _QUOTING_SCORE * best.score
        ):
            return at
    return index


def _best_index(ranked: Sequence[Scored], among: Sequence[int] | None = None) -> int:
    """The index of the best scored sentence (``among`` those indices), the first of equals."""
    indices = range(len(ranked)) if among is None else among
    return max(indices, key=lambda at: (ranked[at].score, -at))


def _evidence(
    passage: Passage, ranked: Sequence[Scored], at: int, asked: _Asked = _NOTHING_ASKED
) -> Evidence:
    """Sentence ``at`` cited as evidence (at its own line) with what it stands for: a sentence
    whose subject is a pronoun, "this X" or missing comes after the sentences its subject is
    named in ("python-dotenv ... This is installed to ...", "... sibling task ... It could ...
    This decision has the implication ..."), and after the heading when they open the passage
    ("WSProto: This implementation ..."); a consequence ("This means ...") comes after its
    cause. For a question that asks ``when`` (a time, a version), the headings above come
    first ("0.34.0 (December 15, 2024) > Removed: Drop support for Python 3.8"). For a question
    that asks ``why``, a consequence ("Therefore, ...") comes after the sentence before it, its
    cause, cited at the cause's line, and a sentence that gives no reason in words of its own
    comes with the sentence after it in its paragraph ("... it will not do so by default.
    Because ..."), and with the one after that when the next gives none either (an example, then
    "This ensures that ...", cited at its own line). For one that asks for a default, the
    sentence of its paragraph that states the default comes with it ("A string that defines ...
    The default is `noopener`."), or the line below its paragraph that states it ("**default**:
    `gh-pages`") or above it among a reference entry's field lines ("Default: ``2083``"), cited
    where the default is stated.
    For one that asks for a name, a heading that names something else comes first ("Plac:
    Provide a simple way ..."). For one that asks one value as it stands now, a value the quote
    gives as replaced is left out ("... … now 16KiB.")."""
    item = ranked[at]
    first, cited = at - item.leans, item.offset
    if asked.why and item.cause and first == at and at:  # "Therefore, ...": why is before it
        first -= 1
        cited = ranked[first].offset
    last, cited = _explained_by(passage, ranked, at, cited) if asked.why else (at, cited)
    if asked.default and (holds := _default_stated(passage, ranked, last)) > last:
        last, cited = holds, ranked[holds].offset  # cited where the default is stated
    text = " ".join(ranked[before].sentence for before in range(first, last + 1))
    valued = not asked.one_value or given(asked.one_value, text, "")
    stated = _STATES_DEFAULT.search(text) and valued
    if asked.default and not stated:  # "The default value is copied from ...": not its value
        line = _default_below(passage, ranked[last].offset)
        if line is None and (line := _default_above(passage, ranked[first].offset)):
            text = f"{line[1]} {text}"
        elif line is not None:
            text = f"{text} {line[1]}"
        cited = line[0] if line else cited
    headings = " > ".join(filter(None, (passage.outline, passage.heading)))
    if asked.when and headings and headings not in text:
        text = f"{headings}: {text}"
    elif item.titled and passage.heading and passage.heading not in text:
        text = f"{passage.heading}: {text}"
    elif (named := _name_in(passage.heading, ranked, asked.named)) and named not in text:
        text = f"{named}: {text}"
    text = without_superseded(text) if asked.now else text
    if (named := named_in_example(passage.text, ranked, last)) and named not in text:
        text = f"{text} (`{named}`)"  # "... the proxy fix middleware ..., (`ProxyFixMiddleware`)"
    return Evidence(source=f"{passage.path}:{passage.line + cited}", text=text, score=passage.score)


_NAMING_HEADING_WORDS = 3
"""The most words of a heading that is a name ("Plac", "Rich Tables"), not a topic."""


def _name_in(heading: str, ranked: Sequence[Scored], asked: frozenset[str] | None) -> str:
    """The name ``heading`` gives (a link's text for a link) when the question that ``asked``
    for a name does not hold it and a sentence of the passage says what it is in the question's
    words ("Plac" above "Plac is another library ...", for "Which older library ..."): the
    section is about a thing of the kind asked for, and its other sentences do not say its
    name; "" otherwise."""
    name = _LINK.sub(r"\1", heading).strip()
    if asked is None or not name or len(name.split()) > _NAMING_HEADING_WORDS:
        return ""
    if not _word_stems(name) - asked:
        return ""
    defines = re.compile(rf"^{re.escape(name)} (?:is|are|was|were) (.+)", re.I)
    for item in ranked:
        found = defines.match(item.sentence)
        if found and _word_stems(found.group(1)) & asked:
            return name
    return ""


_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
"""A Markdown link: its text is group 1."""


_STATES_DEFAULT = re.compile(r"\bdefaults?\b", re.I)
_DEFAULT_REACH = 2
"""Sentences after the cited one in which its paragraph may state the default."""


def _default_stated(passage: Passage, ranked: Sequence[Scored], at: int) -> int:
    """The sentence, of sentence ``at`` and the next two of its paragraph (of the indented body,
    for a directive that names what it describes: ``.. envvar:: NAME``), that first states a
    default (``at`` when none does)."""
    lines = passage.text.split("\n")
    start = ranked[at].offset
    entry = describes(lines[start])
    for after in range(at, min(at + _DEFAULT_REACH + 1, len(ranked))):
        between = lines[start + entry : ranked[after].offset + 1]
        if entry and any(line[:1].strip() for line in between):
            break  # the body ended: a line as far left as the directive
        if not entry and not all(line.strip() for line in between):
            break  # the paragraph ended
        if _STATES_DEFAULT.search(ranked[after].sentence):
            return after
    return at


_DEFAULT_LINE = re.compile(r"\W{0,4}defaults?(?: to|\W{0,4}[:=])\s*\S", re.I)
"""A line that states a default, set apart below what it is the default of ("**default**:
`gh-pages`", "Default: 80", "Defaults to `None`.")."""
_DEFAULT_LINE_WORDS = 12
_DEFAULT_STATED = re.compile(
    rf"(?:^|(?<=[.!?] )){_DEFAULT_LINE.pattern}|\bdefaults to\b"
    r"|\*\*defaults?(?::\*\*|\*\*:)\s*\S"
    r"|\bdefault\s+(?:[\w-]+\s+){0,4}?(?:is|are|was|of)\s+(?:only\s+|just\s+)?[`'\"\d]",
    re.I,
)
"""A default stated with its value, in a line of its own ("Default: ``2083``") or a field
of a reference's joined lines ("**Type:** Int **Default:** `79`"), or in a
sentence ("The default is 80", "The default thread pool size is only 40", "It defaults to
5"); not a passing "the default settings are optimized for ..."."""


_SECTION_MARK = re.compile(r"^(?:#{1,6}\s|([=\-~^\"'`*+#])\1{2,}$|\.\. \w[\w:-]*::)")
"""A line that opens a section or an entry: a Markdown heading, a reStructuredText underline,
a directive (".. setting:: URLLENGTH_LIMIT")."""


def _stating_default(line: str) -> bool:
    stated = line.strip()
    return bool(_DEFAULT_LINE.match(stated)) and len(stated.split()) <= _DEFAULT_LINE_WORDS


def _default_below(passage: Passage, offset: int) -> tuple[int, str] | None:
    """The line right below the paragraph of line ``offset`` (of the body below it, for a
    directive that names what it describes) when it states a default on its own ("Set the
    remote branch to commit to ..." then "**default**: `gh-pages`"): its offset and text; None
    otherwise."""
    lines = passage.text.split("\n")
    end = _paragraph_end(lines, offset)
    if describes(lines[offset]):  # ".. envvar:: NAME": its body is below it
        body = next((at for at in range(end, len(lines)) if lines[at].strip()), None)
        end = end if body is None else _paragraph_end(lines, body)
    below = next((at for at in range(end, len(lines)) if lines[at].strip()), None)
    if below is None or not _stating_default(lines[below]):
        return None
    return below, lines[below].strip()


def _paragraph_end(lines: Sequence[str], at: int) -> int:
    """The index of the first blank line from ``at`` on (``len(lines)`` when none)."""
    while at < len(lines) and lines[at].strip():
        at += 1
    return at


def _default_above(passage: Passage, offset: int) -> tuple[int, str] | None:
    """The line that states a default on its own above line ``offset`` in its section: a
    field line that opens a reference entry ("Default: ``2083``", "Scope: ...", then "The
    maximum URL length ..."); its offset and text, or None."""
    lines = passage.text.split("\n")
    for above in range(offset - 1, -1, -1):
        line = lines[above].strip()
        if _stating_default(line):
            return above, line
        if _SECTION_MARK.match(line):
            return None  # the entry's heading: another entry's field lines are above it
    return None


def _explained_by(
    passage: Passage, ranked: Sequence[Scored], at: int, cited: int
) -> tuple[int, int]:
    """The last sentence a why-answer at ``at`` quotes (see :func:`_explained_next`: up to
    :data:`_EXPLAINED_AFTER` after it while none gives a reason), and the line it is cited at:
    where the reason is given when it comes past an example ("... expands any statement ...
    For example, ... This ensures that ..."), else ``cited``."""
    last = at
    while last - at < _EXPLAINED_AFTER and _explained_next(passage, ranked, last):
        if last > at and not _same_paragraph(passage, ranked, last):
            break  # past the sentence after, only within its paragraph
        last += 1
    if last - at > 1 and gives_reason(ranked[last].sentence):
        cited = ranked[last].offset
    return last, cited


def _same_paragraph(passage: Passage, ranked: Sequence[Scored], at: int) -> bool:
    """Whether sentence ``at`` and the one after it are in one paragraph (no blank line, and
    the one after opens no list item of its own)."""
    lines = passage.text.split("\n")[ranked[at].offset : ranked[at + 1].offset + 1]
    return all(line.strip() for line in lines) and not _next_item(lines)


def _next_item(lines: Sequence[str]) -> bool:
    """Whether the last of ``lines`` (where the next sentence starts) opens a list item of its
    own, not the first line's: the items of a list are not one paragraph ("- Changed the test
    runner not to use uvloop ..." and "- Fixed ``RuntimeError`` ...")."""
    return len(lines) > 1 and LIST_MARKER.match(lines[-1]) is not None


_EXPLAINED_AFTER = 2
"""The most sentences after a why-answer's own that may come with it while none of them gives a
reason in words of its own (an example, then "This ensures that ...")."""


def _explained_next(passage: Passage, ranked: Sequence[Scored], at: int) -> bool:
    """Whether sentence ``at`` gives no reason of its own and the next sentence may: the next of
    its paragraph, or the prose paragraph right after when ``at`` is a paragraph alone ("... won't
    work when using `python -m`." then "Auto-completion depends on the name of the program
    called."), or a note that points back at it across its example ("... set X to `true`:",
    code, "!!! warning This may result in ..."): what a why-answer quotes with it; and, though
    ``at`` gives a reason, a next sentence of its paragraph that gives the reason for it ("This
    is to reduce the chance ...")."""
    if at + 1 >= len(ranked):
        return False
    if _EXPLAINS_BACK.match(ranked[at + 1].sentence) and _same_paragraph(passage, ranked, at):
        return True  # "... should be to ensure ... This is to reduce the chance that ..."
    if gives_reason(ranked[at].sentence):
        return False
    text = passage.text.split("\n")
    start = ranked[at].offset
    lines = text[start : ranked[at + 1].offset + 1]
    blank = [i for i, line in enumerate(lines) if not line.strip()]
    if not blank:
        return not _next_item(lines)
    alone = start == 0 or not text[start - 1].strip()
    prose = not _NOT_PROSE.match(lines[-1])
    if len(blank) == 1 and blank[0] == len(lines) - 2 and alone and prose:
        return True
    pointing = _POINTS_BACK.match(ranked[at + 1].sentence) is not None
    return pointing and _code_and_notes(lines[blank[0] : -1])


_NOT_PROSE = re.compile(r"\s*(?:[-*+]\s|\d+[.)]\s|```|~~~|\||#|>|\.\.\s|:\w)")
"""A line that opens a list item, code, a table, a heading, a quote or a directive."""
_EXPLAINS_BACK = re.compile(
    r"^(?:this|that)\s+is\s+(?:to|so|because|in order|why|done to|meant to|intended to)\b"
    r"|^the\s+reason\s+(?:is|being|for this)\b",
    re.I,
)
"""A sentence that gives the reason for the one before it ("This is to reduce the chance that
..."): quoted with it, though that one has a reason word of its own ("to ensure")."""
_POINTS_BACK = re.compile(r"^(?:this|that|doing so)\b", re.I)
"""A sentence that opens by pointing back at what was said before it."""
_NOTE_MARKER = re.compile(r"^\s*(?:!!!|\?\?\?\+?|\.\. \w+::|:{3,}\s*\{?\w)")
"""The line that opens a note ("!!! warning", ".. warning::", ":::{tip}") above its text."""


def _code_and_notes(lines: Sequence[str]) -> bool:
    """Whether ``lines`` hold nothing but blank lines, fenced code and the markers of notes: a
    setting's example and the note under it ("... set X to `true`:", a code block, "!!!
    warning", "This may result in ...") stand between a sentence and what follows from it."""
    fenced = False
    for line in lines:
        if FENCE_LINE.match(line):
            fenced = not fenced
        elif not (fenced or not line.strip() or _NOTE_MARKER.match(line)):
            return False
    return True


def cited_sentence(passage: Passage, query: str) -> tuple[str, str] | None:
    """The passage's most relevant sentence to ``query`` and its ``path:line`` source; None
    when the passage holds no prose sentence (only code or a table): nothing to cite."""
    if passage.code:
        return None
    ranked = ranked_sentences(passage.text, query, heading=passage.heading)
    if not ranked:
        return None
    best = _evidence(passage, ranked, _quoting(ranked, _best_index(ranked)))
    return best.source, best.text


def _record(evidence: Evidence, context: NodeContext, *, path: str, title: str) -> EvidenceRecord:
    return EvidenceRecord(
        text=evidence.text,
        source=evidence.source,
        title=title,
        path=path,
        origin=EVIDENCE_ORIGIN,
        stored_by=context.thread_id or "",
    )


def remember_evidence(
    memory: ResearchMemory, records: Sequence[EvidenceRecord], context: NodeContext
) -> list[str]:
    """Store ``records`` in ``memory``; emit ``evidence_stored`` when some were new."""
    new = memory.store_evidence(records)
    if new:
        context.emit("evidence_stored", memory=memory.name, ids=new)
    return new


class RememberingWorker:
    """Wraps any worker: the evidence of its successful results is stored in research memory.

    For workers that do not store evidence themselves (the model-backed one); sources are
    ``path:line`` citations, so the path is what precedes the last colon.

    Args:
        worker: The worker that does the research.
        memory: Where its evidence is stored.
    """

    def __init__(self, worker: Worker, memory: ResearchMemory) -> None:
        self.worker = worker
        self.memory = memory

    def may_pause(self, task: Task) -> bool:
        """Whether the wrapped worker may pause in ``task``."""
        return may_pause(self.worker, task)

    def run(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the wrapped worker, then store its evidence."""
        result = self.worker.run(task, question, context)
        self._remember(result, context)
        return result

    async def arun(self, task: Task, question: str, context: NodeContext) -> WorkerResult:
        """Run the wrapped worker, then store its evidence on a thread (embedding is CPU work)."""
        result = await self.worker.arun(task, question, context)
        await asyncio.to_thread(self._remember, result, context)
        return result

    def _remember(self, result: WorkerResult, context: NodeContext) -> None:
        if result.status != "ok" or not result.evidence:
            return
        records = [
            _record(item, context, path=item.source.rpartition(":")[0] or item.source, title="")
            for item in result.evidence
        ]
        remember_evidence(self.memory, records, context)


class EvidenceAggregator:
    """Consolidates the evidence of every finished task, one cited line per passage."""

    def consolidate(self, state: TeamState, context: NodeContext) -> str:
        """Deterministic text, so an unchanged round is detected as unchanged."""
        lines = []
        for task, result in results_in_order(state):
            lines.append(f"[{task.id}] {task.description}")
            lines.extend(
                f"  - {'disputed: ' if e.disputed else ''}{e.text} ({e.source})"
                for e in result.evidence
            )
        return "\n".join(lines)


@dataclass(frozen=True, kw_only=True)
class CoverageReviewer:
    """Retries low-coverage tasks with reformulated queries, then finishes.

    A task has low coverage when it failed or its best passage scores under ``threshold``.
    Each retry reformulates the query: first its keywords with the question's, then the
    sub-question joined to the whole question. Tasks a human rejected are not work left to do:
    they are never retried, and the verdict names them with the reviewer's reason.
    """

    threshold: float = 0.45
    max_attempts: int = 2

    def review(self, state: TeamState, context: NodeContext) -> ReviewVerdict:
        """Verdict from coverage: retry what is weak and still has attempts left."""
        finished = results_in_order(state, include_failed=True)
        scores = [result.confidence for _, result in finished]
        confidence = sum(scores) / len(scores) if scores else 0.0
        low = [
            (task, result)
            for task, result in finished
            if result.status == "failed" or result.confidence < self.threshold
        ]
        weak = [task for task, _ in low if task.attempt < self.max_attempts]
        rejected = [f"rejected in review: {t.id} ({why})" for t, why in rejected_tasks(state)]
        if not weak:
            return ReviewVerdict(
                decision="finish",
                confidence=confidence,
                reasons=[_why_finished(finished, low), *rejected],
            )
        question = state.get("question", "")
        return ReviewVerdict(
            decision="retry_workers",
            confidence=confidence,
            reasons=[f"low coverage: {', '.join(task.id for task in weak)}", *rejected],
            retry_task_ids=[task.id for task in weak],
            retry_inputs={task.id: {"query": reformulate(task, question)} for task in weak},
        )


def _why_finished(
    finished: list[tuple[Task, WorkerResult]], low: list[tuple[Task, WorkerResult]]
) -> str:
    """Why a review with nothing left to retry finishes: the coverage is sufficient only when
    no task is weak; otherwise which tasks failed or stayed weak after their last attempt."""
    failed = [task.id for task, result in low if result.status == "failed"]
    if finished and len(failed) == len(finished):
        return f"every task failed, no attempt left: {', '.join(failed)}"
    if not low:
        return "coverage is sufficient" if finished else "no task finished"
    weak = [task.id for task, result in low if result.status != "failed"]
    said = [f"failed: {', '.join(failed)}"] if failed else []
    said += [f"low coverage: {', '.join(weak)}"] if weak else []
    return f"no attempt left ({'; '.join(said)})"


def reformulate(task: Task, question: str) -> str:
    """A new query for a weak task, different at each attempt."""
    if task.attempt == 0:
        terms = keywords(task.description) + keywords(question)
        return " ".join(dict.fromkeys(terms))
    return f"{task.description} ({question})"


class EvidenceCurator:
    """Keeps each well-supported finding as a fact with provenance, in the semantic store."""

    def __init__(
        self,
        store: SemanticStore | None,
        min_score: float = 0.45,
        namespace: Namespace = FACTS_NAMESPACE,
    ) -> None:
        self.store = store
        self.min_score = min_score
        self.namespace = namespace

    def curate(self, state: TeamState, context: NodeContext) -> Sequence[MemoryFact]:
        """Facts ``(sub-question, is supported by, sentence)`` from strong evidence."""
        facts = [
            MemoryFact(
                subject=task.description,
                predicate="is supported by",
                object=evidence.text,
                confidence=max(0.0, min(1.0, evidence.score)),
                provenance=fact_provenance(context, task.id, evidence.source),
            )
            for task, result in results_in_order(state)
            for evidence in result.evidence
            if evidence.score >= self.min_score and not evidence.disputed
        ]
        remember_facts(self.store, facts, self.namespace)
        return facts


class ReportFormatter:
    """Writes a Markdown report in which every claim cites ``path:line``."""

    def format(self, state: TeamState, context: NodeContext) -> str:
        """The cited report of the run."""
        return cited_report(state)
