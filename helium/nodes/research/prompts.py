"""The research flow's prompts, in one place.  Treated as API: change them deliberately.

The tests' scripted model recognises each step by a phrase of its prompt (the first line of each).
"""

PLAN_PROMPT = """\
You plan web research. Break the question into 3 to 6 sub-questions and give each 1 to 3 web search queries.
Answer with one JSON object and nothing else, in this shape:
{{"sub_questions": [{{"question": "...", "queries": ["...", "..."]}}]}}

Question: {question}"""

REPAIR_PROMPT = """\
That answer could not be used: {error}
Answer again with only the JSON object, in the shape asked for."""

REFLECT_PROMPT = """\
You judge whether research evidence covers a question. Round {round} of at most {max_rounds}.
Question: {question}

Sub-questions and the evidence found for each:
{coverage}

If some sub-question is poorly covered, propose at most 4 new web search queries for it; if the evidence
is enough, propose none. Answer with one JSON object and nothing else, in this shape:
{{"enough": true, "follow_up_queries": []}}"""

SYNTHESISE_PROMPT = """\
You write a research report in Markdown that answers the question, from the numbered sources below only.
Question: {question}

Structure: a title line (# ...), a short summary, then sections (## ...) that follow the sub-questions:
{sub_questions}

Put a citation [n] right after each claim, where n is the number of the source that supports it; cite only
these numbers, and make claims only the cited excerpt supports. Do not write a Sources list: it is added for you.

Sources (number, title, URL, then excerpts):
{sources}"""
