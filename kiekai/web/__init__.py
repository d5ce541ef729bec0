"""Kiek at a table in the browser: several people and bots, each person on their own link.

- :mod:`kiekai.web.table`: the table's shared state and the people's seats
  (:class:`~kiekai.web.table.WebHumanPlayer`, the same player protocol as the terminal).
- :mod:`kiekai.web.app`: the FastAPI app (server-rendered Jinja2 pages, form posts,
  server-sent events, photos by content hash).
- :mod:`kiekai.web.server`: the server thread, the lobby and the game
  (:func:`~kiekai.web.server.run_web_game`), used by ``kiekai play --web``.
"""
