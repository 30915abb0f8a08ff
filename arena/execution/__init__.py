"""Execution: where games are played.

Worker processes (``pool``, ``worker``), bots supervised in processes of their own
(``isolation`` and the ``host`` it starts), and the executors a tournament runs on
(``executors``: this machine, or a Dask cluster). Built on the arena core only; it
knows nothing of tournaments' settings or of the results database: a game arrives as a
``GameTask`` and leaves as whatever the caller's ``prepare`` function makes of its record.
"""
