"""Request and response bodies of the judge's HTTP API (Pydantic models) and their limits.

Every input limit of the API is here (:data:`MAX_WORD_CHARS`, :data:`MAX_BATCH_PAIRS`,
:data:`MAX_USED_WORDS`, :data:`MAX_HOUSE_RULINGS`, :data:`MAX_BODY_BYTES`), beside the models
that enforce it, so the OpenAPI schema (``/openapi.json``) states each limit the server
applies. The questions asked are the rulebook's (``../shared/rules/kiek.txt``, sections
"Imperfect Guesses" and "Ne Bis in Idem").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

from kiekai.judge.house_rules import DEFAULT_TABLE, MAX_RULED_BY_CHARS, TABLE_NAME_PATTERN
from kiekai.judge.verdict import Strictness

if TYPE_CHECKING:
    from kiekai.judge.house_rules import HouseRules

#: Longest word accepted, in Unicode code points. The longest WordNet 3.0 lemma has 71
#: characters ("blood-oxygenation level dependent functional magnetic resonance imaging");
#: 80 admits every lemma, written with spaces or underscores.
MAX_WORD_CHARS = 80
#: Most (secret, guess) pairs in one ``/v1/judge/batch`` request.
MAX_BATCH_PAIRS = 1000
#: Most used words in one ``/v1/repeat`` request (a Kiek round uses far fewer).
MAX_USED_WORDS = 500
#: Most house rulings sent with one request (a table's own rulings, applied before the
#: judge's evidence; a table makes a handful per game).
MAX_HOUSE_RULINGS = 200
#: Largest request body in bytes. A full batch of 1000 pairs of 80-character words written
#: as ``\\uXXXX`` escapes is about 1 MB (2 MB for characters outside the Basic Multilingual
#: Plane, escaped as surrogate pairs); 4 MiB leaves room and stops memory abuse.
MAX_BODY_BYTES = 4 * 1024 * 1024

# --------------------------------------------------------------------------- request models


def _check_word(value: str) -> str:
    """Reject text that cannot be a spoken word: lone surrogates and control characters.

    Lone surrogates (U+D800..U+DFFF, Unicode category Cs) are not characters and cannot be
    encoded as UTF-8; control characters (category Cc: NUL, newline, tab, DEL, ...) cannot
    be part of a guess said at the table. Empty or blank words are allowed: the judge
    answers them with a rejected verdict (relation ``empty``).

    Raises:
        ValueError: naming the first offending code point and its position.
    """
    for position, char in enumerate(value):
        category = unicodedata.category(char)
        if category == "Cs":
            raise ValueError(
                f"contains a lone surrogate U+{ord(char):04X} at position {position}; "
                "send valid Unicode text (UTF-8)"
            )
        if category == "Cc":
            raise ValueError(
                f"contains the control character U+{ord(char):04X} at position {position}; "
                "a word is one line of plain text without tabs or newlines"
            )
    return value


def _parse_strictness(value: Any) -> Any:
    """Accept a strictness name in any case and with surrounding spaces ("Lenient ")."""
    if isinstance(value, str):
        return value.strip().lower()
    return value


Word = Annotated[
    str,
    Field(max_length=MAX_WORD_CHARS),
    AfterValidator(_check_word),
]
StrictnessField = Annotated[
    Strictness,
    BeforeValidator(_parse_strictness),
    Field(
        description=(
            "Table rules (rulebook, 'Imperfect Guesses'): `strict` = the same word in any "
            "form; `standard` = also synonyms and derived words naming the same thing; "
            "`lenient` = also one-step kinds, degree words, near-synonyms and typos."
        ),
    ),
]


class RulingIn(BaseModel):
    """One house ruling sent with a request: the table's own decision on a pair, applied
    before any other evidence (rulebook "Imperfect Guesses": each group of players decides
    for itself). Same meaning as a line of a house-rules file (docs/judge.md)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"secret": "sofa", "guess": "couch", "accepted": True, "level": "*"}]
        },
    )

    secret: Word = Field(description="The secret word of the ruling.", examples=["sofa"])
    guess: Word = Field(description="The guess (or candidate) it rules on.", examples=["couch"])
    accepted: bool = Field(description="Whether this table counts the guess as a match.")
    level: Literal["strict", "standard", "lenient", "*"] = Field(
        default="*",
        description="The level the ruling holds at; `*` (the default) for every level.",
    )

    @model_validator(mode="after")
    def _words_present(self) -> RulingIn:
        from kiekai.judge.house_rules import HouseRulesError, HouseRuling

        try:
            HouseRuling(self.secret, self.guess, self.accepted, self.level)
        except HouseRulesError as exc:
            raise ValueError(str(exc)) from None
        return self


HouseRulingsField = Annotated[
    list[RulingIn],
    Field(
        max_length=MAX_HOUSE_RULINGS,
        description=(
            "Optional house rulings for this request only (at most "
            f"{MAX_HOUSE_RULINGS}), for front ends that keep a table's rulings themselves. "
            "A ruling holds in both directions and comes before the server's own house "
            "rules and every other evidence; a verdict it decides has relation `house-rule`."
        ),
    ),
]


def to_house_rules(rulings: Sequence[RulingIn]) -> HouseRules | None:
    """The request's rulings as a :class:`kiekai.judge.house_rules.HouseRules` (None when
    there are none)."""
    if not rulings:
        return None
    from kiekai.judge.house_rules import HouseRules, HouseRuling

    return HouseRules(
        (HouseRuling(r.secret, r.guess, r.accepted, r.level) for r in rulings),
        label="house rule sent with this request",
    )


#: Most rulings one ``GET /v1/tables/{name}/rulings`` answers with (a page).
MAX_PAGE_RULINGS = 500

TableName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=64,
        pattern=TABLE_NAME_PATTERN,
        description=(
            "A table's name: 1 to 64 lowercase letters, digits, `-` or `_`, starting with a "
            "letter or digit."
        ),
        examples=["friday-games"],
    ),
]
TableField = Annotated[
    TableName | None,
    Field(
        description=(
            "The table whose rulings (made with `POST /v1/tables/{name}/rulings`) this "
            f"verdict applies, before the judge's evidence; absent: the `{DEFAULT_TABLE}` "
            "table. Rulings sent in `house_rules` come first."
        ),
    ),
]


class JudgeRequest(BaseModel):
    """Body of ``POST /v1/judge``: one secret word and one guess."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"secret": "people", "guess": "humans", "strictness": "standard"},
                {"secret": "black", "guess": "white"},
            ]
        },
    )

    secret: Word = Field(
        description=f"The secret word (at most {MAX_WORD_CHARS} characters).",
        examples=["people"],
    )
    guess: Word = Field(
        description=f"The guessed word (at most {MAX_WORD_CHARS} characters).",
        examples=["humans"],
    )
    strictness: StrictnessField = Strictness.STANDARD
    house_rules: HouseRulingsField = []
    table: TableField = None


class Pair(BaseModel):
    """One (secret, guess) pair inside a batch."""

    model_config = ConfigDict(extra="forbid")

    secret: Word = Field(description="The secret word.", examples=["mice"])
    guess: Word = Field(description="The guessed word.", examples=["mouse"])


class BatchRequest(BaseModel):
    """Body of ``POST /v1/judge/batch``: up to :data:`MAX_BATCH_PAIRS` pairs, one level."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "pairs": [
                        {"secret": "mice", "guess": "mouse"},
                        {"secret": "dog", "guess": "cat"},
                    ],
                    "strictness": "lenient",
                }
            ]
        },
    )

    pairs: list[Pair] = Field(
        max_length=MAX_BATCH_PAIRS,
        description=f"The pairs to judge, answered in the same order (at most {MAX_BATCH_PAIRS}).",
    )
    strictness: StrictnessField = Strictness.STANDARD
    house_rules: HouseRulingsField = []
    table: TableField = None


class RepeatRequest(BaseModel):
    """Body of ``POST /v1/repeat``: a candidate word and the words used so far this round."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"candidate": "stones", "used": ["rocks", "grass"], "strictness": "standard"}
            ]
        },
    )

    candidate: Word = Field(description="The word a player wants to say.", examples=["stones"])
    used: list[Word] = Field(
        max_length=MAX_USED_WORDS,
        description=(
            f"Words already used this round (rulebook, 'Ne Bis in Idem'; at most {MAX_USED_WORDS})."
        ),
        examples=[["rocks", "grass"]],
    )
    strictness: StrictnessField = Strictness.STANDARD
    house_rules: HouseRulingsField = []
    table: TableField = None


class TableCreate(BaseModel):
    """Body of ``POST /v1/tables``: the new table's name."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"name": "cafe"}]})

    name: TableName


class TableRulingIn(BaseModel):
    """Body of ``POST /v1/tables/{name}/rulings``: one ruling of the table (a later one on
    the same pair and level replaces it)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "secret": "sofa",
                    "guess": "couch",
                    "accepted": False,
                    "level": "standard",
                    "ruled_by": "Ann",
                }
            ]
        },
    )

    secret: Word = Field(description="The secret word of the ruling.", examples=["sofa"])
    guess: Word = Field(description="The guess (or candidate) it rules on.", examples=["couch"])
    accepted: bool = Field(description="Whether this table counts the guess as a match.")
    level: Literal["strict", "standard", "lenient", "*"] = Field(
        default="*",
        description="The level the ruling holds at; `*` (the default) for every level.",
    )
    ruled_by: (
        Annotated[str, Field(max_length=MAX_RULED_BY_CHARS), AfterValidator(_check_word)] | None
    ) = Field(
        default=None,
        description=f"Who made the ruling (a player's name; at most {MAX_RULED_BY_CHARS} characters).",
        examples=["Ann"],
    )

    @model_validator(mode="after")
    def _words_present(self) -> TableRulingIn:
        from kiekai.judge.house_rules import HouseRulesError, HouseRuling

        try:
            HouseRuling(self.secret, self.guess, self.accepted, self.level)
        except HouseRulesError as exc:
            raise ValueError(str(exc)) from None
        return self


# -------------------------------------------------------------------------- response models


class TableCreated(BaseModel):
    """Answer of ``POST /v1/tables``: the table and its key, shown this once."""

    name: str = Field(description="The table's name.")
    key: str = Field(
        description="The table's key, needed to write its rulings "
        "(`Authorization: Bearer <key>` or `X-Table-Key: <key>`). Shown only now: the "
        "server keeps a salted scrypt hash of it."
    )


class TableRulingOut(BaseModel):
    """One ruling of a table, as stored."""

    secret: str = Field(description="The secret word, as written.")
    guess: str = Field(description="The guess, as written.")
    accepted: bool = Field(description="Whether this table counts the guess as a match.")
    level: str = Field(description="`strict`, `standard`, `lenient` or `*` (every level).")
    ruled_by: str | None = Field(description="Who made the ruling, when recorded.")
    ruled_at: datetime = Field(description="When it was made (UTC).")


class RulingsPage(BaseModel):
    """Answer of ``GET /v1/tables/{name}/rulings``: one page of a table's rulings, oldest
    first."""

    table: str = Field(description="The table's name.")
    total: int = Field(description="How many rulings the table holds.")
    offset: int = Field(description="Index of the first ruling on this page.")
    rulings: list[TableRulingOut] = Field(description="The rulings on this page.")
    next_offset: int | None = Field(
        description="The `offset` of the next page, or null on the last page."
    )


class RemovedOut(BaseModel):
    """Answer of ``DELETE /v1/tables/{name}/rulings``."""

    table: str = Field(description="The table's name.")
    removed: int = Field(description="How many rulings were removed (one per level).")


class VerdictDetails(BaseModel):
    """The evidence behind a verdict in the judge's own terms (``Verdict.details``,
    :func:`kiekai.judge.reasons.evidence_details`): what decided, the model's numbers and
    the data it read. For developers and logs; players read ``reason``. Every field but
    ``source`` is null when it does not apply; fields may be added in later versions."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "source": "fitted model",
                    "level": "standard",
                    "evidence": "'mankind' and 'humans' are one WordNet step apart, the "
                    "guess naming a narrower kind",
                    "encoder": "all-MiniLM-L6-v2",
                    "cosine": 0.7145,
                    "model_score": 0.6291,
                    "model_threshold": 0.5,
                    "decided_by_rule": False,
                }
            ]
        },
    )

    source: str = Field(
        default="judge",
        description=(
            "What decided: `input check`, `house rule`, `form`, `everyday lexicon`, "
            "`WordNet`, `affix rule`, `spelling` or `fitted model`."
        ),
        examples=["WordNet"],
    )
    level: Strictness | None = Field(default=None, description="The level decided at.")
    evidence: str | None = Field(
        default=None,
        description="The evidence in the judge's terms: WordNet synsets and how common "
        "their senses are, the everyday lexicon's entries and version.",
    )
    decided_by_rule: bool | None = Field(
        default=None, description="Whether a rule decided (false: the fitted model did)."
    )
    lexicon_version: str | None = Field(
        default=None, description="The everyday lexicon's version, when it decided."
    )
    model_score: float | None = Field(
        default=None,
        description="The fitted model's probability of a match (the verdict's `score`).",
    )
    model_threshold: float | None = Field(
        default=None, description="The probability this level accepts from."
    )
    level_rule: str | None = Field(
        default=None, description="The level's rule, when it decided instead of the model."
    )
    encoder: str | None = Field(
        default=None, description="The sentence encoder whose cosine is given."
    )
    cosine: float | None = Field(
        default=None, ge=-1.0, le=1.0, description="The encoder's cosine of the two words."
    )
    features: dict[str, float] | None = Field(
        default=None, description="The fitted model's inputs by name."
    )
    house_rule: str | None = Field(
        default=None, description="Where the house ruling that decided comes from."
    )
    ruling_level: str | None = Field(
        default=None, description="The level the house ruling holds at (`*`: every level)."
    )
    ruled_by: str | None = Field(
        default=None, description="Who made the house ruling that decided, when recorded."
    )
    used_count: int | None = Field(
        default=None, ge=0, description="/v1/repeat: how many used words were compared."
    )
    closest: str | None = Field(
        default=None, description="/v1/repeat: the used word closest to the candidate."
    )


class VerdictOut(BaseModel):
    """The judge's decision with its evidence (mirrors :class:`kiekai.judge.verdict.Verdict`)."""

    accepted: bool = Field(
        description="Whether the table accepts the guess (for /v1/repeat: whether it repeats)."
    )
    score: float = Field(
        ge=0.0,
        le=1.0,
        description="The judge's confidence, 0..1, that the two words name the same thing.",
    )
    relation: str = Field(
        description=(
            "The strongest relation found, e.g. same-lemma, spelling, synonym, hypernym, "
            "hyponym, antonym, cohyponym, typo, unrelated, not-one-word, empty."
        ),
        examples=["synonym"],
    )
    reason: str = Field(
        description=(
            "One sentence a player reads, in plain words: synonyms, forms of one word, a "
            "kind of, opposites, different things, a house ruling. It names no model and "
            "shows no number of the judge's own; those are in `details`."
        )
    )
    details: VerdictDetails = Field(
        default_factory=VerdictDetails,
        description="The evidence behind the verdict in the judge's terms (model names, "
        "scores, thresholds, cosines), for developers and logs.",
    )


class JudgeResponse(VerdictOut):
    """Answer of ``/v1/judge`` and one item of ``/v1/judge/batch``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "secret": "mice",
                    "guess": "mouse",
                    "strictness": "standard",
                    "accepted": True,
                    "score": 1.0,
                    "relation": "same-lemma",
                    "reason": "Accepted at standard level: 'mouse' and 'mice' are forms of "
                    "the same word 'mouse'.",
                    "details": {
                        "source": "form",
                        "level": "standard",
                        "evidence": "'mouse' and 'mice' are forms of the same word 'mouse'",
                        "decided_by_rule": True,
                    },
                }
            ]
        }
    )

    secret: str = Field(description="The secret word as sent.")
    guess: str = Field(description="The guess as sent.")
    strictness: Strictness = Field(description="The level the verdict was given at.")


class RepeatResponse(VerdictOut):
    """Answer of ``/v1/repeat``: ``accepted`` is true when the candidate repeats a used word."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "candidate": "stones",
                    "strictness": "standard",
                    "accepted": True,
                    "score": 1.0,
                    "relation": "synonym",
                    "reason": "Repeat at standard level: 'stones' repeats the used category "
                    "'rocks': 'stones' and 'rocks' are synonyms: they name the same thing.",
                    "details": {
                        "source": "everyday lexicon",
                        "level": "standard",
                        "evidence": "everyday lexicon v3: 'rock' and 'stone' name the same thing",
                        "lexicon_version": "3",
                        "decided_by_rule": True,
                        "used_count": 2,
                        "closest": "rocks",
                    },
                    "matched": "rocks",
                }
            ]
        }
    )

    candidate: str = Field(description="The candidate word as sent.")
    strictness: Strictness = Field(description="The level the verdict was given at.")
    matched: str | None = Field(
        description="The used word the candidate repeats, or null when it repeats none."
    )


class HealthResponse(BaseModel):
    """Answer of ``GET /healthz``."""

    status: str = Field(description="`ok` when every strictness level has a judge ready.")
    api_version: str = Field(description="Version of this HTTP API (the /v1 prefix).")
    versions: dict[str, str] = Field(
        description="Versions of kiekai, Python and the libraries serving the API."
    )
    strictness_levels: list[Strictness] = Field(description="Levels with a judge loaded and ready.")
    models: dict[str, bool] = Field(
        description="Models the judge uses and whether each is loaded in this process."
    )
    judge: dict[str, Any] = Field(
        description="What the judge reports about itself (e.g. its calibration version)."
    )
    worker_pid: int = Field(
        description="Process id of the worker that answered (`kiekai serve --workers N` runs "
        "N processes on one port; a kept-alive connection stays with one of them)."
    )
    memory_mb: float | None = Field(
        None,
        description="Resident memory of that worker in MB (Linux `VmRSS`; null elsewhere).",
    )


class ErrorItem(BaseModel):
    """One problem with a request."""

    field: str = Field(description="Where the problem is, e.g. `body.pairs[3].guess`.")
    problem: str = Field(description="What is wrong and how to fix it.")


class ErrorResponse(BaseModel):
    """Body of every 4xx and 503 answer."""

    error: str = Field(
        description="A short machine-readable code: invalid-request, not-found, "
        "judge-rejected-input, judge-unavailable, ..."
    )
    message: str = Field(description="A human-readable summary naming the fix.")
    errors: list[ErrorItem] = Field(default_factory=list, description="Each problem found.")
