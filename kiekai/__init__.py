"""kiekai: AI opponents and a synonym judge for the party games Kiek and Kismet.

Entry points: the ``kiekai`` command (:mod:`kiekai.cli`), the judge
(:class:`kiekai.judge.Judge`), the Kiek engine (:mod:`kiekai.kiek.engine`) and the
Kismet engine (:mod:`kiekai.kismet.engine`).
"""

__version__ = "0.1.0"
