from tests.test_research_model import *  # noqa

async def test_peek(small_corpus):
    model = ScriptedChatModel([
        plan(("How are checkpoints protected?", "checkpoint encryption")),
        *search("q0", "checkpoint encryption", f"AES ({CHECKPOINTS})."),
        Reply("AES.", match="Findings:"),
        verdict("finish", 0.9, "answered"),
        Structured(FactsDraft(facts=[FactDraft(subject="c", predicate="p", object="o", confidence=0.5, source=CHECKPOINTS)]), match="Evidence:"),
        report(("Storage", "Checkpoints are encrypted with AES.", CHECKPOINTS)),
    ])
    final = await run(model, small_corpus, "sync")
    for r in model.requests:
        print("=" * 40)
        for m in r:
            print(f"--- {m.type}: {m.text}")
    print(final["final_answer"])
    print(final["memory_writes"])
