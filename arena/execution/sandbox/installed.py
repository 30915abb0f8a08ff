"""The files of installed plugin distributions (those with an ``arena`` entry point), found
without importing them.

Every sandbox shows Python's site-packages, so ``arena.execution.sandbox.bubblewrap`` hides these files
from each sandboxed process but the plugin's own: a pip-installed bot is not readable by
the other bots. Everything here reads metadata (``RECORD``, ``top_level.txt``,
``entry_points.txt``) and looks modules up with ``PathFinder.find_spec`` on top-level names
only, which reads folders and runs none of the plugin's code.
"""

from __future__ import annotations

import glob
import importlib.metadata
import os
from dataclasses import dataclass
from importlib.machinery import PathFinder

GROUP = "arena"
_INFO = (".dist-info", ".egg-info", ".data")


@dataclass(frozen=True)
class Installed:
    """One installed distribution that registers ``arena`` plugins."""

    name: str
    """Its distribution name."""
    paths: tuple[str, ...]
    """Absolute paths of its files and folders: its top-level packages and modules (their
    folders, or one level down in a namespace package), their bytecode, its metadata folder,
    and any other file it recorded (scripts, data)."""


def plugin_distributions() -> list[Installed]:
    """Every distribution on sys.path with an ``arena`` entry point, each listed once."""
    out, seen = [], set()
    for dist in importlib.metadata.distributions():
        try:
            points = [ep for ep in dist.entry_points if ep.group == GROUP]
        except Exception:  # unreadable metadata: not a plugin the arena could load either
            continue
        info = getattr(dist, "_path", None)  # its .dist-info folder (a PathDistribution's)
        key = os.path.abspath(str(info)) if info is not None else dist.name
        if not points or key in seen:
            continue
        seen.add(key)
        out.append(Installed(dist.name, tuple(dict.fromkeys(_paths(dist, points, info)))))
    return out


def _paths(dist, points, info) -> list[str]:
    root = os.path.abspath(str(dist.locate_file("")))
    out = [os.path.abspath(str(info))] if info is not None else []
    try:
        recorded = dist.files or ()
    except Exception:
        recorded = ()
    for rel in recorded:
        out.append(_top(root, os.path.abspath(os.path.join(root, str(rel)))))
    names = set((_text(dist, "top_level.txt") or "").split())
    names.update(ep.value.partition(":")[0].strip().split(".")[0] for ep in points)
    for name in filter(str.isidentifier, names):
        out += _module(name, root)
    return [p for p in out if p != root]


def _top(root: str, path: str) -> str:
    """What to hide for a recorded file: the top-level entry of ``root`` it is in (the
    entry below that in ``__pycache__`` or a namespace package, which others share), or
    the file itself outside ``root``."""
    if not path.startswith(root + os.sep):
        return path
    parts = path[len(root) + 1:].split(os.sep)
    first = os.path.join(root, parts[0])
    if len(parts) > 1 and (parts[0] == "__pycache__" or (
        not parts[0].endswith(_INFO) and not os.path.exists(os.path.join(first, "__init__.py"))
    )):
        return os.path.join(first, parts[1])
    return first


def _module(name: str, root: str) -> list[str]:
    """The folder or file of top-level module ``name``, looked for in ``root`` first, then on
    sys.path (an entry point of an editable install), with a single file's bytecode."""
    spec = PathFinder.find_spec(name, [root]) or PathFinder.find_spec(name)
    if spec is None:
        return []
    if spec.submodule_search_locations is not None:
        if not spec.origin or not os.path.isfile(spec.origin):
            return []  # a namespace package, shared: its parts come from the distribution's record
        return [os.path.dirname(os.path.abspath(spec.origin))]
    if not spec.origin or not os.path.isfile(spec.origin):
        return []  # built in, or frozen
    origin = os.path.abspath(spec.origin)
    cache = os.path.join(os.path.dirname(origin), "__pycache__", f"{name}.*.pyc")
    return [origin, *sorted(glob.glob(cache))]


def _text(dist, name: str) -> str | None:
    try:
        return dist.read_text(name)
    except Exception:
        return None
