"""How people-like are the Kiek bots' words: the measures of a held-out check, from game logs.

Reimplements, with the same definitions, the independent checker the held-out evaluation runs
(``../shared/tools/bots_quality.py``; this module never imports it). From the JSON-lines game
logs of :func:`kiekai.kiek.game.play_game` it reads, per turn, the active player's secret
word (``reveal`` event), the split (``play`` event) and the guesses (``guess`` events), and
measures:

- ``zipf_median``: median wordfreq Zipf frequency of the secret words, each the Zipf of its
  rarest token (a compound or hyphenated word splits on spaces, ``_`` and ``-``; a final
  ``less`` of ``X-less`` is not a token);
- ``rare_share``: share of secret words with that Zipf below :data:`RARE_ZIPF` (3.5: words
  people rarely say, *chordate*, *instrumentation*);
- ``privative_share``: share of secret words of the form ``X-less`` (or ``Xless`` when the
  whole word is rarer than Zipf 2: *dogless*, not *useless*);
- ``unanimous_share``: share of turns in which at least two guessers wrote something and all
  of them wrote the very same word (bots that think alike);
- ``truth`` (with a deck's labels, hidden from the game): share of the *checkable* secret
  words that are true of the split: a word is checkable when one of its WordNet noun senses is
  the synset, or a hypernym, of one of the five cards; true when one sense covers all three and
  no sense covers either of the two.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

#: Zipf frequency below which a word counts as rare (about once in 3 million words).
RARE_ZIPF = 3.5


def rarest_zipf(word: str) -> float:
    """wordfreq Zipf frequency (English) of the rarest token of ``word``: tokens split on
    spaces, ``_`` and ``-``; a last token ``less`` (of ``X-less``) is dropped; 0.0 for none."""
    from wordfreq import zipf_frequency

    tokens = [t for t in re.split(r"[\s_\-]+", word.lower()) if t]
    if tokens and tokens[-1] == "less":
        tokens = tokens[:-1]
    return min((zipf_frequency(t, "en") for t in tokens), default=0.0)


def is_privative(word: str) -> bool:
    """Whether ``word`` is an ``X-less`` category (rulebook, "Imperfect Guesses"): it ends in
    ``-less``, or in ``less`` and is itself rarer than Zipf 2 (``dogless``, not ``useless``)."""
    from wordfreq import zipf_frequency

    w = word.lower()
    return w.endswith("-less") or (w.endswith("less") and zipf_frequency(w, "en") < 2.0)


@dataclass
class Turn:
    """One turn of a game log.

    Attributes:
        secret: the active player's word.
        three: card ids of the group of three ('' when the log has no play).
        two: card ids of the group of two.
        guesses: the guessers' words, in log order ('' = nothing written).
        log: the log file the turn comes from.
        turn: its turn number there.
    """

    secret: str
    three: tuple[str, ...] = ()
    two: tuple[str, ...] = ()
    guesses: list[str] = field(default_factory=list)
    log: str = ""
    turn: int = 0


def read_turns(path: Path | str) -> list[Turn]:
    """The turns of a game log that have a revealed secret, in turn order. Lines that are not
    JSON are skipped, as a crashed game's last line may be cut.

    Raises:
        OSError: the file cannot be read.
    """
    turns: dict[Any, dict[str, Any]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            kind, number = event.get("type"), event.get("turn")
            data = event.get("data") or {}
            if kind == "play":
                turns.setdefault(number, {})["play"] = data
            elif kind == "guess":
                turns.setdefault(number, {}).setdefault("guesses", []).append(data.get("word"))
            elif kind == "reveal":
                turns.setdefault(number, {})["secret"] = data.get("secret")
    out = []
    for number, value in sorted(turns.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        if not value.get("secret"):
            continue
        play = value.get("play") or {}
        out.append(
            Turn(
                secret=value["secret"],
                three=tuple(play.get("three") or ()),
                two=tuple(play.get("two") or ()),
                guesses=[g or "" for g in value.get("guesses", [])],
                log=str(path),
                turn=int(number or 0),
            )
        )
    return out


def longest_table_runs(turns: Sequence[Turn]) -> dict[str, int]:
    """``card -> the most turns running it was among the five on the table`` in one game's
    turns (:func:`read_turns`, in turn order; a missing turn number breaks a run). The
    target: no card more than 4 turns running (a table does not freeze on one photo).
    """
    best: dict[str, int] = {}
    run: dict[str, int] = {}
    last: int | None = None
    for turn in turns:
        five = set(turn.three) | set(turn.two)
        consecutive = last is not None and turn.turn == last + 1
        run = {card: (run.get(card, 0) + 1 if consecutive else 1) for card in five}
        for card, length in run.items():
            best[card] = max(best.get(card, 0), length)
        last = turn.turn
    return best


def unanimous(guesses: Sequence[str]) -> bool:
    """At least two guessers wrote something and all who did wrote the very same word."""
    written = [g for g in guesses if g]
    return len(written) >= 2 and len(set(written)) == 1


class TruthChecker:
    """WordNet truth of a secret word for a split, by a deck's labels (file, wnid).

    Args:
        labels: ``{card id or file name: wnid}`` (see :meth:`from_csv`).
        wn: a WordNet reader (default :func:`kiekai.judge.resources.wordnet`, the judge's).
    """

    def __init__(self, labels: dict[str, str], wn: Any | None = None) -> None:
        if wn is None:
            from kiekai.judge.resources import wordnet

            wn = wordnet()
        self.wn = wn
        self.labels = dict(labels)
        self._memo: dict[str, frozenset[Any]] = {}

    @classmethod
    def from_csv(cls, path: Path | str, wn: Any | None = None) -> TruthChecker:
        """Read a deck's labels.csv (columns ``file`` and ``wnid``).

        Raises:
            OSError: the file cannot be read.
            ValueError: it lacks a ``file`` or ``wnid`` column.
        """
        with open(path, encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if not reader.fieldnames or not {"file", "wnid"} <= set(reader.fieldnames):
                raise ValueError(f"{path}: labels.csv needs the columns file and wnid")
            return cls({r["file"]: r["wnid"] for r in reader if r.get("wnid")}, wn)

    def ancestors(self, card: str) -> frozenset[Any] | None:
        """The card's synset and all its hypernyms (and instance hypernyms), or ``None`` when
        the labels do not name it (looked up as given, as ``photos/NAME`` and as ``NAME``)."""
        name = card.split("/")[-1]
        wnid = self.labels.get(card) or self.labels.get("photos/" + name) or self.labels.get(name)
        if not wnid:
            return None
        if wnid not in self._memo:
            synset = self.wn.synset_from_pos_and_offset("n", int(wnid[1:]))
            closure = synset.closure(lambda x: x.hypernyms() + x.instance_hypernyms())
            self._memo[wnid] = frozenset({synset, *closure})
        return self._memo[wnid]

    def check(self, word: str, three: Sequence[str], two: Sequence[str]) -> bool | None:
        """``True``/``False`` when WordNet can check ``word`` on the split, else ``None``
        (the word has no noun sense covering any of the five cards, or a card is unlabelled)."""
        senses = self.wn.synsets(word.replace(" ", "_"), "n")
        if not senses:
            return None
        a3 = [self.ancestors(c) for c in three]
        a2 = [self.ancestors(c) for c in two]
        if any(a is None for a in a3 + a2):
            return None
        k3 = cast(list[frozenset[Any]], a3)  # no None left (checked above)
        k2 = cast(list[frozenset[Any]], a2)
        if not any(s in a for s in senses for a in k3 + k2):
            return None
        if not any(all(s in a for a in k3) for s in senses):
            return False
        return not any(s in a for s in senses for a in k2)


def measure(turns: Sequence[Turn], checker: TruthChecker | None = None) -> dict[str, Any]:
    """The figures of the module docstring over ``turns`` (all games together).

    Returns:
        a dict: ``turns``, ``distinct_secrets``, ``zipf_median``, ``rare_share``,
        ``privative_share``, ``unanimous_share`` (rounded as the held-out checker rounds
        them), ``secrets``; with a checker also ``truth_checkable``, ``truth`` (``None``
        when nothing is checkable) and ``untrue`` (the false turns, for reading).
    """
    secrets = [t.secret for t in turns]
    if not secrets:
        return {"turns": 0}
    zipfs = [rarest_zipf(s) for s in secrets]
    out: dict[str, Any] = {
        "turns": len(turns),
        "distinct_secrets": len({s.lower() for s in secrets}),
        "zipf_median": round(statistics.median(zipfs), 2),
        "rare_share": round(sum(z < RARE_ZIPF for z in zipfs) / len(zipfs), 3),
        "privative_share": round(sum(is_privative(s) for s in secrets) / len(secrets), 3),
        "unanimous_share": round(sum(unanimous(t.guesses) for t in turns) / len(turns), 3),
        "secrets": secrets,
    }
    if checker is not None:
        verdicts = [(t, checker.check(t.secret, t.three, t.two)) for t in turns if t.three]
        checkable = [v for _, v in verdicts if v is not None]
        out["truth_checkable"] = len(checkable)
        out["truth"] = round(sum(checkable) / len(checkable), 3) if checkable else None
        out["untrue"] = [
            {
                "log": t.log,
                "turn": t.turn,
                "word": t.secret,
                "three": list(t.three),
                "two": list(t.two),
            }
            for t, v in verdicts
            if v is False
        ]
    return out


def measure_logs(paths: Iterable[Path | str], labels: Path | str | None = None) -> dict[str, Any]:
    """:func:`measure` over the turns of every log in ``paths``, checked against ``labels``
    (a labels.csv) when given, plus ``table_runs``: per log, the most turns running one card
    was among the five on the table (:func:`longest_table_runs`)."""
    games = [read_turns(p) for p in paths]
    out = measure([t for g in games for t in g], TruthChecker.from_csv(labels) if labels else None)
    out["table_runs"] = [max(longest_table_runs(g).values(), default=0) for g in games]
    return out


def main(argv: Sequence[str] | None = None, echo: Callable[[str], object] = print) -> int:
    """``python -m kiekai.eval.quality [--labels labels.csv] LOG.jsonl...``: print the figures
    as one JSON object (the held-out checker's format, plus ``untrue``). Returns 0, or 2 on a
    user error."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=None, help="the deck's labels.csv")
    parser.add_argument("logs", nargs="+", type=Path, help="kiekai game logs (JSON lines)")
    args = parser.parse_args(argv)
    try:
        result = measure_logs(args.logs, args.labels)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    echo(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
