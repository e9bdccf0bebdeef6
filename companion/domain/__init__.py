"""What a game is as data: its entries, how they fold into state, its log file, its CSV.

Everything here is pure: no clock, no database. The flow is
entry (:mod:`.entry`) -> log (:mod:`.gamelog`, :mod:`companion.store`) -> fold
(:mod:`.fold`) -> views (the engines' ``view``, :mod:`.csvexport`).
:mod:`companion.store` keeps the entries, :mod:`companion.table` wires the two together.
"""
