"""The knowledge graph's edges: subject-predicate-object triples extracted from remembered facts.

The model extracts them with structured output (one call per fact), and its answer is validated.
When the call fails or its output is malformed or empty, a small deterministic parser handles the
common sentence shapes ("I prefer X", "my X is Y", "X uses Y", "X is Y").  Whatever happens, the
caller learns how the triples were found, or why there are none: never silently nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from helium.memory.prompts import EXTRACTION_PROMPT

USER = "user"
"""The entity standing for the person talking to Helium ("I", "me", "my")."""
MAX_TRIPLES = 5
MAX_PART = 120

Method = Literal["model", "fallback"]

_SELF = {"i", "me", "myself", "we", "us", "the user", "user", "i'm", "i am"}
_ARTICLES = re.compile(r"^(?:the|a|an|our|this|that)(?:\s+|$)", re.IGNORECASE)
_ADVERBS = re.compile(r"\s+(?:always|usually|mostly|also|now|often|never)$", re.IGNORECASE)
_VERBS = ("prefer", "like", "love", "enjoy", "hate", "dislike", "use", "need", "want", "work", "live", "run",
          "depend", "own", "maintain", "speak", "write", "deploy", "store", "host", "require", "support",
          "build", "test", "keep", "call")
_VERB = re.compile(r"\b(?P<verb>" + "|".join(_VERBS) + r")(?:s|es|d|ed)?\b"
                   r"(?:\s+(?P<particle>on|at|for|in|to|with|from)\b)?", re.IGNORECASE)
_MY = re.compile(r"^(?:my|our)\s+(?P<relation>.+?)\s+(?:is|are|was)\s+(?P<object>.+)$", re.IGNORECASE)
_IS = re.compile(r"^(?P<subject>.+?)\s+(?P<verb>is|are)\s+(?P<object>.+)$", re.IGNORECASE)
_IM = re.compile(r"^(?:i am|i'm)\s+(?:a|an)\s+(?P<object>.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Triple:
    subject: str
    predicate: str
    object: str

    def __str__(self) -> str:
        return f"{self.subject} {self.predicate} {self.object}"


@dataclass(frozen=True)
class Extraction:
    triples: list[Triple]
    method: Method
    note: str = ""
    """Why the fallback was used, or why there are no triples."""


class _ModelTriple(BaseModel):
    subject: str = Field(description="who or what the fact is about; 'user' for the speaker")
    predicate: str = Field(description="the relation, a short base-form verb such as 'prefer' or 'use'")
    object: str = Field(description="the value or other entity")


class TripleList(BaseModel):
    """The structured output asked of the model."""

    triples: list[_ModelTriple] = Field(default_factory=list)


def extract_triples(model: BaseChatModel | None, fact: str) -> Extraction:
    """Triples for `fact`: the model's when it gives valid ones, else the deterministic parser's."""
    note = "no model to ask"
    if model is not None:
        try:
            answer = model.with_structured_output(TripleList, include_raw=True).invoke(
                [SystemMessage(EXTRACTION_PROMPT), HumanMessage(fact)])
            parsed, error = answer.get("parsed"), answer.get("parsing_error")
            if isinstance(parsed, TripleList):
                triples = validated([(t.subject, t.predicate, t.object) for t in parsed.triples])
                if triples:
                    return Extraction(triples, "model")
                note = "the model gave no valid triples"
            else:
                note = f"the model's output was malformed ({_first_line(str(error or 'no JSON'))})"
        except (ValidationError, OutputParserException, ValueError) as exc:  # the answer did not fit the schema
            note = f"the model's output was malformed ({_first_line(str(exc))})"
        except Exception as exc:  # noqa: BLE001 - any model failure falls back to the parser, and says so
            note = f"the model call failed ({type(exc).__name__}: {_first_line(str(exc))})"
    triples = fallback_triples(fact)
    if not triples:
        note += "; the sentence parser found none either"
    return Extraction(triples, "fallback", note)


def fallback_triples(fact: str) -> list[Triple]:
    """The deterministic parser: one triple from each clause of a simple sentence."""
    found: list[tuple[str, str, str]] = []
    for clause in re.split(r"[.;!?](?:\s+|$)|\n|,?\s+and\s+(?=(?:i|we|my|our)\b)", fact, flags=re.IGNORECASE):
        clause = clause.strip(" ,")
        if not clause:
            continue
        if match := _MY.match(clause):
            found.append((USER, match["relation"], match["object"]))
        elif match := _IM.match(clause):
            found.append((USER, "is", match["object"]))
        elif verb_triple := _verb_triple(clause):
            found.append(verb_triple)
        elif match := _IS.match(clause):
            found.append((match["subject"], "is", match["object"]))
    return validated(found)


def _verb_triple(clause: str) -> tuple[str, str, str] | None:
    """Subject, verb and object around the first known verb that has a real subject before it
    ("The deploy script lives in …": not "The" + "deploy", but "deploy script" + "live in")."""
    for match in _VERB.finditer(clause):
        subject = _ADVERBS.sub("", clause[: match.start()].strip())
        obj = clause[match.end():].strip()
        if normalise_entity(subject) and obj:
            verb = match["verb"].lower() + (f" {match['particle'].lower()}" if match["particle"] else "")
            return subject, verb, obj
    return None


def validated(raw: list[tuple[str, str, str]]) -> list[Triple]:
    """Normalised triples (speaker -> `user`, articles dropped, lower-case subject and predicate), without
    empty or over-long parts and without duplicates."""
    triples: list[Triple] = []
    for subject, predicate, obj in raw[: MAX_TRIPLES * 2]:
        subject, predicate, obj = normalise_entity(subject), " ".join(predicate.lower().split()), _clean(obj)
        if not (subject and predicate and obj) or max(len(subject), len(predicate), len(obj)) > MAX_PART:
            continue
        triple = Triple(subject, predicate, obj)
        if triple not in triples:
            triples.append(triple)
    return triples[:MAX_TRIPLES]


def normalise_entity(name: str) -> str:
    """How an entity is stored and matched: lower case, no leading article, the speaker as `user`."""
    text = " ".join(str(name).split()).strip(" .,:;!?\"'`").lower()
    if text in _SELF:
        return USER
    return _ARTICLES.sub("", text)


def entities_in(query: str, known: set[str]) -> set[str]:
    """The entities a question names: the user (by "I", "me", "my", …) and any known entity in it."""
    words = set(re.findall(r"[\w'-]+", query.lower()))
    found = {USER} if words & {"i", "me", "my", "mine", "myself", "we", "our", "us", "i'm", "user"} else set()
    tokens = [t.strip(".") for t in re.findall(r"[\w.+#/-]+", query.lower())]
    text = " " + " ".join(tokens) + " "
    found.update(entity for entity in known if len(entity) > 1 and f" {entity} " in text)
    return found


def _clean(text: str) -> str:
    return " ".join(str(text).split()).strip(" .,;:!?\"'`")


def _first_line(text: str, width: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:width]
