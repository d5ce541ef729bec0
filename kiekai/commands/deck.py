"""``kiekai deck``: inspect a photo folder (``info``) and precompute CLIP embeddings (``embed``).

``kiekai deck info PATH`` lists every file of a deck folder with its status: usable cards with
their size, original mode and label; skipped files with the reason; a summary line. Without
PATH it shows the embedded default deck.

``kiekai deck embed PATH`` computes the CLIP image embeddings of every usable card (through
``kiekai.perception.clip.ClipPerception.embed_images``, which caches them on disk by model and
content hash) with a progress bar on stderr, so that the first game on a new deck starts at
once.

Both say on stderr what one-time build they wait for, as ``play``, ``judge`` and ``serve`` do:
the WordNet index that ``info`` checks label wnids against (built on first use, one line
with its estimate, then progress lines), the CLIP photo embeddings of ``embed`` (a tqdm bar
with rate and time left).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import typer

from kiekai.commands import command_resources, path_value

#: Cards handed to ``embed_images`` per call: the progress bar advances once per batch.
EMBED_BATCH = 32

deck_app = typer.Typer(
    name="deck",
    help="Inspect photo decks and precompute their CLIP embeddings.",
    no_args_is_help=True,
)


def _error(message: str) -> None:
    """Print ``message`` to stderr as one ``error:`` line (control characters escaped, see
    :func:`kiekai.display.printable`: paths in it come from the user's file system)."""
    from kiekai.display import printable

    typer.echo(f"error: {printable(message)}", err=True)


def _report_builds() -> None:
    """Put :func:`kiekai.commands.command_resources` in force for this command, with a
    reporter that prints each line of a one-time build (the WordNet index: what is built
    and its estimate, then progress lines) to stderr, control characters escaped."""
    from kiekai.display import printable

    command_resources(report=lambda line: typer.echo(printable(line), err=True))


def _load(path: Path | None, on_skip=None, on_problem=None, known_wnid=None, max_skips_shown=-1):
    """Load the deck at ``path`` (or the default deck); exit 1 with the message on DeckError.

    ``max_skips_shown``: as :func:`kiekai.deck.load_deck` (-1: its default cap)."""
    from kiekai.deck import MAX_PROBLEMS_SHOWN, DeckError, load_deck

    if max_skips_shown == -1:
        max_skips_shown = MAX_PROBLEMS_SHOWN
    try:
        if path is None:
            from kiekai.default_deck import default_deck

            return default_deck(on_skip=on_skip)
        return load_deck(
            path,
            on_skip=on_skip,
            on_problem=on_problem,
            known_wnid=known_wnid,
            max_skips_shown=max_skips_shown,
        )
    except DeckError as exc:
        _error(str(exc))
        raise typer.Exit(1) from None


def _summary(deck) -> str:
    return f"{len(deck.cards)} usable, {len(deck.skipped)} skipped, {len(deck.labelled())} labelled"


@deck_app.command("info")
def info(
    path: Path | None = typer.Argument(
        None,
        help="Deck folder (photos, optionally labels.csv). Omit for the default deck.",
        parser=path_value,
        metavar="PATH",
    ),
    players: int | None = typer.Option(
        None, "--players", min=1, help="Also check the deck is big enough for this many players."
    ),
) -> None:
    """List every file of a deck: usable (size, mode, label, wnid) or skipped (reason).

    Ends with a summary line "N usable, M skipped, L labelled"; with --players, also whether
    the deck holds 4 cards a player + 3 (rulebook, "Preparations"). Exit status 1 when the
    folder cannot be read or (with --players) the deck is too small.
    """
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from kiekai.deck import DeckTooSmallError, WordNetNounIds, check_deck_size
    from kiekai.display import printable, safe_text

    _report_builds()  # checking wnids may build the WordNet index (15-60 s, once)
    problems: list[str] = []
    wordnet = WordNetNounIds()
    deck = _load(
        path,
        on_skip=lambda _rel, _why: None,
        on_problem=problems.append,
        known_wnid=wordnet,
        max_skips_shown=None,  # every file is listed in the table below
    )
    console = Console(soft_wrap=False)
    title = safe_text(path) if path is not None else "(default)"  # a title is Rich markup
    table = Table(title=f"deck {title}", title_justify="left", highlight=False)
    for column in ("file", "status", "details", "label", "wnid"):
        table.add_column(column, overflow="fold")
    rows: list[tuple[str, list[Text]]] = []
    for card in deck.cards:
        rows.append(
            (
                card.id,
                [
                    Text(printable(card.id)),
                    Text("ok", style="green"),
                    Text(f"{card.width}x{card.height} px, {card.format} {card.mode}".strip()),
                    Text(printable(card.label or "-")),
                    Text(card.wnid or "-"),
                ],
            )
        )
    for relative, reason in deck.skipped:
        rows.append(
            (
                relative,
                [
                    Text(printable(relative)),
                    Text("skipped", style="red"),
                    Text(printable(reason)),
                    Text(""),
                    Text(""),
                ],
            )
        )
    for relative in deck.ignored:
        rows.append(
            (
                relative,
                [
                    Text(printable(relative)),
                    Text("ignored", style="yellow"),
                    Text("not a photo type (.jpg .jpeg .png .webp .gif)"),
                    Text(""),
                    Text(""),
                ],
            )
        )
    for _, cells in sorted(rows, key=lambda r: r[0]):
        table.add_row(*cells)
    console.print(table)
    for message in problems:
        console.print(Text(f"warning: {printable(message)}", style="yellow"))
    if wordnet.unavailable is not None:
        console.print(
            Text(
                f"note: wnids were not checked against WordNet ({printable(wordnet.unavailable)})",
                style="yellow",
            )
        )
    console.print(Text(_summary(deck)))
    if players is not None:
        try:
            needed = check_deck_size(deck, players)
        except DeckTooSmallError as exc:
            _error(str(exc))
            raise typer.Exit(1) from None
        console.print(
            Text(f"enough for {players} player{'' if players == 1 else 's'} ({needed} cards dealt)")
        )


def _batches(items: Sequence, size: int) -> list[Sequence]:
    return [items[i : i + size] for i in range(0, len(items), size)]


@deck_app.command("embed")
def embed(
    path: Path | None = typer.Argument(
        None,
        help="Deck folder (photos, optionally labels.csv). Omit for the default deck.",
        parser=path_value,
        metavar="PATH",
    ),
    clip_model: str | None = typer.Option(
        None, "--clip-model", help="open_clip architecture, e.g. ViT-B-32 (default: registry)."
    ),
    clip_checkpoint: Path | None = typer.Option(
        None,
        "--clip-checkpoint",
        help="Local open_clip checkpoint file (no download).",
        parser=path_value,
        metavar="PATH",
    ),
) -> None:
    """Compute and cache the CLIP image embeddings of every usable photo of a deck (a progress
    bar on stderr).

    Embeddings are cached on disk by CLIP model and photo content hash (SHA-256), so a second
    run is instant. Skipped files are reported once each. When CLIP cannot be loaded, its
    message (what is missing and how to fix it) is printed and the exit status is 1; so it is
    when the deck has no usable photo (CLIP is then not loaded at all).
    """
    from tqdm.auto import tqdm

    from kiekai.display import printable
    from kiekai.models import ModelUnavailable

    def report_skip(relative: str, reason: str) -> None:
        typer.echo(f"warning: {printable(relative)}: skipped, {printable(reason)}", err=True)

    def report_problem(message: str) -> None:
        typer.echo(f"warning: {printable(message)}", err=True)

    _report_builds()
    deck = _load(path, on_skip=report_skip, on_problem=report_problem)
    if not deck.cards:  # nothing to do: do not spend seconds loading CLIP
        _error(
            f"no usable photo to embed ({_summary(deck)}); the warnings above name each "
            f"skipped file and why"
        )
        raise typer.Exit(1)
    try:
        from kiekai.perception.clip import ClipPerception
    except ImportError as exc:
        _error(f"CLIP perception is not available in this installation ({exc})")
        raise typer.Exit(1) from None
    try:
        perception = ClipPerception(
            model_name=clip_model,
            checkpoint=str(clip_checkpoint) if clip_checkpoint is not None else None,
            progress=False,  # one progress bar: ours, advanced per batch
        )
        total = 0
        dims = 0
        unreadable: list[str] = []

        def report_unreadable(card_id: str, reason: str) -> None:
            unreadable.append(card_id)
            report_skip(card_id, reason)

        # the bar of play's first CLIP pass (tqdm, stderr: count, rate, time left), here
        # over every card, cached or not
        with tqdm(
            total=len(deck.cards), desc="CLIP: embedding photos", unit="photo", file=sys.stderr
        ) as bar:
            for batch in _batches(deck.cards, EMBED_BATCH):
                vectors = perception.embed_images(
                    list(batch), progress=False, on_skip=report_unreadable
                )
                total += len(vectors)
                dims = int(vectors.shape[1]) if len(vectors) else dims
                bar.update(len(batch))
    except ModelUnavailable as exc:
        _error(str(exc))
        raise typer.Exit(1) from None
    failed = f", {len(unreadable)} could not be decoded (see above)" if unreadable else ""
    typer.echo(
        f"embedded {total - len(unreadable)} photos ({dims} dimensions){failed}; {_summary(deck)}"
    )


def register(app: typer.Typer) -> None:
    """Add the ``deck`` sub-commands (``info``, ``embed``) to the ``kiekai`` app."""
    app.add_typer(deck_app, name="deck")
