"""Evaluation of the Kiek bots and perception (what ``make eval`` and ``scripts/eval_*.py`` run).

- :mod:`kiekai.eval.common`: rounds files, WordNet ground truth (:class:`~kiekai.eval.common.Taxonomy`),
  statistics, report pieces.
- :mod:`kiekai.eval.quality`: how people-like the bots' words are, from game logs (the
  held-out check's measures: word frequency, rare and ``X-less`` shares, guessers'
  unanimity, truth by a deck's labels).
- :mod:`kiekai.eval.selfplay`: bot-only games per level through the real engine, with logs,
  the quality measures, the score spread and the bots' thinking time per turn.
- :mod:`kiekai.eval.guesser`: the guesser on rounds files beside a WordNet baseline.
- :mod:`kiekai.eval.active`: the active bot's truthfulness turn by turn in engine games, and the self-play
  quality table per level.
- :mod:`kiekai.eval.perception`, :mod:`kiekai.eval.tournament`: perception accuracy and speed;
  mixed-level tournaments.
- :mod:`kiekai.eval.report`: ``docs/EVALUATION.md`` from all of these (``make eval``).
"""
