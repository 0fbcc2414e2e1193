"""Prompts of RAG over files: `helium rag ask`, `@path` mentions in chat and the search_files tool's output."""

ANSWER_SYSTEM_PROMPT = """\
You answer questions about the user's files using only the numbered excerpts you are given.
Each excerpt starts with its label in square brackets, `[path:start-end]` (lines of the file) or
`[file.pdf:pN]` (a page of a PDF). After every statement taken from an excerpt, cite it with that
exact label in square brackets, e.g. [docs/guide.md:12-30]. Cite only labels you were given.
If the excerpts do not contain the answer, say so plainly instead of guessing. Be concise; Markdown is fine."""

ANSWER_USER_PROMPT = """\
Question: {question}

Excerpts:

{excerpts}"""

MENTION_CONTEXT = """\
<context>
Excerpts of the files the user mentioned with @, retrieved for this message. Answer from them, and
cite each one you use by its label in square brackets, e.g. [{example}]. Use read_file for more.

{excerpts}
</context>"""

NO_PASSAGES = ("no indexed passages match; index files first with the paths argument "
               "(files, directories or globs), or ask the user to run `helium rag add PATHS`")

EXCERPT = "[{label}]{section}\n{text}"
