"""Shared plumbing of the evaluation (:mod:`kiekai.eval`; command lines in ``scripts/eval_*.py``).

What lives here, and nothing else:

- :class:`EvalError` and :func:`run_main`: user errors become one ``error: ...`` line on
  stderr and exit status 2, never a traceback.
- :class:`Round`, :func:`load_rounds` and :func:`iter_round_lines`: the guessing-round files
  (``../shared/eval/kiek-rounds-dev.jsonl`` and held-out files of the same shape).
- :class:`Taxonomy`: the WordNet 3.0 noun hierarchy used as ground truth. A word is *true of*
  a split when one of its noun senses is an ancestor-or-self (hypernym or instance-hypernym
  closure) of every synset of the group of three and none of its noun senses is one of any
  synset of the group of two (rulebook, "A Turn": "something that is shown by the group of
  three, but not by the group of two"). The plain *baseline* guess is the first lemma of the most specific such ancestor.
- Deck and perception loading through the package's public API (``kiekai.deck.load_deck``,
  ``kiekai.perception.load_perception``), the judge, markdown tables, matplotlib plots and the
  machine/versions header of ``docs/EVALUATION.md``.

WordNet comes from :func:`kiekai.judge.resources.wordnet` (the reader the judge reads, of
the :class:`~kiekai.judge.resources.Resources` in force); this module never locates data
files itself.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from kiekai.judge.verdict import Strictness
from kiekai.paths import shared_dir

REPO = Path(__file__).resolve().parents[2]
#: The shared development folder: ``$KIEKAI_SHARED``, else ``shared`` beside the repository
#: (:func:`kiekai.paths.shared_dir`).
SHARED = shared_dir()
#: Default deck and rounds file (overridable by flags and by ``KIEKAI_EVAL_DECK`` /
#: ``KIEKAI_EVAL_ROUNDS``).
DEFAULT_DECK = Path(os.environ.get("KIEKAI_EVAL_DECK", SHARED / "decks" / "imagenet-dev"))
DEFAULT_ROUNDS = Path(
    os.environ.get("KIEKAI_EVAL_ROUNDS", SHARED / "eval" / "kiek-rounds-dev.jsonl")
)

#: Packages whose versions the evaluation report states (distribution names on PyPI).
REPORTED_PACKAGES = (
    "kiekai",
    "torch",
    "open_clip_torch",
    "nltk",
    "sentence-transformers",
    "numpy",
    "matplotlib",
)


class EvalError(Exception):
    """A user error (missing file, malformed rounds line, unknown card): one line for people."""


def run_main(body: Callable[[], int]) -> int:
    """Run ``body`` and turn an :class:`EvalError` into ``error: ...`` on stderr and status 2.

    Returns:
        ``body``'s exit status, or 2 after a user error, or 130 after Ctrl-C.
    """
    try:
        return body()
    except EvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


@overload
def display_path(
    path: Path | str, *, repo: Path | None = None, shared: Path | None = None
) -> str: ...


@overload
def display_path(path: None, *, repo: Path | None = None, shared: Path | None = None) -> None: ...


def display_path(
    path: Path | str | None, *, repo: Path | None = None, shared: Path | None = None
) -> str | None:
    """``path`` as written into reports (``docs/EVALUATION.md``, ``results.json``, the
    scripts' ``*.md``/``*.json``), so the text means the same on every checkout:

    - inside the repository: relative to it (``docs/EVALUATION.md``);
    - inside the shared development folder (``shared`` beside the repository, or
      ``$KIEKAI_SHARED``; :func:`kiekai.paths.shared_dir`): ``../shared/<path in it>``,
      wherever that folder really is;
    - anything else stays absolute (a folder that merely sits beside the repository, such as
      pytest's temporary folder beside a clone in ``/tmp``, is not the shared folder).

    POSIX separators. The scripts still read the real path; only the written text changes.
    A relative ``path`` is taken relative to the current directory, as the scripts open it.
    Symbolic links are compared both as written and resolved, so a checkout reached through a
    link still gets relative text. Returns ``None`` for ``None`` (an unset optional path).

    Args:
        path: the path to show.
        repo: the repository root (default :data:`REPO`); tests pass another.
        shared: the shared folder (default :data:`SHARED`); tests pass another.
    """
    if path is None:
        return None
    repo = REPO if repo is None else repo
    shared = SHARED if shared is None else shared
    written = Path(os.path.abspath(Path(path).expanduser()))
    for candidate in (written, written.resolve()):
        for base, prefix in ((repo, ()), (shared, ("..", "shared"))):
            for root in {Path(os.path.abspath(base)), Path(base).resolve()}:
                if candidate.is_relative_to(root):
                    parts = (*prefix, *candidate.relative_to(root).parts)
                    return Path(*parts).as_posix() if parts else "."
    return written.as_posix()


def iter_json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` for each non-blank line of a JSON-lines file (1-based
    numbers, as editors show them); the caller checks the value's shape.

    Raises:
        EvalError: a line is not valid JSON (the message gives the file and line number).
        OSError: the file cannot be read.
    """
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvalError(f"{path}:{number}: not a JSON object ({exc.msg})") from None


def add_round_scoring_args(parser: Any) -> None:
    """Add the options every rounds evaluation shares to an ``argparse`` parser:
    ``--clip-model``, ``--clip-checkpoint`` (CLIP, when that perception is asked for),
    ``--strictness`` (the judge's level, default standard), ``--seed`` (of the level bots,
    default 0) and ``--limit`` (score only the first N rounds)."""
    parser.add_argument("--clip-model", default=None, help="open_clip architecture name")
    parser.add_argument("--clip-checkpoint", default=None, help="open_clip weights file")
    parser.add_argument(
        "--strictness", choices=[level.value for level in Strictness], default="standard"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the level bots (default 0)")
    parser.add_argument("--limit", type=int, default=None, help="score only the first N rounds")


def require_dir(path: Path | str, what: str, flag: str) -> Path:
    """Return ``path`` as a :class:`Path` after checking it is an existing folder.

    Raises:
        EvalError: the folder is missing (the message names ``what`` and the ``flag`` to fix it).
    """
    p = Path(path).expanduser()
    if not p.is_dir():
        raise EvalError(f"{what} {p} is not a folder: pass an existing one with {flag}")
    return p


def require_file(path: Path | str, what: str, flag: str) -> Path:
    """Return ``path`` as a :class:`Path` after checking it is an existing file.

    Raises:
        EvalError: the file is missing (the message names ``what`` and the ``flag`` to fix it).
    """
    p = Path(path).expanduser()
    if not p.is_file():
        raise EvalError(f"{what} {p} does not exist: pass an existing file with {flag}")
    return p


# --------------------------------------------------------------------------- rounds


@dataclass(frozen=True)
class Round:
    """One guessing round: five photos split 3/2 and the word the active player meant.

    Attributes:
        id: the round's id in the file.
        target: the most specific everyday category shared by the three and not the two.
        valid_words: every listed category word that also fits (includes ``target``).
        three: card ids (paths relative to the deck folder) of the group of three.
        two: card ids of the group of two.
        labels_three: human labels of the three (for reports only; never shown to a bot).
        labels_two: human labels of the two (for reports only).
    """

    id: str
    target: str
    valid_words: tuple[str, ...]
    three: tuple[str, str, str]
    two: tuple[str, str]
    labels_three: tuple[str, ...] = ()
    labels_two: tuple[str, ...] = ()


def iter_round_lines(
    path: Path | str, flag: str = "--rounds"
) -> Iterator[tuple[int, dict[str, Any], Round]]:
    """Read a JSON-lines rounds file line by line (the format of :func:`load_rounds`).

    Yields ``(line number, the line's JSON object, its Round)`` for every non-blank line, so a
    caller can keep fields beyond :class:`Round` (``kiekai.eval.people`` keeps ``deal`` and
    ``other_players_guessed``) and name the line in its own errors.

    Args:
        path: the ``.jsonl`` file.
        flag: the command-line flag named when the file is missing.

    Raises:
        EvalError: the file is missing, or a line is not a JSON object, lacks a field or has
            groups of the wrong size (the message gives the file and line number).
    """
    p = require_file(path, "rounds file", flag)
    for number, obj in iter_json_lines(p):
        if not isinstance(obj, dict):
            raise EvalError(f"{p}:{number}: expected a JSON object per line")
        missing = [key for key in ("target", "group_of_three", "group_of_two") if key not in obj]
        if missing:
            raise EvalError(f"{p}:{number}: missing field(s) {', '.join(missing)}")
        three, two = list(obj["group_of_three"]), list(obj["group_of_two"])
        if len(three) != 3 or len(two) != 2:
            raise EvalError(
                f"{p}:{number}: a round needs 3 + 2 photos, got {len(three)} + {len(two)}"
            )
        target = str(obj["target"]).strip()
        valid = tuple(str(w) for w in obj.get("valid_words", [])) or (target,)
        yield (
            number,
            obj,
            Round(
                id=str(obj.get("id", f"line-{number}")),
                target=target,
                valid_words=valid if target in valid else (target, *valid),
                three=(str(three[0]), str(three[1]), str(three[2])),
                two=(str(two[0]), str(two[1])),
                labels_three=tuple(str(x) for x in obj.get("labels_three", [])),
                labels_two=tuple(str(x) for x in obj.get("labels_two", [])),
            ),
        )


def load_rounds(path: Path | str, limit: int | None = None) -> list[Round]:
    """Read a JSON-lines rounds file (one object per line with ``id``, ``target``,
    ``valid_words``, ``group_of_three`` (3 paths), ``group_of_two`` (2 paths) and optional
    ``labels_three`` / ``labels_two``). Blank lines are skipped.

    Args:
        path: the ``.jsonl`` file.
        limit: keep only the first ``limit`` rounds (``None`` = all).

    Raises:
        EvalError: the file is missing or empty, or a line is not JSON or lacks a field or
            has groups of the wrong size (the message gives the line number).
    """
    rounds: list[Round] = []
    for _number, _obj, rnd in iter_round_lines(path):
        rounds.append(rnd)
        if limit is not None and len(rounds) >= limit:
            break
    if not rounds:
        raise EvalError(f"rounds file {Path(path).expanduser()} holds no rounds")
    return rounds


# --------------------------------------------------------------------------- WordNet


def wordnet() -> Any:
    """The WordNet 3.0 reader of the resources in force (:func:`kiekai.judge.resources.wordnet`:
    the judge's index, or NLTK's reader when the index is off).

    Raises:
        EvalError: WordNet cannot be found (the resolver's message says how to fix it).
    """
    from kiekai.judge.resources import wordnet as current_wordnet

    try:
        return current_wordnet()
    except Exception as exc:  # the resolver's own error explains the fix
        raise EvalError(f"WordNet could not be loaded: {exc}") from None


class Taxonomy:
    """Ground truth from the WordNet 3.0 noun hierarchy (hypernyms and instance hypernyms).

    Args:
        wn: an NLTK WordNet corpus reader (default: :func:`wordnet`).
        declared: optional word -> synset names (``"sports_equipment.n.01"``) that a
            vocabulary declares a word to mean beyond its own WordNet senses (e.g. *sports*
            for sports equipment); used only where a caller asks for ``declared=True``.
    """

    def __init__(
        self, wn: Any | None = None, declared: Mapping[str, Sequence[str]] | None = None
    ) -> None:
        self.wn = wn if wn is not None else wordnet()
        self._ancestors: dict[Any, frozenset[Any]] = {}
        self._senses: dict[str, tuple[Any, ...]] = {}
        self._declared_names = {k.lower(): tuple(v) for k, v in (declared or {}).items()}
        self._declared: dict[str, tuple[Any, ...]] = {}
        self._checkable: dict[str, bool] = {}

    # -- synsets -----------------------------------------------------------------
    def synset_of_wnid(self, wnid: str) -> Any:
        """The noun synset of a WordNet 3.0 id such as ``n01440764`` (= tench.n.01).

        Raises:
            EvalError: ``wnid`` is not ``n`` + 8 digits, or no such synset exists.
        """
        text = (wnid or "").strip()
        if len(text) != 9 or text[0] != "n" or not text[1:].isdigit():
            raise EvalError(f"{wnid!r} is not a WordNet noun id like n01440764")
        try:
            return self.wn.synset_from_pos_and_offset("n", int(text[1:]))
        except Exception:
            raise EvalError(f"no WordNet 3.0 noun synset has the id {wnid}") from None

    def synset_of_card(self, card: Any) -> Any | None:
        """The synset of a card: its ``wnid``, else the first noun sense of its ``label``,
        else ``None`` (the card then cannot be judged by WordNet)."""
        wnid = getattr(card, "wnid", None)
        if wnid:
            try:
                return self.synset_of_wnid(wnid)
            except EvalError:
                pass
        label = getattr(card, "label", None)
        if label:
            senses = self.noun_senses(label)
            if senses:
                return senses[0]
        return None

    def noun_senses(self, word: str) -> tuple[Any, ...]:
        """Noun synsets of ``word`` (any case; spaces or hyphens as in WordNet compounds;
        inflections through WordNet's morphy), in WordNet's sense order. Empty if none."""
        key = " ".join((word or "").strip().lower().split())
        if key in self._senses:
            return self._senses[key]
        found: list[Any] = []
        if key:
            variants = dict.fromkeys(
                [
                    key.replace(" ", "_"),
                    key.replace(" ", "_").replace("-", "_"),
                    key.replace("-", ""),
                ]
            )
            for variant in variants:
                for synset in self.wn.synsets(variant, pos="n"):
                    if synset not in found:
                        found.append(synset)
        self._senses[key] = tuple(found)
        return self._senses[key]

    def senses(self, word: str, declared: bool = False) -> tuple[Any, ...]:
        """The word's WordNet noun senses, plus (``declared=True``) the synsets the
        vocabulary declares for it; unknown declared names are ignored."""
        own = self.noun_senses(word)
        if not declared:
            return own
        key = " ".join((word or "").strip().lower().split())
        if key not in self._declared:
            extra = []
            for name in self._declared_names.get(key, ()):
                try:
                    extra.append(self.wn.synset(name))
                except Exception:  # a malformed name in a vocabulary file: not a sense
                    continue
            self._declared[key] = tuple(dict.fromkeys([*own, *extra]))
        return self._declared[key]

    def ancestors(self, synset: Any) -> frozenset[Any]:
        """``synset`` and all its hypernyms and instance hypernyms, transitively."""
        cached = self._ancestors.get(synset)
        if cached is None:
            cached = frozenset(
                [synset, *synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms())]
            )
            self._ancestors[synset] = cached
        return cached

    # -- truth and baseline -------------------------------------------------------
    def true_of(
        self, word: str, three: Sequence[Any], two: Sequence[Any], declared: bool = False
    ) -> bool:
        """Is ``word`` true of the group of three and not of the group of two?

        The rulebook ("A Turn"): the word is "shown by the group of three, but not by the
        group of two". True when

        - one noun sense of ``word`` (with ``declared=True``, also a synset the vocabulary
          declares for it) is an ancestor-or-self of every synset in ``three``, and
        - *no* sense of ``word`` (the same set of senses) is an ancestor-or-self of any
          synset in ``two``: a reader may take the word in any sense, so ``crane`` is not
          true of three crane birds (crane.n.05) against two crane machines (crane.n.04).
          This is the bots' own rule (``kiekai.kiek.truth.certain_truth``), which is stricter
          still: it also refuses a sense that is a hyponym of a card of the two.

        ``X-less`` (rulebook, "Imperfect Guesses": "white-less", "person-less") is true when X
        is true, in that sense, of each of the two and, in no sense, of any of the three.
        Returns False for words with no noun sense (colours or qualities cannot be checked
        this way).

        Args:
            word: the written word.
            three: the synsets of the group of three (NLTK ``Synset``).
            two: the synsets of the group of two.
            declared: also use the vocabulary's declared senses (see :meth:`senses`).

        Raises:
            ValueError: a card's synset is ``None`` (a photo with no WordNet synset cannot be
                judged; the caller counts such splits instead of dropping the card).
        """
        if any(s is None for s in (*three, *two)):
            raise ValueError(
                f"a card of the split has no WordNet synset; {word!r} cannot be judged "
                "(count the split as not checkable)"
            )
        if not three:
            return False
        base = self.less_base(word)
        if base is not None:  # "X-less": X is true of each of the two and of none of the three
            return self.true_of(base, two, three, declared) if len(two) else False
        senses = self.senses(word, declared)
        if not any(all(sense in self.ancestors(s) for s in three) for sense in senses):
            return False
        return not any(sense in self.ancestors(s) for s in two for sense in senses)

    def split_synsets(
        self, three: Sequence[Any], two: Sequence[Any]
    ) -> tuple[list[Any], list[Any], int]:
        """The synsets of a split's cards (:meth:`synset_of_card`) and how many have none.

        Returns:
            ``(three_synsets, two_synsets, missing)``: lists in card order (``None`` where a
            card has no synset) and the number of such cards in both groups together. A split
            with ``missing > 0`` cannot be judged by :meth:`true_of`.
        """
        s3 = [self.synset_of_card(c) for c in three]
        s2 = [self.synset_of_card(c) for c in two]
        return s3, s2, sum(1 for s in (*s3, *s2) if s is None)

    @staticmethod
    def less_base(word: str) -> str | None:
        """``"person"`` for ``"person-less"`` (the rulebook's "white-less", "person-less"
        categories, "Imperfect Guesses"); ``None`` for other words."""
        text = " ".join((word or "").strip().lower().split())
        if text.endswith("-less") and len(text) > 5:
            return text[:-5]
        return None

    def checkable(self, word: str) -> bool:
        """Whether the noun hierarchy can judge ``word``: it (or X of ``X-less``) has a noun
        sense and is not mainly an adjective (:meth:`mainly_adjective`: *natural*, *red*,
        *wooden* name qualities, which the photos' synsets do not record)."""
        base = self.less_base(word)
        text = base if base is not None else word
        cached = self._checkable.get(text)
        if cached is None:
            cached = bool(self.noun_senses(text)) and not self.mainly_adjective(text)
            self._checkable[text] = cached
        return cached

    def mainly_adjective(self, word: str) -> bool:
        """True when WordNet's sense-tagged corpus counts (``Lemma.count()``, from
        cntlist.rev; SemCor) of ``word`` as an adjective exceed its counts as a noun
        (*natural* 43 to 0, *red* 58 to 17; *dog* 0 to 42). Without counts: False."""
        key = " ".join((word or "").strip().lower().split()).replace(" ", "_")

        def count(pos: str) -> int:
            return sum(
                lemma.count()
                for synset in self.wn.synsets(key, pos=pos)
                for lemma in synset.lemmas()
                if lemma.name().lower() == key
            )

        return count("a") > count("n")

    def separating_ancestors(self, three: Sequence[Any], two: Sequence[Any]) -> list[Any]:
        """Synsets that are ancestors-or-self of all of ``three`` and none of ``two``, most
        specific first (greatest ``max_depth``, then ``min_depth``, ties by name)."""
        if not three:
            return []
        common = set(self.ancestors(three[0]))
        for s in three[1:]:
            common &= self.ancestors(s)
        for s in two:
            common -= self.ancestors(s)
        return sorted(common, key=lambda s: (-s.max_depth(), -s.min_depth(), s.name()))

    def baseline_word(self, three: Sequence[Any], two: Sequence[Any]) -> str | None:
        """The plain baseline guess: the first lemma (underscores to spaces) of the most
        specific WordNet ancestor shared by the three and by neither of the two; ``None``
        when no ancestor separates the groups."""
        ranked = self.separating_ancestors(three, two)
        if not ranked:
            return None
        return ranked[0].lemmas()[0].name().replace("_", " ")

    def synset_match(self, secret: str, guess: str) -> bool:
        """The simple synset-match judge: the same word after case/space folding, or two
        words sharing a noun synset. (The reference judge of the ~75% baseline in docs/EVALUATION.md.)"""
        a = " ".join((secret or "").lower().split())
        b = " ".join((guess or "").lower().split())
        if not a or not b:
            return False
        if a == b:
            return True
        return bool(set(self.noun_senses(a)) & set(self.noun_senses(b)))


# --------------------------------------------------------------------------- project API


def load_deck_cards(deck_dir: Path | str) -> list[Any]:
    """Load a deck through ``kiekai.deck.load_deck`` and return its cards.

    Raises:
        EvalError: the folder is missing or the deck cannot be read.
    """
    path = require_dir(deck_dir, "deck", "--deck")
    from kiekai.deck import DeckError, load_deck

    try:
        deck = load_deck(path)
    except (DeckError, OSError, ValueError) as exc:
        raise EvalError(f"cannot read deck {path}: {exc}") from None
    cards = list(deck.cards)
    if not cards:
        raise EvalError(f"deck {path} holds no usable photos")
    return cards


#: The evaluation's name for the game's perception of a labelled deck without CLIP.
GAME_LABELS = "labels+colour"


def load_perception_for(
    kind: str,
    cards: Sequence[Any],
    clip_model: str | None = None,
    clip_checkpoint: Path | str | None = None,
    echo: Callable[[str], None] | None = None,
) -> tuple[Any, list[Any]]:
    """``kiekai.perception.load_perception`` with user errors turned into :class:`EvalError`.

    ``kind`` is one of ``kiekai.perception.KINDS`` or :data:`GAME_LABELS` (``labels+colour``):
    what ``kiekai play`` sees on a labelled deck without CLIP (``auto`` with CLIP left out:
    things from labels.csv, colours from the pixels, attributes from the labels' classes).

    Returns:
        ``(perception, usable_cards)``: the backend and the cards it can score (the labels
        backend leaves out unlabelled photos).
    """
    from kiekai.perception import load_perception

    try:
        perception, usable = load_perception(
            "auto" if kind == GAME_LABELS else kind,
            list(cards),
            clip_model=clip_model,
            clip_checkpoint=str(clip_checkpoint) if clip_checkpoint else None,
            echo=echo or (lambda message: print(message, file=sys.stderr)),
            allow_clip=kind != GAME_LABELS,
        )
    except (OSError, ValueError, RuntimeError) as exc:
        raise EvalError(f"cannot load the {kind} perception: {exc}") from None
    return perception, list(usable)


def make_judge(strictness: str = "standard") -> Any:
    """The project's judge, ``kiekai.judge.Judge``, at ``strictness`` (default: standard).

    Raises:
        EvalError: unknown strictness, or the judge's model file is missing or malformed
            (the judge's message says how to rebuild it).
    """
    from kiekai.judge import Judge

    try:
        return Judge(Strictness.parse(strictness))
    except (OSError, ValueError) as exc:
        raise EvalError(f"cannot load the judge: {exc}") from None


def judge_accepts(judge: Any, secret: str, guess: str | None) -> bool:
    """Whether ``judge`` accepts ``guess`` for ``secret`` (False for an empty guess)."""
    if not guess:
        return False
    return bool(judge.match(secret, guess).accepted)


# --------------------------------------------------------------------------- statistics


def share(count: int, total: int) -> float:
    """``count / total`` as a float in [0, 1]; 0.0 when ``total`` is 0."""
    return count / total if total else 0.0


def wilson_interval(count: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval (Wilson 1927) for a proportion ``count / total``.

    Returns:
        ``(low, high)`` in [0, 1]; ``(0.0, 0.0)`` when ``total`` is 0.
    """
    if total <= 0:
        return (0.0, 0.0)
    p = count / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def entropy_bits(items: Iterable[str]) -> float:
    """Shannon entropy, in bits, of the empirical distribution of ``items`` (0 when empty)."""
    counts = Counter(items)
    total = sum(counts.values())
    if not total:
        return 0.0
    return -sum((c / total) * math.log2(c / total) for c in counts.values())


def pct(x: float, digits: int = 1) -> str:
    """``0.8734`` -> ``"87.3%"``."""
    return f"{100 * x:.{digits}f}%"


# --------------------------------------------------------------------------- report pieces


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table; cells are ``str()``-ed, ``|`` escaped."""

    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |"]
    lines.append("| " + " | ".join("---" for _ in headers) + " |")
    for row in rows:
        lines.append("| " + " | ".join(cell(x) for x in row) + " |")
    return "\n".join(lines)


def pyplot() -> Any:
    """matplotlib's pyplot on the non-interactive Agg backend (PNG files, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def package_versions(names: Sequence[str] = REPORTED_PACKAGES) -> dict[str, str]:
    """Installed version of each distribution in ``names`` (``"not installed"`` if absent)."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str] = {}
    for name in names:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine_info() -> dict[str, Any]:
    """The machine a measurement ran on: platform, Python, CPU count, torch threads, GPU
    name (or none), the git commit of the repository (or ``unknown``)."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    try:
        info["affinity_cpus"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        info["affinity_cpus"] = info["cpu_count"]
    try:
        import torch

        info["torch_threads"] = torch.get_num_threads()
        info["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    except Exception:  # torch missing or broken: report rather than crash
        info["torch_threads"] = "n/a"
        info["gpu"] = "n/a"
    info["git_commit"] = git_commit() or "unknown"
    return info


def git_commit() -> str:
    """The checkout's short commit hash (``git rev-parse --short HEAD``); ``""`` outside a
    checkout or without git."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def write_json(path: Path, payload: Any) -> None:
    """Write ``payload`` as indented UTF-8 JSON to ``path`` (parent folders created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n", "utf-8")


def save_figure(fig: Any, path: Path) -> Path:
    """Lay out a matplotlib figure, write it as a PNG at 100 dpi to ``path`` (parent folders
    created), close it to free its memory, and return ``path``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_outputs(
    out: Path,
    name: str,
    result: Any,
    plot: Callable[[Any, Path], Any],
    render_markdown: Callable[[Any, str], str],
) -> None:
    """Write one script's results into ``out``: ``NAME.json`` (the raw figures), ``NAME.png``
    (its plot) and ``NAME.md`` (its Markdown section, which links the PNG); prints the paths."""
    write_json(out / f"{name}.json", result)
    plot(result, out / f"{name}.png")
    (out / f"{name}.md").write_text(render_markdown(result, f"{name}.png") + "\n", "utf-8")
    print(f"wrote {out / (name + '.json')}, {name}.png, {name}.md")


# --------------------------------------------------------------------------- bots


def load_vocabulary() -> Any:
    """The bots' candidate vocabulary, ``kiekai.lexicon.load_vocabulary()`` (a
    ``Vocabulary``: iterating it yields the words, lower case).

    Raises:
        EvalError: the vocabulary file is unreadable or empty.
    """
    from kiekai.lexicon import VocabularyError
    from kiekai.lexicon import load_vocabulary as load

    try:
        vocabulary = load()
    except VocabularyError as exc:
        raise EvalError(f"cannot read the candidate vocabulary: {exc}") from None
    if not len(vocabulary):
        raise EvalError("the candidate vocabulary (kiekai.lexicon.load_vocabulary) is empty")
    return vocabulary


def all_declared_senses() -> dict[str, tuple[str, ...]]:
    """:func:`declared_senses` of the bots' vocabulary."""
    return declared_senses(load_vocabulary())


def candidate_words() -> list[str]:
    """Every vocabulary word a bot may write (``X-less`` forms are derived from them)."""
    return list(load_vocabulary())


def declared_senses(vocabulary: Any) -> dict[str, tuple[str, ...]]:
    """word -> synset names a ``kiekai.lexicon.Vocabulary`` declares (its ``synsets`` column);
    empty for objects without ``words``/``synsets``."""
    words = getattr(vocabulary, "words", None)
    synsets = getattr(vocabulary, "synsets", None)
    if words is None or synsets is None:
        return {}
    return {w: tuple(names) for w, names in zip(words, synsets, strict=False) if names}


def ranked_words(result: Any) -> list[str]:
    """Normalise a ranking (``["cat", ...]`` or ``[("cat", 0.9), ...]`` or objects with a
    ``word`` attribute) to a list of words, best first."""
    words: list[str] = []
    for item in result:
        if isinstance(item, str):
            words.append(item)
        elif isinstance(item, tuple | list):
            words.append(str(item[0]))
        else:
            words.append(str(getattr(item, "word", item)))
    return words
