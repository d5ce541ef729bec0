"""Reading a photo folder (recursively) and its optional labels.csv into a :class:`Deck`.

Every file that cannot become a card is *skipped* with one reason (never a crash): the
photos are validated by :func:`kiekai.deck.decode.read_card`, the labels read by
:func:`kiekai.deck.labels.read_labels`.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from kiekai.deck.decode import MAX_PIXELS, MIN_SIDE, read_card
from kiekai.deck.labels import LABELS_FILE, KnownWnid, read_labels
from kiekai.deck.model import (
    Card,
    Deck,
    DeckError,
    OnProblem,
    OnSkip,
    PhotoError,
    warn_problem,
    warn_skipped,
)

#: File-name suffixes (compared case-insensitively) that are read as photos.
PHOTO_SUFFIXES: frozenset[str] = frozenset({".jpg", ".jpeg", ".png", ".webp", ".gif"})


#: labels.csv and folder problems passed on to ``on_problem`` one by one; beyond these, one
#: line says how many more there are (a labels.csv of a whole dataset dropped into a folder
#: of a few of its photos named 200,000 missing files, one warning each, for a minute).
#: :attr:`Deck.problems` keeps them all.
MAX_PROBLEMS_SHOWN: int = 20


def _walk_files(root: Path, on_problem: OnProblem | None = None) -> list[str]:
    """Relative ``/``-separated paths of every non-hidden file under ``root`` (no symlinked dirs).

    A sub-folder that cannot be listed (permission denied) is reported through ``on_problem``
    (its photos are left out) instead of vanishing silently.
    """
    found: list[str] = []

    def unreadable(error: OSError) -> None:
        folder = Path(error.filename or "?")
        try:
            name = folder.relative_to(root).as_posix()
        except ValueError:
            name = str(folder)
        if on_problem is not None:
            on_problem(
                f"folder {name} cannot be read ({error.strerror or error}); its photos are "
                f"left out (make it readable, e.g. 'chmod -R u+rX')"
            )

    for directory, subdirs, files in os.walk(root, onerror=unreadable, followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in files:
            if name.startswith("."):
                continue
            rel = Path(directory, name).relative_to(root).as_posix()
            found.append(rel)
    return sorted(found)


def load_deck(
    path: str | os.PathLike[str],
    *,
    on_skip: OnSkip | None = None,
    on_problem: OnProblem | None = None,
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
    known_wnid: KnownWnid | None = None,
    max_skips_shown: int | None = MAX_PROBLEMS_SHOWN,
    decode: bool = True,
) -> Deck:
    """Read a photo folder (recursively) and its optional labels.csv into a :class:`Deck`.

    Photos are files ending in .jpg, .jpeg, .png, .webp or .gif (any case); each is hashed
    (SHA-256 of its bytes) and validated by decoding it once (validation results are cached
    by hash within the process). Hidden files and folders (``.name``) are not read.

    Args:
        path: the deck folder.
        on_skip: called as ``on_skip(relative_path, reason)`` once per skipped photo, for
            the first ``max_skips_shown``; beyond these, ``on_problem`` is told once how many
            more photos were skipped (:attr:`Deck.skipped` has them all); default: one
            :class:`DeckWarning` per skipped photo told.
        on_problem: called with one message per labels.csv problem (row naming a missing
            photo, malformed wnid, duplicate row, empty file) and per sub-folder that cannot
            be listed, for the first :data:`MAX_PROBLEMS_SHOWN`, then once with how many more
            there are (:attr:`Deck.problems` has them all); default: a :class:`DeckWarning`.
        max_pixels: decompression-bomb limit (width x height, pixels); larger photos are skipped.
        min_side: photos with a side under this many pixels (after EXIF rotation) are skipped.
        known_wnid: checks each well-formed wnid of labels.csv (e.g. :class:`WordNetNounIds`);
            one it rejects is reported and ignored. ``None``: wnids are checked for their
            form only (no WordNet needed).
        max_skips_shown: how many skipped photos are passed to ``on_skip`` one by one
            (default :data:`MAX_PROBLEMS_SHOWN`, the cap of labels.csv's problems: a folder
            of 100,000 empty ``.jpg`` files printed 100,000 lines); ``None``: every one
            (``kiekai deck info``, which lists each file anyway).
        decode: validate each photo by decoding it whole (``kiekai deck info``, which lists
            every file's status); ``False``: by its header alone
            (:func:`kiekai.deck.decode.inspect_header`, about 20-50x faster), for a game,
            which perceives only the photos it deals and replaces one that fails then.

    Returns:
        The deck, cards sorted by id.

    Raises:
        DeckError: the path is missing or not a folder, the folder has no photo files at
            all, or labels.csv is unreadable (see :func:`read_labels`).
    """
    root = Path(path).expanduser()
    if not root.exists():
        if root.is_symlink():
            raise DeckError(
                f"deck folder {root} is a symbolic link that leads to no folder (its target is "
                f"missing, or links loop); point it at a folder of photos or give that folder"
            )
        raise DeckError(f"deck folder {root} does not exist; give the path of a folder of photos")
    if not root.is_dir():
        raise DeckError(
            f"{root} is a file, not a folder; give the folder that holds the photos "
            f"(and optionally labels.csv)"
        )
    root = root.resolve()
    tell_skip = on_skip or warn_skipped
    problems: list[str] = []
    report = on_problem or warn_problem
    skipped = 0

    def skip(relative: str, reason: str) -> None:
        nonlocal skipped
        skipped += 1
        if max_skips_shown is None or skipped <= max_skips_shown:
            tell_skip(relative, reason)

    def problem(message: str) -> None:
        problems.append(message)
        if len(problems) <= MAX_PROBLEMS_SHOWN:
            report(message)

    try:
        return _read_deck(root, skip, problem, labels_path=root / LABELS_FILE, problems=problems,
                          max_pixels=max_pixels, min_side=min_side, known_wnid=known_wnid,
                          decode=decode)  # fmt: skip
    finally:
        if max_skips_shown is not None and skipped > max_skips_shown:
            report(
                f"... and {skipped - max_skips_shown:,} more photos skipped, {skipped:,} in "
                f"all (the first {max_skips_shown} are named; 'kiekai deck info' lists every "
                "file with its reason)"
            )
        if len(problems) > MAX_PROBLEMS_SHOWN:
            report(
                f"... and {len(problems) - MAX_PROBLEMS_SHOWN:,} more problems like these, "
                f"{len(problems):,} in all (the first {MAX_PROBLEMS_SHOWN} are shown; a "
                f"labels.csv copied from a larger deck names many missing files: keep the rows "
                f"of this folder's photos)"
            )


def _read_deck(
    root: Path,
    skip: OnSkip,
    problem: OnProblem,
    *,
    labels_path: Path,
    problems: list[str],
    max_pixels: int,
    min_side: int,
    known_wnid: KnownWnid | None,
    decode: bool = True,
) -> Deck:
    """The body of :func:`load_deck` once ``root`` is a folder (arguments as there)."""
    has_labels = os.path.lexists(labels_path)
    labels = read_labels(labels_path, problem, known_wnid=known_wnid) if has_labels else {}

    files = _walk_files(root, problem)
    photos = [f for f in files if PurePosixPath(f).suffix.lower() in PHOTO_SUFFIXES]
    photo_set = set(photos)
    ignored = [f for f in files if f not in photo_set and f != LABELS_FILE]
    if not photos:
        raise DeckError(
            f"deck folder {root} has no photos (.jpg, .jpeg, .png, .webp or .gif, searched in "
            f"sub-folders too); put photos in it or give another folder"
        )

    cards: list[Card] = []
    skipped: list[tuple[str, str]] = []
    for relative in photos:
        row = labels.get(relative)
        try:
            card = read_card(
                root / relative,
                relative,
                label=row.label if row else None,
                wnid=row.wnid if row else None,
                extra=row.extra if row else (),
                max_pixels=max_pixels,
                min_side=min_side,
                decode=decode,
            )
        except PhotoError as exc:
            skipped.append((relative, str(exc)))
            skip(relative, str(exc))
            continue
        cards.append(card)

    by_folded = {f.casefold(): f for f in photos}
    for relative, row in labels.items():
        if relative not in photo_set:
            near = by_folded.get(relative.casefold())
            hint = f" ({near!r} exists (names are case-sensitive))" if near else ""
            problem(
                f"{LABELS_FILE} line {row.line}: file {relative!r} is not a photo in {root}"
                f"{hint}; fix the path (relative to the deck folder) or delete the row"
            )
    return Deck(root=root, cards=cards, skipped=skipped, ignored=ignored, problems=problems)
