"""Memory's prompts: triple extraction, conversation summaries, and what is injected into a run's prompt."""

EXTRACTION_PROMPT = """\
Extract the facts in the user's sentence as subject-predicate-object triples, for a knowledge graph.
Rules: when the speaker talks about themselves ("I", "me", "my"), the subject is "user". Predicates are
short lower-case verbs or relations in their base form ("prefer", "use", "name", "work at"). Objects keep
their original wording. Give at most 5 triples; give none if the sentence states no fact.
Answer only with JSON of the form {"triples": [{"subject": "...", "predicate": "...", "object": "..."}]}."""

SUMMARY_PROMPT = """\
Summarise this conversation between a user and Helium, an AI assistant in their terminal, for Helium's
long-term memory. In at most 5 short sentences say what the user wanted, what was done or decided, and
anything worth knowing next time (preferences, names, open questions). Never include API keys, passwords
or tokens. Answer with the summary only."""

MEMORY_SECTION = """\
# Memory
What you remember from earlier conversations in this project (use `recall` for more, `remember` to keep
something new). It may be out of date; the user's words in this conversation win."""

SKILLS_SECTION = """\
# Skills for this request
These skills apply to the user's request; follow their instructions."""
