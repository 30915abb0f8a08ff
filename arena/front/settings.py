"""Tournament settings from an embedded default, a TOML file and command-line flags (in that order)."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.adjudication import Adjudication, DrawRule, ResignRule
from arena.budget import KEYS as BUDGET_KEYS, Budget
from arena.errors import ArenaError, ParameterError
from arena.front.openings import OpeningBook
from arena.formats import format_class, formats
from arena.formats.base import Format
from arena.formats.sprt import Sprt
from arena.formats.sprt import build_test
from arena.front.options import defaults
from arena.front.tournament import Entrant, TournamentConfig


class ConfigError(ArenaError, ValueError):
    """A tournament file or setting that cannot be used."""


class UsageError(ArenaError):
    """A command line that cannot be run as given."""


#: The tournament ``arena run`` plays with no arguments: the five search bots at Connect Four.
#: Read from the settings table (``arena.front.options``), as every default shown is.
DEFAULT_SETTINGS: dict[str, Any] = defaults("run")
KEYS = tuple(DEFAULT_SETTINGS)
#: What ``arena sprt`` plays with no file and no flags but NEW and BASE.
SPRT_SETTINGS: dict[str, Any] = defaults("sprt")


@dataclass(frozen=True)
class RunSettings:
    """How a tournament is run; none of it changes the games played."""

    database: Path
    jobs: int
    dask: str | None = None
    progress: bool = True
    affinity: bool = False
    """Each worker (with one job, this process) on one CPU; see ``arena.execution.executors``."""


def load_file(path: str | os.PathLike, keys: tuple[str, ...] = KEYS) -> dict[str, Any]:
    """The settings in a TOML file, checked for keys not among ``keys``."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"tournament file {str(path)!r} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"tournament file {str(path)!r} is not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read tournament file {str(path)!r}: {exc}") from None
    unknown = [k for k in data if k not in keys]
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r} in {str(path)!r}; settings: {', '.join(keys)}")
    return data


def settings(
    file: str | None = None, overrides: dict[str, Any] | None = None, defaults: dict[str, Any] = DEFAULT_SETTINGS
) -> dict[str, Any]:
    """Defaults, then the file, then the overrides that are not None. A clock (``tc``) given
    where no budget is given makes the budget the clock alone, not the default budget and it."""
    merged = dict(defaults)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    if file is not None:
        data = load_file(file, tuple(defaults))
        merged.update(data)
        given = {**data, **given}
    merged.update(given)
    if given.get("tc") is not None and "budget" not in given and "budget" in merged:
        merged["budget"] = "none"
    return merged


def build(values: dict[str, Any]) -> tuple[TournamentConfig, RunSettings]:
    """Turn merged settings into a tournament config and run settings (types checked here)."""
    bots = values["bots"]
    if not isinstance(bots, list) or not bots:
        raise ConfigError(f"bots must be a list of bot specs (or tables with spec, name, budget), got {bots!r}")
    # the checks of this module first, then those of the budget and the format
    games = _int(values, "games")
    memory = None if values["memory_limit"] is None else _int(values, "memory_limit") or None  # 0: no limit
    limits = dict(time_margin=_number(values, "time_margin"), watchdog=_number(values, "watchdog"),
                  memory_limit=memory, output_limit=_int(values, "output_limit"), sandbox=_bool(values, "sandbox"))
    fields = dict(game=_text(values, "game"), seed=_int(values, "seed"), isolate=_bool(values, "isolate"),
                  independent_chance=_bool(values, "independent_chance"), trusted=_bool(values, "trusted"), name=None if values["name"] is None else _text(values, "name"))
    jobs = values.get("jobs")
    if jobs is None:
        jobs = os.cpu_count() or 1
    elif not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ConfigError(f"jobs must be a whole number of at least 1, got {jobs!r}")
    database = values["database"]
    if not isinstance(database, (str, os.PathLike)) or not str(database):
        raise ConfigError(f"database must be a file path, got {database!r}")
    run = RunSettings(Path(database), jobs, values.get("dask"), values.get("progress", True), values.get("affinity", False))
    plies, book = _openings(values)
    entrants = tuple(_entrant(b) for b in bots)
    budget = with_clock(values)
    fmt = _format(values)
    if fmt.games_per_round is not None and games == DEFAULT_SETTINGS["games"]:
        games = fmt.games_per_round  # a format paired round by round plays each pairing's round as a pair
    config = TournamentConfig(bots=entrants, budget=budget, games_per_pairing=games, opening_plies=plies,
                              opening_book=book, format=fmt, adjudication=_adjudication(values),
                              **fields, **limits)  # the limits checked by Limits
    return config, run


def build_sprt(values: dict[str, Any]) -> tuple[TournamentConfig, RunSettings]:
    """Turn merged ``arena sprt`` settings (see SPRT_SETTINGS) into a tournament config of the sprt format."""
    missing = [k for k in ("new", "base") if values.get(k) is None]
    if missing:
        raise ConfigError(f"an SPRT needs two bots, new and base: give {' and '.join(m.upper() for m in missing)} (arena sprt NEW BASE)")
    try:
        test = build_test(values)
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None
    max_games = _int(values, "max_games")
    if max_games < 2 or max_games % 2:
        raise ConfigError(f"max-games must be an even number of at least 2 (games come in pairs), got {max_games}")
    rest = {k: v for k, v in values.items() if k not in ("new", "base", "max_games", *(s.key for s in Sprt.settings))}
    return build({**rest, "bots": [values["new"], values["base"]], "games": max_games, "format": Sprt.name,
                  "challengers": [], "sprt": test})


def _format(values) -> Format:
    """The tournament's format, built from its settings; ConfigError for another format's settings."""
    name = values.get("format")
    if not isinstance(name, str):
        raise ConfigError(f"format must be non-empty text, got {name!r}")
    try:
        cls = format_class(name.strip())
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None
    for other in formats().values():
        given = [s.key for s in other.settings if "run" in s.commands and values.get(s.key) not in (None, [], ())]
        if other is not cls and given:
            raise ConfigError(other.misplaced(given))
    try:
        return cls.build(values)
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None


def _openings(values) -> tuple[int, OpeningBook | None]:
    """Random opening plies, or the openings file (``openings`` as a path) and no random plies;
    ``plies``: the plies kept of each game of a PGN openings file."""
    v, shuffle, plies = values["openings"], _bool(values, "shuffle"), values.get("plies")
    if plies is not None and (not isinstance(plies, int) or isinstance(plies, bool) or plies < 0):
        raise ConfigError(f"plies must be a whole number, 0 or more, got {plies!r}")
    if isinstance(v, str) and v.strip().lstrip("+-").isdigit():  # "-1": a bad number of plies, not a file
        v = int(v)
    if isinstance(v, str) and v.strip():
        return 0, OpeningBook.read(v.strip(), shuffle, plies)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ConfigError(f"openings must be a number of random plies or an openings file's path, got {v!r}")
    if shuffle:
        raise ConfigError("shuffle is for an openings file: give openings as a file's path")
    if plies is not None:
        raise ConfigError("plies is for a PGN openings file: give openings as a .pgn file's path")
    return v, None


def with_clock(values) -> Budget:
    """The default budget, with the ``tc`` setting's clock in it where one is given."""
    budget = _budget(values["budget"], "budget")
    tc = values.get("tc")
    if tc is None:
        return budget
    if not isinstance(tc, str) or not tc.strip():
        raise ConfigError(f"tc must be a time control such as 10+0.1, got {tc!r}")
    fields = {k: getattr(budget, k) for k in BUDGET_KEYS if k != "tc"}
    return _budget({**{k: v for k, v in fields.items() if v is not None}, "tc": tc.strip()}, "tc")


def _adjudication(values) -> Adjudication | None:
    """The adjudication settings (``draw``, ``resign``, ``maxmoves``), or None if none is set."""
    draw, resign, most = values.get("draw"), values.get("resign"), values.get("maxmoves")
    if draw is None and resign is None and most is None:
        return None
    try:
        return Adjudication(None if draw is None else DrawRule.parse(draw), None if resign is None else ResignRule.parse(resign),
                            None if most is None else _int(values, "maxmoves"))
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None


def parse_entrant(text: str) -> Entrant:
    """``SPEC``, ``NAME=SPEC``, optionally followed by ``@BUDGET`` (e.g. ``ab=alphabeta:depth=4@nodes=500``)."""
    text = text.strip()
    body, sep, budget = text.partition("@")
    equals, colon = body.find("="), body.find(":")
    if equals != -1 and (colon == -1 or equals < colon):
        name, spec = body[:equals].strip(), body[equals + 1 :].strip()
        if not name:
            raise ConfigError(f"bad bot {text!r}: empty display name before '='")
    else:
        name = spec = body.strip()
    if not spec:
        raise ConfigError(f"bad bot {text!r}: no bot spec")
    return Entrant(name, spec, _budget(budget, f"budget of bot {name!r}") if sep else None)


def _entrant(item) -> Entrant:
    if isinstance(item, str):
        return parse_entrant(item)
    if isinstance(item, dict):
        unknown = [k for k in item if k not in ("spec", "name", "budget")]
        if unknown or not isinstance(item.get("spec"), str):
            raise ConfigError(f"bad bot entry {item!r}; expected a table with spec and optional name, budget")
        spec = item["spec"].strip()
        name = item.get("name", spec)
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"bad display name {name!r} for bot {spec!r}")
        budget = item.get("budget")
        return Entrant(name.strip(), spec, None if budget is None else _budget(budget, f"budget of bot {name!r}"))
    raise ConfigError(f"bad bot entry {item!r}; expected a spec string or a table")


def _budget(value, what: str) -> Budget:
    try:
        if isinstance(value, Budget):
            return value
        if isinstance(value, str):
            return Budget.parse(value)
        if isinstance(value, dict):
            unknown = [k for k in value if k not in BUDGET_KEYS]
            if unknown:
                raise ParameterError(f"unknown budget key {unknown[0]!r}; keys: {', '.join(BUDGET_KEYS)}")
            return Budget(**value)
    except ParameterError as exc:
        raise ConfigError(f"{what}: {exc}") from None
    raise ConfigError(f"{what}: expected text like 'nodes=1000' or a table, got {value!r}")


def _int(values, key) -> int:
    v = values[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise ConfigError(f"{key} must be a whole number, got {v!r}")
    return v


def _number(values, key) -> float:
    v = values[key]
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise ConfigError(f"{key} must be a number, got {v!r}")
    return float(v)


def _bool(values, key) -> bool:
    v = values[key]
    if not isinstance(v, bool):
        raise ConfigError(f"{key} must be true or false, got {v!r}")
    return v


def _text(values, key) -> str:
    v = values[key]
    if not isinstance(v, str) or not v.strip():
        raise ConfigError(f"{key} must be non-empty text, got {v!r}")
    return v.strip()


def _texts(values, key) -> list[str]:
    v = values[key]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{key} must be a list of names, got {v!r}")
    return [x.strip() for x in v]
