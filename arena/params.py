"""Declared keyword parameters for games and bots: listed, parsed from text, validated.

A class declares each parameter as an annotated class attribute::

    class Nim(Game):
        heaps: tuple[int, ...] = param((3, 4, 5), "heap sizes", min=0)
        misere: bool = param(False, "whoever takes the last object loses")

Instances are then built with keywords (``Nim(heaps=(1, 2))``) or from a spec string
(``"nim:heaps=1,2,misere=true"``), and every value is checked against its declaration.
"""

from __future__ import annotations

import math

import types
import typing
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ParameterError

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class Param:
    """The declaration of one keyword parameter."""

    default: Any
    """Value used when the parameter is not given."""
    help: str
    """One line saying what the parameter does."""
    min: float | None = None
    """Smallest allowed value (for tuples: of each item)."""
    max: float | None = None
    """Largest allowed value (for tuples: of each item)."""
    choices: tuple | None = None
    """The only allowed values, if set."""
    name: str = ""
    """Filled in from the attribute name."""
    type: Any = None
    """Filled in from the annotation: int, float, bool, str, tuple[int, ...], or X | None."""
    optional: bool = field(default=False)
    """True when the annotation admits None."""

    @property
    def type_name(self) -> str:
        base = _base_type(self.type)
        name = "tuple[int]" if base is tuple else getattr(base, "__name__", str(base))
        return name + (" | None" if self.optional else "")

    def describe(self) -> dict:
        """A JSON-ready description for listings."""
        out = {"name": self.name, "type": self.type_name, "default": _plain(self.default), "help": self.help}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        return out

    def parse(self, text: str, owner: str = "") -> Any:
        """Turn command-line text into a value, then validate it."""
        text = text.strip()
        base = _base_type(self.type)
        if self.optional and text.lower() in ("none", "null", ""):
            return self.validate(None, owner)
        try:
            if base is bool:
                low = text.lower()
                if low not in _TRUE | _FALSE:
                    raise ValueError
                value = low in _TRUE
            elif base is tuple:
                parts = [p for p in text.strip("()[]").replace(",", " ").split()]
                value = tuple(int(p) for p in parts)
            elif base is int:
                value = int(text)
            elif base is float:
                value = float(text)
            else:
                value = text
        except ValueError:
            raise ParameterError(
                f"bad value {text!r} for parameter {self.name!r}{_of(owner)}; expected {self.type_name}"
            ) from None
        return self.validate(value, owner)

    def validate(self, value: Any, owner: str = "") -> Any:
        """Check a Python value against the declaration; return it normalised."""
        base = _base_type(self.type)
        where = f"parameter {self.name!r}{_of(owner)}"
        if value is None:
            if self.optional:
                return None
            raise ParameterError(f"{where} cannot be None; expected {self.type_name}")
        if base is tuple:
            if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
                raise ParameterError(f"bad value {value!r} for {where}; expected a sequence of integers")
            value = tuple(value)
            items = value
        elif base is float:
            if not (_is_int(value) or isinstance(value, float)):
                raise ParameterError(f"bad value {value!r} for {where}; expected a number")
            value = float(value)
            if not math.isfinite(value):
                raise ParameterError(f"bad value {value!r} for {where}; expected a finite number")
            items = (value,)
        elif base is int:
            if not _is_int(value):
                raise ParameterError(f"bad value {value!r} for {where}; expected an integer")
            items = (value,)
        elif base is bool:
            if not isinstance(value, bool):
                raise ParameterError(f"bad value {value!r} for {where}; expected true or false")
            items = ()
        else:
            if not isinstance(value, base):
                raise ParameterError(f"bad value {value!r} for {where}; expected {self.type_name}")
            items = ()
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise ParameterError(f"bad value {value!r} for {where}; choose one of: {allowed}")
        for item in items:
            if self.min is not None and item < self.min:
                raise ParameterError(f"bad value {value!r} for {where}; must be at least {self.min}")
            if self.max is not None and item > self.max:
                raise ParameterError(f"bad value {value!r} for {where}; must be at most {self.max}")
        return value


def param(default: Any, help: str, *, min=None, max=None, choices=None) -> Any:
    """Declare a keyword parameter (see the module docstring)."""
    return Param(default, help, min=min, max=max, choices=tuple(choices) if choices else None)


class Configurable:
    """Base for classes built from declared keyword parameters (games and bots)."""

    name: typing.ClassVar[str] = ""
    """Registered name, used in specs and results tables."""
    description: typing.ClassVar[str] = ""
    """One line shown in listings."""
    kind: typing.ClassVar[str] = "object"
    parameters: typing.ClassVar[dict[str, Param]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        hints = typing.get_type_hints(cls)
        # a base's declarations were replaced by their defaults when it was made: inherit
        # them from its ``parameters``, then add or override those declared here
        declared = {}
        for klass in reversed(cls.__mro__[1:]):
            declared.update(vars(klass).get("parameters", {}))
        found = {}
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                if isinstance(value, Param):
                    found[attr] = value
        for attr, p in found.items():
            hint = hints.get(attr, type(p.default))
            optional = _is_optional(hint)
            p = Param(p.default, p.help, p.min, p.max, p.choices, attr, _strip_none(hint), optional)
            declared[attr] = p
            setattr(cls, attr, p.default)
        cls.parameters = declared

    def __init__(self, **params: Any):
        unknown = [k for k in params if k not in self.parameters]
        if unknown:
            raise ParameterError(
                f"unknown parameter {unknown[0]!r} for {self.kind} {self.name!r}; "
                f"{_available(self.parameters)}"
            )
        for attr, p in self.parameters.items():
            value = params.get(attr, p.default)
            setattr(self, attr, p.validate(value, f"{self.kind} {self.name!r}"))

    @property
    def params(self) -> dict[str, Any]:
        """Current values of every declared parameter."""
        return {attr: getattr(self, attr) for attr in self.parameters}

    @property
    def spec(self) -> str:
        """A spec string that rebuilds this object: the name plus non-default parameters."""
        changed = [
            f"{k}={format_value(v)}" for k, v in self.params.items() if v != self.parameters[k].default
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    @classmethod
    def parse_params(cls, params: dict[str, str]) -> dict[str, Any]:
        """Parse text values, as given on a command line, into checked Python values."""
        owner = f"{cls.kind} {cls.name!r}"
        values = {}
        for key, text in params.items():
            if key not in cls.parameters:
                raise ParameterError(f"unknown parameter {key!r} for {owner}; {_available(cls.parameters)}")
            values[key] = cls.parameters[key].parse(text, owner)
        return values

    @classmethod
    def describe(cls) -> dict:
        """A JSON-ready description: name, description and parameters."""
        return {
            "name": cls.name,
            "description": cls.description,
            "parameters": [p.describe() for p in cls.parameters.values()],
        }

    def bad_parameter(self, attr: str, why: str) -> ParameterError:
        """An error for a value that fails a check involving several parameters."""
        return ParameterError(
            f"bad value {getattr(self, attr)!r} for parameter {attr!r} of {self.kind} {self.name!r}; {why}"
        )

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and the text values.

    A comma-separated piece without ``=`` continues the previous value, so tuples read
    naturally: ``"nim:heaps=3,4,5,misere=true"``.
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if not name:
        raise ParameterError(f"bad spec {spec!r}; expected name or name:key=value,...")
    params: dict[str, str] = {}
    last = None
    for piece in rest.split(",") if rest.strip() else []:
        if "=" in piece:
            key, _, value = piece.partition("=")
            key = key.strip()
            if not key:
                raise ParameterError(f"bad spec {spec!r}: empty parameter name before '='")
            if key in params:
                raise ParameterError(f"bad spec {spec!r}: parameter {key!r} given twice")
            params[key] = value.strip()
            last = key
        elif last is not None:
            params[last] += "," + piece.strip()
        else:
            raise ParameterError(f"bad spec {spec!r}: expected key=value after ':'")
    return name, params


def format_value(value: Any) -> str:
    """Spec text for a parameter value (inverse of Param.parse)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    if value is None:
        return "none"
    return str(value)


def _available(parameters: dict[str, Param]) -> str:
    return "parameters: " + (", ".join(parameters) if parameters else "none")


def _of(owner: str) -> str:
    return f" of {owner}" if owner else ""


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def _is_optional(hint) -> bool:
    return isinstance(hint, (types.UnionType, typing._UnionGenericAlias)) and type(None) in typing.get_args(hint)


def _strip_none(hint):
    if _is_optional(hint):
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        return rest[0]
    return hint


def _base_type(hint):
    origin = typing.get_origin(hint)
    return origin if origin is not None else hint
