"""Perception backends (how bots see photos) and the choice between them.

* ``clip`` (:class:`kiekai.perception.clip.ClipPerception`): zero-shot CLIP scores for any
  photo; needs CLIP weights (see ``docs/models.md``).
* ``labels`` (:class:`kiekai.perception.labels.LabelsPerception`): scores from the deck's
  labels.csv through WordNet; needs a label or wnid per photo.
* ``auto``: CLIP when its weights load, else labels.

:func:`load_perception` makes the choice and says, in one line, which backend was chosen and
why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from kiekai.deck import Card
from kiekai.perception.base import Perception

KINDS = ("auto", "clip", "labels")

__all__ = ["KINDS", "Perception", "PerceptionUnavailable", "load_perception"]


class PerceptionUnavailable(RuntimeError):
    """No perception backend can score this deck; the message names both fixes."""


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


def _labels(
    cards: Sequence[Card], echo: Callable[[str], object], why: str
) -> tuple[Perception, list[Card]]:
    from kiekai.perception.labels import LabelsPerception

    usable = LabelsPerception.usable(cards)
    if not usable:
        raise PerceptionUnavailable(
            f"None of the {len(cards)} photos has a label or wnid, and {why}. "
            f"Fix: {_labels_fix()}; or {_clip_fix()}."
        )
    kept = {card.id for card in usable}
    for card in cards:
        if card.id not in kept:
            echo(f"perception labels: left out {card.id} (no label or wnid in labels.csv)")
    echo(f"perception: labels ({len(usable)} of {len(cards)} photos labelled; {why})")
    return LabelsPerception(usable), usable


def load_perception(
    kind: str,
    cards: Sequence[Card],
    *,
    clip_model: str | None = None,
    clip_checkpoint: str | Path | None = None,
    echo: Callable[[str], object] = print,
) -> tuple[Perception, list[Card]]:
    """Choose and build the perception for a deck.

    Args:
        kind: ``"clip"`` (CLIP or an error), ``"labels"`` (labels.csv or an error) or
            ``"auto"`` (CLIP when its weights load, else labels).
        cards: the deck's cards.
        clip_model, clip_checkpoint: ``--clip-model`` / ``--clip-checkpoint`` for
            :func:`kiekai.models.load_clip`.
        echo: receives one line naming the chosen backend and why, plus one line per photo
            left out (labels only: photos without a label or wnid).

    Returns:
        ``(perception, usable_cards)``: the backend and the cards it can score (all of them for
        CLIP; the labelled ones for labels), in deck order.

    Raises:
        ValueError: ``kind`` is not one of :data:`KINDS`.
        kiekai.models.ModelUnavailable: ``kind == "clip"`` and the weights cannot be loaded
            (ImportError when open_clip itself is not installed).
        PerceptionUnavailable: labels were chosen (or CLIP failed under ``auto``) and no photo
            has a label; the message names both fixes (labels.csv, CLIP weights).
    """
    from kiekai.models import ModelUnavailable

    if kind not in KINDS:
        raise ValueError(f"unknown perception {kind!r}; choose one of {', '.join(KINDS)}")
    if kind == "labels":
        return _labels(cards, echo, "--perception labels was chosen")
    checkpoint = str(clip_checkpoint) if clip_checkpoint is not None else None
    try:
        from kiekai.perception.clip import ClipPerception

        perception = ClipPerception(cards, model_name=clip_model, checkpoint=checkpoint)
    except (ModelUnavailable, ImportError) as exc:  # ImportError: open_clip/torch not installed
        if kind == "clip":
            raise
        return _labels(cards, echo, f"CLIP is unavailable ({_first_sentence(str(exc))})")
    reason = "--perception clip was chosen" if kind == "clip" else "its weights loaded"
    echo(f"perception: clip ({perception.model_key}; {reason})")
    return perception, list(cards)
