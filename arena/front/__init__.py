"""The front: what a person or a script drives.

The command line (``cli``), tournament settings from defaults, TOML files and flags
(``settings``), tournaments and their schedules (``tournament``), and running one into a
results database (``run``). The only layer that imports ``results``.
"""
