"""Measure the bots against people: Kiek turns played by (stand-in) people, both directions.

Usage::

    python scripts/eval_people.py [--rounds data/people-rounds/rounds.jsonl \\
        ../shared/eval/people-rounds-dev/rounds.jsonl] [--deck ../shared/decks/imagenet-dev] \\
        [--perceptions labels,classifier] [--levels easy,normal,hard] [--recorded DIR] [--out DIR]

**The turns.** A people round is a rounds line (:func:`kiekai.eval.common.iter_round_lines`)
whose ``target`` is the word an active person wrote for the split, plus
``other_players_guessed``: what other persons wrote when shown only the split (two a turn in
``data/people-rounds/rounds.jsonl`` and ``../shared/eval/people-rounds-dev/rounds.jsonl``; see
their READMEs). Each turn belongs to a *deal* (the seven photos it was played from); lines of
``data/people-rounds`` name it in ``deal``, lines of the shared dev file do not, and their deal is
found in the ``deals.jsonl`` beside the file: the one deal whose three table photos are among
the turn's five and whose four hand photos hold the other two.

**The parts** (``data/people-rounds/README.md``, "The fitting and reporting parts", fixed before
any fitting): a deal is in the *reporting* part when the first 8 hex digits of the SHA-256 of
its id, read as an integer, are 0, 1 or 2 modulo 5, else in the *fitting* part
(:func:`part_of`). Every figure is given per part; documents quote the reporting part only.

**person -> bot** (:func:`evaluate`, :func:`run`): on each round the bots see only the five
photos (through the perception: ``labels`` = the deck's ``labels.csv``, ``classifier`` = pixels
only, loaded as :func:`kiekai.eval.guesser.run` loads them) and the words already used in
that game (``used_words``: turns of a whole game, ``data/people-rounds/whole-games``; none for
single deals), and write one guess: the plain ranking ``kiekai.kiek.bots.rank_guesses`` (its top-1, no persona, no noise)
and the game's ``KiekBot`` at each level (a fresh bot per part, seeded, rounds in file order).
A guess *matches* when the judge (``kiekai.judge.Judge(strictness).match(target,
guess).accepted``, standard by default) accepts it as the person's word. Beside each bot rate:

- the **persons' rate**: every one of ``other_players_guessed`` judged the same way against
  the target, the share accepted over all those guesses (two a round here);
- the **ratio** bot rate / persons' rate (1.0 = the bot guesses people's words as well as
  people do).

**bot -> person** (:func:`score_bot_to_person`, :func:`score_recorded`): blind mixed pools of
person and bot turns (``../shared/tools/people_rounds.py mix POOL KEY DIR...``) guessed by
persons. The KEY (JSON lines: ``split`` = the id shown in the pool, ``orig``, ``word``, ``by`` =
``person`` or ``bot``, optional ``log``) says whose word each split is; GUESS files (tab
separated, header ``split``, ``word``) hold what the persons wrote. The rate per source is the
share of guesses the judge accepts as the key's word, and the ratio is bot / person: how well
people guess the bots' words relative to other people's words.

**Intervals** (95 %): rates get the Wilson score interval
(:func:`kiekai.eval.common.wilson_interval`), over rounds for a bot and over guesses for
persons (the two guesses of a round are not independent, so the persons' interval is somewhat
too narrow). Ratios get a percentile bootstrap (:func:`bootstrap_ratio`): :data:`BOOTSTRAP`
resamples (``--bootstrap``) of the rounds with replacement (bot -> person: of the splits, within
each source), drawn by ``random.Random(seed)`` with a fixed seed (:data:`BOOTSTRAP_SEED`,
``--bootstrap-seed``), so the same files give the same interval; resamples whose denominator
is 0 are dropped.

Exit status: 0 on success, 2 on a user error (a missing or malformed file, a round whose deal
cannot be found, a photo the deck lacks).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import random
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kiekai.eval import common as ec
from kiekai.eval import guesser as eval_guesser

Part = Literal["report", "fit"]
#: The parts, reporting first (the order of every table).
PARTS: tuple[Part, ...] = ("report", "fit")
#: Remainders (SHA-256 prefix mod 5) that put a deal in the reporting part.
REPORT_REMAINDERS = frozenset({0, 1, 2})

#: The people rounds files read by default: the repository's and the shared dev set.
DEFAULT_ROUNDS = (
    ec.REPO / "data" / "people-rounds" / "rounds.jsonl",
    ec.REPO / "data" / "people-rounds" / "whole-games" / "rounds.jsonl",
    ec.SHARED / "eval" / "people-rounds-dev" / "rounds.jsonl",
)
#: The deck the people rounds were played on (both READMEs); not ``KIEKAI_EVAL_DECK``, which
#: may name a held-out deck these rounds do not belong to.
DEFAULT_DECK = ec.SHARED / "decks" / "imagenet-dev"
#: Where recorded bot -> person pools are looked for by default (:func:`find_pools`).
DEFAULT_RECORDED = ec.REPO / "data" / "people-rounds" / "bot-person"
#: Name of a pool's key file inside a recorded folder.
KEY_NAME = "key.jsonl"
#: A recorded folder's blind ratings of its turns (:func:`score_ratings`).
RATINGS_NAME = "ratings.tsv"
#: Columns of a ratings file.
RATING_COLUMNS = ("split", "by", "perception", "word", "true_three", "false_two", "natural")
#: Guessers scored in the person -> bot direction, besides the levels: the plain ranking.
PLAIN = "guesser"
PERCEPTIONS = (ec.GAME_LABELS, "classifier")
BOOTSTRAP = 2000
BOOTSTRAP_SEED = 0
SOURCES = ("person", "bot")


def part_of(deal: str) -> Part:
    """The part a deal belongs to (``data/people-rounds/README.md``, "The fitting and reporting
    parts"): ``"report"`` when ``int(sha256(deal)[:8], 16) % 5`` is 0, 1 or 2, else ``"fit"``.

    Args:
        deal: the deal's id as written in its ``deals.jsonl`` (``"k00"``, ``"d17"``); UTF-8.
    """
    digest = hashlib.sha256(deal.encode("utf-8")).hexdigest()
    return "report" if int(digest[:8], 16) % 5 in REPORT_REMAINDERS else "fit"


def normalise_word(word: str) -> str:
    """A written word as compared for *exact* matches: lower case, single spaces."""
    return " ".join(str(word).lower().split())


# --------------------------------------------------------------------------- people rounds


@dataclass(frozen=True)
class PeopleRound(ec.Round):
    """A round played by people: a :class:`kiekai.eval.common.Round` whose ``target`` is the
    active person's word, plus what the other persons guessed.

    Attributes:
        deal: the id of the deal the turn was played from (``"k00"``, ``"d17"``).
        part: ``"report"`` or ``"fit"`` (:func:`part_of` of ``deal``).
        others: ``other_players_guessed``: the other persons' guesses, as written.
        active: who played the turn (``"A1"``), ``""`` when the file does not say.
        guessers: who wrote each of ``others`` (``"G1"``), ``()`` when the file does not say.
        source: ``FILE:LINE`` the round was read from.
        used: ``used_words``: the words used in the game before this turn (rulebook, "Ne Bis
            in Idem": every word an active player or a guesser wrote), ``()`` for a single deal.
    """

    deal: str = ""
    part: Part = "report"
    others: tuple[str, ...] = ()
    active: str = ""
    guessers: tuple[str, ...] = ()
    source: str = ""
    used: tuple[str, ...] = ()


def _read_deals(path: Path) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """``deal -> (table photos, hand photos)`` from a ``deals.jsonl`` (``deal``, ``table``,
    ``hand``), paths normalised like card ids.

    Raises:
        EvalError: a line is not a JSON object with those fields (file and line named).
    """
    deals: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for number, obj in ec.iter_json_lines(path):
        try:
            deal, table, hand = str(obj["deal"]), obj["table"], obj["hand"]
            if not isinstance(table, list) or not isinstance(hand, list):
                raise TypeError
        except (KeyError, TypeError):
            raise ec.EvalError(
                f"{path}:{number}: expected a JSON object with deal, table and hand"
            ) from None
        deals[deal] = (
            frozenset(eval_guesser.normalise_id(str(c)) for c in table),
            frozenset(eval_guesser.normalise_id(str(c)) for c in hand),
        )
    return deals


def _deal_fits(five: frozenset[str], table: frozenset[str], hand: frozenset[str]) -> bool:
    """Whether a turn's five photos can come from a deal: the whole table plus two of the hand."""
    return table <= five and len(five - table) == 2 and (five - table) <= hand


def _words(value: Any) -> tuple[str, ...] | None:
    """A list of non-blank strings as a tuple (stripped), else ``None``."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(w, str) and w.strip() for w in value):
        return None
    return tuple(w.strip() for w in value)


def load_people_rounds(
    paths: Path | str | Iterable[Path | str], limit: int | None = None
) -> list[PeopleRound]:
    """Read and join people rounds files (format: module docstring), in the order given.

    A round whose ``id`` was already read is kept once: a line identical to the earlier one
    (same deal, target, photos and guesses) is skipped, a different one is an error.

    Args:
        paths: one or more ``rounds.jsonl`` files.
        limit: keep only the first ``limit`` rounds of the joined list (``None`` = all).

    Returns:
        The rounds, each knowing its deal and part.

    Raises:
        EvalError: a file is missing or holds no round; a line is malformed
            (:func:`kiekai.eval.common.iter_round_lines`), lacks ``other_players_guessed`` (a
            non-empty list of words) or has ``guessers`` of another length; its deal is
            neither given nor found in a ``deals.jsonl`` beside the file, or disagrees with
            that file's photos; two lines share an id but differ. The message names the file
            and line.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    rounds: list[PeopleRound] = []
    seen: dict[str, PeopleRound] = {}
    for path in paths:
        path = Path(path).expanduser()
        deals_file = path.parent / "deals.jsonl"
        deals = _read_deals(deals_file) if deals_file.is_file() else {}
        count = 0
        for number, obj, base in ec.iter_round_lines(path, flag="--rounds"):
            count += 1
            rnd = _people_round(obj, base, f"{path}:{number}", deals, deals_file)
            earlier = seen.get(rnd.id)
            if earlier is not None:
                if _same_turn(earlier, rnd):
                    continue
                raise ec.EvalError(
                    f"{rnd.source}: round id {rnd.id} was read before ({earlier.source}) "
                    "with other contents"
                )
            seen[rnd.id] = rnd
            rounds.append(rnd)
            if limit is not None and len(rounds) >= limit:
                return rounds
        if not count:
            raise ec.EvalError(f"rounds file {path} holds no rounds")
    return rounds


def _people_round(
    obj: Mapping[str, Any],
    base: ec.Round,
    where: str,
    deals: Mapping[str, tuple[frozenset[str], frozenset[str]]],
    deals_file: Path,
) -> PeopleRound:
    """One line of a people rounds file (``obj``, read by
    :func:`kiekai.eval.common.iter_round_lines` into ``base``) as a :class:`PeopleRound`;
    ``where`` (``file:line``) becomes its source and starts every error message.

    Raises:
        EvalError: see :func:`load_people_rounds`.
    """
    others = _words(obj.get("other_players_guessed"))
    if others is None:
        raise ec.EvalError(f"{where}: other_players_guessed must be a non-empty list of words")
    guessers: tuple[str, ...] = ()
    if "guessers" in obj:
        named = _words(obj["guessers"])
        if named is None or len(named) != len(others):
            raise ec.EvalError(f"{where}: guessers must name one guesser per other_players_guessed")
        guessers = named
    used: tuple[str, ...] = ()
    if "used_words" in obj:
        raw = obj["used_words"]
        if not isinstance(raw, list) or not all(isinstance(w, str) for w in raw):
            raise ec.EvalError(f"{where}: used_words must be a list of words")
        used = tuple(w for w in raw if w.strip())
    five = frozenset(eval_guesser.normalise_id(c) for c in (*base.three, *base.two))
    if len(five) != 5:
        raise ec.EvalError(f"{where}: the five photos of a round must differ")
    deal = _round_deal(str(obj.get("deal", "")).strip(), five, deals, deals_file, where)
    return PeopleRound(
        id=base.id,
        target=base.target,
        valid_words=base.valid_words,
        three=base.three,
        two=base.two,
        labels_three=base.labels_three,
        labels_two=base.labels_two,
        deal=deal,
        part=part_of(deal),
        others=others,
        active=str(obj.get("active", "")).strip(),
        guessers=guessers,
        source=where,
        used=used,
    )


def _round_deal(
    deal: str,
    five: frozenset[str],
    deals: Mapping[str, tuple[frozenset[str], frozenset[str]]],
    deals_file: Path,
    where: str,
) -> str:
    """The deal of a round with photos ``five``: the ``deal`` it names (which must fit when
    ``deals`` knows it), else the one deal of ``deals`` whose table and two of whose hand
    make ``five``.

    Raises:
        EvalError: the named deal does not fit, or not exactly one deal fits.
    """
    if deal:
        if deal in deals and not _deal_fits(five, *deals[deal]):
            raise ec.EvalError(
                f"{where}: the photos are not deal {deal}'s of {deals_file} "
                "(its table and two of its hand)"
            )
        return deal
    found = [d for d, (table, hand) in deals.items() if _deal_fits(five, table, hand)]
    if len(found) != 1:
        why = "no deal" if not found else f"{len(found)} deals ({', '.join(found)})"
        raise ec.EvalError(
            f"{where}: the round names no deal and {why} of "
            f"{deals_file if deals else 'a deals.jsonl beside the file'} "
            "fits its photos; add a deal field"
        )
    return found[0]


def _same_turn(a: PeopleRound, b: PeopleRound) -> bool:
    """Whether two rounds record the same turn (all but where they were read)."""
    key = ("deal", "target", "three", "two", "others", "guessers", "active", "used")
    return all(getattr(a, k) == getattr(b, k) for k in key)


# --------------------------------------------------------------------------- statistics


def rate(count: int, total: int) -> dict[str, Any]:
    """``{"count", "total", "share", "ci95"}``: a rate in [0, 1] and its 95 % Wilson interval."""
    low, high = ec.wilson_interval(count, total)
    return {"count": count, "total": total, "share": ec.share(count, total), "ci95": [low, high]}


def bootstrap_ratio(
    numerator: Sequence[tuple[int, int]],
    denominator: Sequence[tuple[int, int]],
    paired: bool,
    resamples: int = BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> list[float] | None:
    """95 % percentile bootstrap interval of ``rate(numerator) / rate(denominator)``.

    Each element is one unit (a round, a split) as ``(accepted, guesses)``; a rate is
    ``sum(accepted) / sum(guesses)`` over its units.

    Args:
        numerator, denominator: the units of the two rates.
        paired: the two sequences are the same units (a bot and the persons on the same
            rounds; equal lengths): one resample of unit indices serves both. Otherwise each
            is resampled on its own (bot splits and person splits of a pool).
        resamples: number of bootstrap resamples.
        seed: seed of ``random.Random``; the interval is a function of the inputs and it.

    Returns:
        ``[low, high]`` (the 2.5th and 97.5th percentiles), or ``None`` when either side has
        no unit or no resample has a non-zero denominator.
    """
    if not numerator or not denominator or resamples <= 0:
        return None
    if paired and len(numerator) != len(denominator):
        raise ValueError("paired units need sequences of the same length")
    rng = random.Random(seed)
    ratios: list[float] = []

    def draw(units: Sequence[tuple[int, int]], picks: Sequence[int]) -> float | None:
        hits = sum(units[i][0] for i in picks)
        total = sum(units[i][1] for i in picks)
        return hits / total if total else None

    for _ in range(resamples):
        picks = [rng.randrange(len(numerator)) for _ in numerator]
        other = picks if paired else [rng.randrange(len(denominator)) for _ in denominator]
        top, bottom = draw(numerator, picks), draw(denominator, other)
        if top is not None and bottom:
            ratios.append(top / bottom)
    if not ratios:
        return None
    ratios.sort()

    def quantile(q: float) -> float:  # linear interpolation between order statistics
        pos = q * (len(ratios) - 1)
        low = int(pos)
        high = min(low + 1, len(ratios) - 1)
        return ratios[low] + (ratios[high] - ratios[low]) * (pos - low)

    return [quantile(0.025), quantile(0.975)]


def _ratio(top: dict[str, Any], bottom: dict[str, Any]) -> float | None:
    return top["share"] / bottom["share"] if bottom["share"] else None


# --------------------------------------------------------------------------- person -> bot


def persons_rate(
    rounds: Sequence[PeopleRound], accepts: Callable[[str, str], bool]
) -> dict[str, Any]:
    """How often the other persons' guesses match the active person's word.

    Every guess of ``other_players_guessed`` of every round is judged against the round's
    target; the rate is the share accepted over all those guesses.

    Args:
        rounds: the rounds.
        accepts: the judge, ``accepts(secret, guess) -> bool``.

    Returns:
        :func:`rate` over guesses (``total`` = number of guesses), plus ``exact``: the same
        for guesses that are the target word itself (:func:`normalise_word`).
    """
    hits = exact = total = 0
    for rnd in rounds:
        for guess in rnd.others:
            total += 1
            hits += bool(accepts(rnd.target, guess))
            exact += normalise_word(guess) == normalise_word(rnd.target)
    return {**rate(hits, total), "exact": rate(exact, total)}


#: Makes the guessers afresh: name -> guesser (:data:`kiekai.eval.guesser.Guesser`).
GuesserFactory = Callable[[], dict[str, eval_guesser.Guesser]]


def evaluate(
    scorable: Sequence[tuple[PeopleRound, list[Any], list[Any]]],
    make_guessers: GuesserFactory,
    accepts: Callable[[str, str], bool],
    resamples: int = BOOTSTRAP,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any]:
    """Score guessers against the persons' words, per part.

    Args:
        scorable: rounds with their cards (:func:`kiekai.eval.guesser.resolve_round_cards`).
        make_guessers: called once per part, so each part starts from fresh, seeded bots and
            its figures do not depend on the other part's rounds.
        accepts: the judge, ``accepts(secret, guess) -> bool``.
        resamples, bootstrap_seed: the ratio's bootstrap (:func:`bootstrap_ratio`, paired
            over rounds).

    Returns:
        A JSON-serialisable dict: ``parts`` (for each part with rounds: ``rounds``, ``persons``
        (:func:`persons_rate`) and ``guessers``: per guesser :func:`rate` over rounds plus
        ``ratio`` (bot rate / persons' rate, ``None`` when the persons' rate is 0) and
        ``ratio_ci95``) and ``rounds`` (one record per round: id, deal, part, target, the
        persons' guesses and verdicts, each guesser's top-1 and verdict).
    """
    records: list[dict[str, Any]] = []
    parts: dict[str, Any] = {}
    for part in PARTS:
        rows = [(rnd, three, two) for rnd, three, two in scorable if rnd.part == part]
        if not rows:
            continue
        guessers = make_guessers()
        part_records = []
        for rnd, three, two in rows:
            record: dict[str, Any] = {
                "id": rnd.id,
                "deal": rnd.deal,
                "part": part,
                "target": rnd.target,
                "persons": list(rnd.others),
                "used": list(rnd.used),
                "persons_accepted": [bool(accepts(rnd.target, g)) for g in rnd.others],
                "guesses": {},
                "accepted": {},
            }
            for name, guesser in guessers.items():
                words = [w for w in guesser(three, two, rnd.used) if w]
                word = words[0] if words else ""
                record["guesses"][name] = word
                record["accepted"][name] = bool(word) and bool(accepts(rnd.target, word))
            part_records.append(record)
        persons = persons_rate([rnd for rnd, _, _ in rows], accepts)
        person_units = [(sum(r["persons_accepted"]), len(r["persons"])) for r in part_records]
        summary: dict[str, Any] = {}
        for name in guessers:
            units = [(int(r["accepted"][name]), 1) for r in part_records]
            bot = rate(sum(u[0] for u in units), len(units))
            summary[name] = {
                **bot,
                "ratio": _ratio(bot, persons),
                "ratio_ci95": bootstrap_ratio(
                    units, person_units, paired=True, resamples=resamples, seed=bootstrap_seed
                ),
            }
        parts[part] = {"rounds": len(rows), "persons": persons, "guessers": summary}
        records += part_records
    return {"parts": parts, "rounds": records}


def run(
    rounds_files: Sequence[Path | str] = DEFAULT_ROUNDS,
    deck: Path | str = DEFAULT_DECK,
    perceptions: Sequence[str] = PERCEPTIONS,
    levels: Sequence[str] = eval_guesser.LEVELS,
    strictness: str = "standard",
    seed: int = 0,
    limit: int | None = None,
    clip_model: str | None = None,
    clip_checkpoint: str | None = None,
    loaded: dict[str, tuple[list[Any], Any, list[Any]]] | None = None,
    resamples: int = BOOTSTRAP,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any]:
    """person -> bot on people rounds files, for each perception.

    Args:
        rounds_files: the people rounds files (:func:`load_people_rounds`).
        deck: the deck the rounds use.
        perceptions: perception kinds (``kiekai.perception.KINDS``), each loaded as
            :func:`kiekai.eval.guesser.run` does (all the deck's cards).
        levels: ``KiekBot`` levels scored beside the plain ranking (:data:`PLAIN`).
        strictness: the judge's strictness.
        seed: seed of the level bots.
        limit: score only the first ``limit`` rounds.
        loaded: ``kind -> (all_cards, perception, usable_cards)`` already loaded (shared with
            ``make_evaluation.py``); kinds not in it are loaded here.
        resamples, bootstrap_seed: the ratio's bootstrap.

    Returns:
        ``{"config", "split": {part: rounds}, "perceptions": {kind: evaluate(...) + "skipped"
        + "name"}}``.

    Raises:
        EvalError: a rounds file or the deck is missing or malformed, a round names a photo
            the deck lacks, or a perception can score no round.
    """
    rounds = load_people_rounds(rounds_files, limit=limit)
    loaded = dict(loaded or {})
    judge = ec.make_judge(strictness)
    vocabulary = ec.load_vocabulary()

    def accepts(secret: str, guess: str) -> bool:
        return ec.judge_accepts(judge, secret, guess)

    cards: list[Any] | None = None
    by_kind: dict[str, Any] = {}
    for kind in perceptions:
        if kind in loaded:
            all_cards, perception, usable = loaded[kind]
        else:
            if cards is None:
                cards = ec.load_deck_cards(deck)
            all_cards = cards
            perception, usable = ec.load_perception_for(kind, cards, clip_model, clip_checkpoint)
        scorable, skipped = eval_guesser.resolve_round_cards(rounds, all_cards, usable)
        if not scorable:
            raise ec.EvalError(f"no people round can be scored with the {kind} perception")

        def make_guessers(perception: Any = perception) -> dict[str, eval_guesser.Guesser]:
            ranking, per_level = eval_guesser.project_guessers(
                perception, vocabulary, judge, seed, levels
            )
            return {PLAIN: ranking, **per_level}

        result = evaluate(scorable, make_guessers, accepts, resamples, bootstrap_seed)  # type: ignore[arg-type]
        result["skipped"] = skipped
        result["name"] = getattr(perception, "name", kind)
        by_kind[kind] = result
    split = {part: sum(1 for r in rounds if r.part == part) for part in PARTS}
    return {
        "config": {
            "rounds_files": [ec.display_path(p) for p in rounds_files],
            "deck": ec.display_path(deck),
            "strictness": strictness,
            "seed": seed,
            "levels": list(levels),
            "bootstrap": {"resamples": resamples, "seed": bootstrap_seed},
            "vocabulary_size": len(vocabulary),
        },
        "split": split,
        "perceptions": by_kind,
    }


# --------------------------------------------------------------------------- bot -> person


@dataclass
class SplitTally:
    """The recorded guesses of one split of a blind pool.

    Attributes:
        split: ``POOL:ID`` (the key's file and the id shown to the guessers).
        by: ``"person"`` or ``"bot"``: whose word it is.
        word: the word (the key's ``word``).
        accepted, exact, guesses: guesses the judge accepts, guesses that are the word
            itself, and all guesses recorded for the split.
        perception: for a bot's word, the perception its game played with as the key says
            (``labels``, ``pixels``; ``""`` when the key does not say).
    """

    split: str
    by: str
    word: str
    perception: str = ""
    accepted: int = 0
    exact: int = 0
    guesses: int = 0
    per_file: dict[str, list[int]] = field(default_factory=dict)


def read_key(path: Path | str) -> dict[str, dict[str, Any]]:
    """A pool's KEY (``people_rounds.py mix``): ``split id -> line`` (``split``, ``word``, ``by``
    required; ``by`` is ``person`` or ``bot``; ``orig``, ``log`` and others kept as read).

    Raises:
        EvalError: missing file, a malformed line, a repeated split id, or no line at all
            (file and line named).
    """
    p = ec.require_file(path, "key file", "--key")
    key: dict[str, dict[str, Any]] = {}
    for number, obj in ec.iter_json_lines(p):
        if not isinstance(obj, dict) or not all(
            isinstance(obj.get(k), str) and obj[k].strip() for k in ("split", "word", "by")
        ):
            raise ec.EvalError(f"{p}:{number}: expected a JSON object with split, word and by")
        if obj["by"] not in SOURCES:
            raise ec.EvalError(f"{p}:{number}: by must be person or bot, not {obj['by']!r}")
        if obj["split"] in key:
            raise ec.EvalError(f"{p}:{number}: split {obj['split']} is in the key twice")
        key[obj["split"]] = obj
    if not key:
        raise ec.EvalError(f"key file {p} holds no splits")
    return key


def tally_pool(
    key_path: Path | str,
    guess_paths: Sequence[Path | str],
    accepts: Callable[[str, str], bool],
) -> list[SplitTally]:
    """Judge a pool's recorded guesses against its KEY, one :class:`SplitTally` per split.

    A guess row is ``split`` (the pool id) and ``word``; a blank word counts as a guess the
    judge does not accept (the person wrote nothing).

    Raises:
        EvalError: a missing file, a GUESS file without ``split`` and ``word`` columns, or a
            row naming a split the key lacks (wrong key; file and line named).
    """
    key = read_key(key_path)
    tallies = {
        sid: SplitTally(
            split=f"{ec.display_path(key_path)}:{sid}",
            by=obj["by"],
            word=obj["word"],
            perception=str(obj.get("perception") or "") if obj["by"] == "bot" else "",
        )
        for sid, obj in key.items()
    }
    for guess_path in guess_paths:
        p = ec.require_file(guess_path, "guess file", "--guesses")
        name = ec.display_path(p) or str(p)
        with p.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t")
            columns = {c.strip() for c in reader.fieldnames or []}
            if not {"split", "word"} <= columns:
                raise ec.EvalError(f"{p}:1: expected a tab-separated header with split and word")
            for row in reader:
                row = {(k or "").strip(): (v or "") for k, v in row.items()}
                split = row["split"].strip()
                if not split and not row["word"].strip():
                    continue
                number = reader.line_num
                if split not in tallies:
                    raise ec.EvalError(
                        f"{p}:{number}: split {split!r} is not in the key {key_path}"
                    )
                t = tallies[split]
                word = row["word"].strip()
                hit = bool(word) and bool(accepts(t.word, word))
                same = bool(word) and normalise_word(word) == normalise_word(t.word)
                t.guesses += 1
                t.accepted += hit
                t.exact += same
                counts = t.per_file.setdefault(name, [0, 0])
                counts[0] += hit
                counts[1] += 1
    return list(tallies.values())


def summarise_tallies(
    tallies: Sequence[SplitTally],
    resamples: int = BOOTSTRAP,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any]:
    """Rates per source and the ratio bot / person from split tallies.

    Returns:
        ``sources``: for ``person`` and ``bot``, :func:`rate` over guesses, ``splits``
        (splits of that source, guessed or not) and ``exact``; ``ratio`` (bot rate / person
        rate, ``None`` when the person rate is 0 or a source has no guess) and ``ratio_ci95``
        (bootstrap over splits within each source; ``None`` when it cannot be drawn);
        ``per_file``: the same rates per GUESS file (``{file: {source: rate}}``);
        ``bot_perceptions``: for each perception the key names for bot words, the bots'
        :func:`rate`, ``splits``, ``ratio`` to the person rate and its ``ratio_ci95``.
    """
    sources: dict[str, Any] = {}
    units: dict[str, list[tuple[int, int]]] = {}
    for source in SOURCES:
        mine = [t for t in tallies if t.by == source]
        hits = sum(t.accepted for t in mine)
        total = sum(t.guesses for t in mine)
        sources[source] = {
            **rate(hits, total),
            "splits": len(mine),
            "exact": rate(sum(t.exact for t in mine), total),
        }
        units[source] = [(t.accepted, t.guesses) for t in mine if t.guesses]
    bot, person = sources["bot"], sources["person"]
    per_file: dict[str, dict[str, Any]] = {}
    for t in tallies:
        for name, (hit, total) in t.per_file.items():
            counts = per_file.setdefault(name, {}).setdefault(t.by, [0, 0])
            counts[0] += hit
            counts[1] += total
    bot_perceptions: dict[str, Any] = {}
    for name in sorted({t.perception for t in tallies if t.by == "bot" and t.perception}):
        mine = [t for t in tallies if t.by == "bot" and t.perception == name]
        r = rate(sum(t.accepted for t in mine), sum(t.guesses for t in mine))
        bot_perceptions[name] = {
            **r,
            "splits": len(mine),
            "ratio": _ratio(r, person) if r["total"] and person["total"] else None,
            "ratio_ci95": bootstrap_ratio(
                [(t.accepted, t.guesses) for t in mine if t.guesses],
                units["person"],
                paired=False,
                resamples=resamples,
                seed=bootstrap_seed,
            ),
        }
    return {
        "sources": sources,
        "bot_perceptions": bot_perceptions,
        "ratio": _ratio(bot, person) if bot["total"] and person["total"] else None,
        "ratio_ci95": bootstrap_ratio(
            units["bot"], units["person"], paired=False, resamples=resamples, seed=bootstrap_seed
        ),
        "per_file": {
            name: {src: rate(*c) for src, c in sorted(by.items())}
            for name, by in sorted(per_file.items())
        },
    }


def score_bot_to_person(
    key_path: Path | str,
    guess_paths: Sequence[Path | str],
    strictness: str = "standard",
    accepts: Callable[[str, str], bool] | None = None,
    resamples: int = BOOTSTRAP,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any]:
    """bot -> person on one blind pool: persons' guesses judged against the key's words.

    Args:
        key_path: the pool's KEY (``people_rounds.py mix``).
        guess_paths: one or more GUESS files (``split``, ``word``) for that pool.
        strictness: the judge's strictness (when ``accepts`` is not given).
        accepts: the judge, ``accepts(secret, guess) -> bool`` (default: the project's judge).

    Returns:
        :func:`summarise_tallies` plus ``key`` and ``guess_files`` (as written in reports).
    """
    if accepts is None:
        judge = ec.make_judge(strictness)

        def accepts(secret: str, guess: str) -> bool:
            return ec.judge_accepts(judge, secret, guess)

    tallies = tally_pool(key_path, guess_paths, accepts)
    return {
        **summarise_tallies(tallies, resamples, bootstrap_seed),
        "key": ec.display_path(key_path),
        "guess_files": [ec.display_path(p) for p in guess_paths],
    }


def find_pools(folder: Path | str) -> list[tuple[Path, list[Path]]]:
    """Recorded pools in ``folder``: the folder itself and each folder directly inside it that
    holds a :data:`KEY_NAME` and at least one ``*.tsv`` (its GUESS files).

    Returns:
        ``[(key, guess files), ...]`` sorted by path; ``[]`` when ``folder`` does not exist
        or holds no such pool (nothing recorded yet).
    """
    root = Path(folder).expanduser()
    if not root.is_dir():
        return []
    pools = []
    for place in [root, *sorted(p for p in root.iterdir() if p.is_dir())]:
        key = place / KEY_NAME
        guesses = sorted(place.glob("*.tsv"))
        if key.is_file() and guesses:
            pools.append((key, guesses))
    return pools


def score_recorded(
    folder: Path | str,
    strictness: str = "standard",
    accepts: Callable[[str, str], bool] | None = None,
    resamples: int = BOOTSTRAP,
    bootstrap_seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any] | None:
    """bot -> person over every recorded pool in ``folder`` (:func:`find_pools`), pooled.

    Returns:
        ``None`` when nothing is recorded; else :func:`summarise_tallies` over the splits of
        all pools plus ``folder``, ``pools`` (each pool's :func:`score_bot_to_person`) and
        ``ratings`` (:func:`score_ratings` of the folder's :data:`RATINGS_NAME`, or ``None``).
    """
    pools = find_pools(folder)
    if not pools:
        return None
    if accepts is None:
        judge = ec.make_judge(strictness)

        def accepts(secret: str, guess: str) -> bool:
            return ec.judge_accepts(judge, secret, guess)

    tallies: list[SplitTally] = []
    per_pool = []
    for key, guesses in pools:
        mine = tally_pool(key, guesses, accepts)
        tallies += mine
        per_pool.append(
            {
                **summarise_tallies(mine, resamples, bootstrap_seed),
                "key": ec.display_path(key),
                "guess_files": [ec.display_path(p) for p in guesses],
            }
        )
    ratings = Path(folder).expanduser() / RATINGS_NAME
    return {
        **summarise_tallies(tallies, resamples, bootstrap_seed),
        "folder": ec.display_path(folder),
        "title": readme_title(folder),
        "pools": per_pool,
        "ratings": score_ratings(ratings) if ratings.is_file() else None,
    }


def readme_title(folder: Path | str) -> str | None:
    """The first heading of ``folder/README.md`` without its ``#`` (a recorded round says
    there which commit's bots played its turns), ``None`` when there is none."""
    path = Path(folder).expanduser() / "README.md"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        if line.startswith("#"):
            return line.lstrip("#").strip() or None
    return None


def score_ratings(path: Path | str) -> dict[str, Any]:
    """A blind rater's judgement of turns: is the word true of the three and of neither of the
    two (``true_three`` and ``false_two`` both ``yes``), and how natural is it (1-5)?

    Args:
        path: a tab-separated file with :data:`RATING_COLUMNS` (one line per rated turn;
            ``by`` person or bot, ``perception`` labels/pixels for bot turns).

    Returns:
        ``groups``: for ``person`` and each ``bot PERCEPTION`` (and ``bot`` overall):
        ``turns``, ``true`` (:func:`rate`) and ``natural`` (mean, 1-5).

    Raises:
        EvalError: a missing file or column, or a value out of range (file and line named).
    """
    p = ec.require_file(path, "ratings file", "--recorded")
    groups: dict[str, dict[str, Any]] = {}
    with p.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = [c for c in RATING_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ec.EvalError(f"{p}:1: the header lacks {', '.join(missing)}")
        for row in reader:
            number = reader.line_num
            by = (row["by"] or "").strip()
            if by not in SOURCES:
                raise ec.EvalError(f"{p}:{number}: by must be person or bot, not {by!r}")
            yes = [(row[c] or "").strip().lower() for c in ("true_three", "false_two")]
            if any(v not in ("yes", "no") for v in yes):
                raise ec.EvalError(f"{p}:{number}: true_three and false_two must be yes or no")
            try:
                natural = float(row["natural"])
            except (TypeError, ValueError):
                natural = float("nan")
            if not 1.0 <= natural <= 5.0:
                raise ec.EvalError(f"{p}:{number}: natural must be 1 to 5, not {row['natural']!r}")
            names = [by]
            if by == "bot" and (row["perception"] or "").strip():
                names.append(f"bot {row['perception'].strip()}")
            for name in names:
                g = groups.setdefault(name, {"turns": 0, "true_count": 0, "natural_sum": 0.0})
                g["turns"] += 1
                g["true_count"] += yes == ["yes", "yes"]
                g["natural_sum"] += natural
    return {
        "file": ec.display_path(p),
        "groups": {
            name: {
                "turns": g["turns"],
                "true": rate(g["true_count"], g["turns"]),
                "natural": g["natural_sum"] / g["turns"],
            }
            for name, g in sorted(groups.items())
        },
    }


def ratings_table(ratings: dict[str, Any]) -> str:
    """A markdown table of :func:`score_ratings`."""
    rows = [
        [
            name,
            g["turns"],
            f"{ec.pct(g['true']['share'])} ({ec.pct(g['true']['ci95'][0])}–{ec.pct(g['true']['ci95'][1])})",
            f"{g['natural']:.2f}",
        ]
        for name, g in ratings["groups"].items()
    ]
    return ec.markdown_table(
        ["whose words", "turns", "true of the three, none of the two", "naturalness (1-5)"], rows
    )


# --------------------------------------------------------------------------- report


def _interval(ci: Sequence[float] | None, digits: int = 2) -> str:
    return f"{ci[0]:.{digits}f}–{ci[1]:.{digits}f}" if ci else "n/a"


def _who(name: str) -> str:
    return "plain guesser (`rank_guesses` top-1)" if name == PLAIN else f"`KiekBot` {name}"


def guesser_names(block: dict[str, Any], levels: Sequence[str] = eval_guesser.LEVELS) -> list[str]:
    """The guessers of a part's block in table order: the plain guesser, then ``levels`` in
    their order, then any other name (a block read back from sorted JSON keeps no order)."""
    names = list(block["guessers"])
    ordered = [n for n in (PLAIN, *levels) if n in names]
    return ordered + sorted(n for n in names if n not in ordered)


def person_to_bot_table(result: dict[str, Any], part: Part = "report") -> str:
    """A markdown table of one part of :func:`run`: per perception, the persons' rate, then each
    guesser's rate and its ratio to the persons' (rates in %, intervals 95 %)."""
    rows = []
    for kind, res in result["perceptions"].items():
        block = res["parts"].get(part)
        if not block:
            continue
        persons = block["persons"]
        rows.append(
            [
                res.get("name", kind),
                "the other persons",
                ec.pct(persons["share"]),
                f"{persons['count']}/{persons['total']} guesses",
                f"{ec.pct(persons['ci95'][0])}–{ec.pct(persons['ci95'][1])}",
                "(reference)",
                "",
            ]
        )
        for name in guesser_names(block, result.get("config", {}).get("levels", ())):
            g = block["guessers"][name]
            rows.append(
                [
                    res.get("name", kind),
                    _who(name),
                    ec.pct(g["share"]),
                    f"{g['count']}/{g['total']} rounds",
                    f"{ec.pct(g['ci95'][0])}–{ec.pct(g['ci95'][1])}",
                    "n/a" if g["ratio"] is None else f"{g['ratio']:.2f}",
                    _interval(g["ratio_ci95"]),
                ]
            )
    return ec.markdown_table(
        ["perception", "who guesses the person's word", "match", "count", "95% CI",
         "ratio to persons", "ratio 95% CI"],
        rows,
    )  # fmt: skip


def bot_to_person_table(recorded: dict[str, Any]) -> str:
    """A markdown table of :func:`score_recorded` / :func:`score_bot_to_person`: persons
    guessing person words and bot words, and the ratio bot / person."""
    rows = []
    for source in SOURCES:
        s = recorded["sources"][source]
        rows.append(
            [
                f"{source}s' words",
                s["splits"],
                ec.pct(s["share"]),
                f"{s['count']}/{s['total']}",
                f"{ec.pct(s['ci95'][0])}–{ec.pct(s['ci95'][1])}",
                ec.pct(s["exact"]["share"]),
            ]
        )
    ratio = recorded["ratio"]
    for name, s in (recorded.get("bot_perceptions") or {}).items():
        r = "n/a" if s["ratio"] is None else f"{s['ratio']:.2f} ({_interval(s['ratio_ci95'])})"
        rows.append(
            [
                f"bots' words, {name}",
                s["splits"],
                ec.pct(s["share"]),
                f"{s['count']}/{s['total']}",
                f"{ec.pct(s['ci95'][0])}–{ec.pct(s['ci95'][1])}",
                f"ratio {r}",
            ]
        )
    table = ec.markdown_table(
        ["persons guessing", "splits", "match", "guesses", "95% CI", "exact word"], rows
    )
    return (
        table
        + "\n\nRatio bot / person: "
        + ("n/a" if ratio is None else f"**{ratio:.2f}**")
        + f" (95% bootstrap CI {_interval(recorded['ratio_ci95'])})."
    )


def render_markdown(
    result: dict[str, Any],
    recorded: dict[str, Any] | None,
    recorded_folder: Path | str | None = DEFAULT_RECORDED,
) -> str:
    """The "People rounds" section of ``docs/EVALUATION.md`` (and ``people.md``): person -> bot
    on the reporting part for every perception, the fitting part's size, and bot -> person
    from ``recorded`` (:func:`score_recorded`) or "not yet recorded"."""
    cfg = result.get("config", {})
    split = result.get("split", {})
    boot = cfg.get("bootstrap", {})
    files = ", ".join(f"`{p}`" for p in cfg.get("rounds_files", []))
    out = [
        f"Turns played by stand-in people (independent players who saw only the photos): {files}, "
        f"{sum(split.values())} turns, **{split.get('report', 0)} in the reporting part** and "
        f"{split.get('fit', 0)} in the fitting part (split by deal, "
        "`kiekai.eval.people.part_of`, fixed before any fitting). Figures below are the "
        "reporting part's; the fitting part's are in `people.json` of `scripts/eval_people.py`. "
        "Stand-ins are not a panel of real people: read their agreement as an estimate.",
        "",
        "### Bots guessing people's words (person -> bot)",
        "",
        "The bots see only the five photos (through the perception; no used words) and write "
        "one guess; a match is the judge "
        f"(**{cfg.get('strictness', 'standard')}**) accepting it as the active person's word. "
        "*The other persons*: the two guesses the other stand-ins wrote on the same turns. "
        "Ratio = bot rate / persons' rate (95% percentile bootstrap over rounds, "
        f"{boot.get('resamples', BOOTSTRAP)} resamples, seed {boot.get('seed', BOOTSTRAP_SEED)}); "
        "rates have 95% Wilson intervals (over guesses for the persons).",
        "",
        person_to_bot_table(result, "report")
        if any(r["parts"].get("report") for r in result["perceptions"].values())
        else "No turn of the reporting part among the rounds scored (see `--limit`).",
        "",
    ]
    skipped = [s for res in result["perceptions"].values() for s in res.get("skipped", [])]
    if skipped:
        out += [f"Left out (the perception cannot score a photo): {len(skipped)} round(s).", ""]
    out += ["### People guessing the bots' words (bot -> person)", ""]
    if recorded is None:
        where = f" (no pool in `{ec.display_path(recorded_folder)}`)" if recorded_folder else ""
        out += [
            f"Not yet recorded{where}: play bot-only games on dev photos, cut their turns into "
            "split sheets (`../shared/tools/people_rounds.py botlog`), mix them blind with "
            "person turns (`people_rounds.py mix POOL KEY DIR...`), have stand-ins guess from "
            f"the pool's pictures only, and put each pool's KEY as `{KEY_NAME}` with its GUESS "
            "`*.tsv` files in a folder there.",
            "",
        ]
    else:
        out += [
            *([f"**{recorded['title']}**", ""] if recorded.get("title") else []),
            f"Recorded pools in `{recorded.get('folder', '?')}`: {len(recorded.get('pools', []))}; "
            "persons guessed splits of person and bot turns mixed blind; a match is the judge "
            "accepting the guess as the turn's word.",
            "",
            bot_to_person_table(recorded),
            "",
        ]
        if recorded.get("ratings"):
            out += [
                "A blind rater (a stand-in who guessed none of these turns) judged every turn, "
                f"bot and person mixed (`{recorded['ratings']['file']}`):",
                "",
                ratings_table(recorded["ratings"]),
                "",
            ]
    return "\n".join(out)


# --------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--rounds", type=Path, nargs="+", default=list(DEFAULT_ROUNDS),
        help="people rounds files (.jsonl), joined (default: data/people-rounds and "
        "../shared/eval/people-rounds-dev)",
    )  # fmt: skip
    p.add_argument("--deck", type=Path, default=DEFAULT_DECK, help="deck folder the rounds use")
    p.add_argument(
        "--perceptions", default=",".join(PERCEPTIONS),
        help="comma-separated perception kinds (labels: labels.csv; classifier: pixels only)",
    )  # fmt: skip
    ec.add_round_scoring_args(p)
    p.add_argument(
        "--levels", default=",".join(eval_guesser.LEVELS),
        help="comma-separated KiekBot levels scored beside the plain guesser ('' for none)",
    )  # fmt: skip
    p.add_argument("--bootstrap", type=int, default=BOOTSTRAP, help="bootstrap resamples")
    p.add_argument("--bootstrap-seed", type=int, default=BOOTSTRAP_SEED)
    p.add_argument(
        "--recorded", type=Path, default=DEFAULT_RECORDED,
        help=f"folder of recorded bot -> person pools ({KEY_NAME} + GUESS *.tsv, or one "
        "folder each)",
    )  # fmt: skip
    p.add_argument("--key", type=Path, default=None, help="score one pool: its KEY file")
    p.add_argument("--guesses", type=Path, nargs="+", default=[], help="that pool's GUESS files")
    p.add_argument("--out", type=Path, default=None, help="folder for people.json and people.md")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        if (args.key is None) != (not args.guesses):
            raise ec.EvalError("--key and --guesses go together")
        result = run(
            args.rounds,
            args.deck,
            [x.strip() for x in args.perceptions.split(",") if x.strip()],
            [x.strip() for x in args.levels.split(",") if x.strip()],
            args.strictness,
            args.seed,
            args.limit,
            args.clip_model,
            args.clip_checkpoint,
            resamples=args.bootstrap,
            bootstrap_seed=args.bootstrap_seed,
        )
        recorded: dict[str, Any] | None
        if args.key is not None:
            recorded = score_bot_to_person(
                args.key, args.guesses, args.strictness,
                resamples=args.bootstrap, bootstrap_seed=args.bootstrap_seed,
            )  # fmt: skip
            recorded = {**recorded, "folder": ec.display_path(args.key.parent), "pools": [recorded]}
        else:
            recorded = score_recorded(
                args.recorded, args.strictness,
                resamples=args.bootstrap, bootstrap_seed=args.bootstrap_seed,
            )  # fmt: skip
        for part in PARTS:
            print(f"## person -> bot, {part} part ({result['split'][part]} rounds)\n")
            print(person_to_bot_table(result, part) + "\n")
        print("## bot -> person\n")
        print(bot_to_person_table(recorded) if recorded else "not yet recorded")
        for res in result["perceptions"].values():
            for line in res["skipped"]:
                print(f"left out: {line}", file=sys.stderr)
        if args.out:
            ec.write_json(args.out / "people.json", {**result, "bot_to_person": recorded})
            (args.out / "people.md").write_text(
                render_markdown(result, recorded, args.recorded) + "\n", "utf-8"
            )
            print(f"wrote {args.out / 'people.json'}, people.md")
        return 0

    return ec.run_main(body)


if __name__ == "__main__":
    sys.exit(main())
