"""The options an engine declares in its handshake, and the values a spec gives them.

Declared as UCI does (and the arena protocol after it)::

    option name Hash type spin default 16 min 1 max 33554432
    option name Ponder type check default false
    option name Style type combo default Normal var Solid var Normal var Risky
    option name EvalFile type string default nn.nnue
    option name Clear Hash type button

Names may hold spaces (UCI's ``Skill Level``) and match case-insensitively.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ParameterError

_KEYWORDS = ("name", "type", "default", "min", "max", "var")


@dataclass(frozen=True)
class EngineOption:
    """One declared option."""

    name: str
    kind: str
    """spin, check, combo, string or button."""
    default: str = ""
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def check(self, value: str, owner: str) -> str | None:
        """The value text to send (None for a button), or ParameterError naming what is allowed."""
        where = f"option {self.name!r}" + (f" of {owner}" if owner else "")
        if self.kind == "button":
            return None
        if self.kind == "spin":
            try:
                number = int(value)
            except ValueError:
                raise ParameterError(f"bad value {value!r} for {where}; expected a whole number") from None
            if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
                raise ParameterError(f"bad value {value!r} for {where}; allowed: {self.min} to {self.max}")
            return str(number)
        if self.kind == "check":
            if value.lower() not in ("true", "false"):
                raise ParameterError(f"bad value {value!r} for {where}; expected true or false")
            return value.lower()
        if self.kind == "combo":
            lowered = {c.lower(): c for c in self.choices}
            if value.lower() not in lowered:
                raise ParameterError(f"bad value {value!r} for {where}; choose one of: {', '.join(self.choices)}")
            return lowered[value.lower()]
        return value


def parse_option(line: str) -> EngineOption | None:
    """The option an ``option name ...`` line declares (None if it is not one)."""
    words = line.split(" ")
    fields: dict[str, list[str]] = {}
    choices: list[str] = []
    key = None
    for word in words[1:]:
        if word in _KEYWORDS and (key != "name" or word == "type"):  # only ``type`` ends a name
            key = word
            if key == "var":
                choices.append("")
            else:
                fields[key] = []
        elif key == "var":
            choices[-1] = (choices[-1] + " " + word).strip()
        elif key is not None:
            fields[key].append(word)
    name, kind = " ".join(fields.get("name", ())), " ".join(fields.get("type", ()))
    if not name or kind not in ("spin", "check", "combo", "string", "button"):
        return None
    try:
        low = int(fields["min"][0]) if fields.get("min") else None
        high = int(fields["max"][0]) if fields.get("max") else None
    except ValueError:
        return None
    return EngineOption(name, kind, " ".join(fields.get("default", ())), low, high, tuple(choices))


def check_options(given, declared: dict[str, EngineOption], owner: str) -> list[tuple[str, str | None]]:
    """``(name, value)`` pairs to send for the ``given`` ones, checked against ``declared`` (by lower-case name)."""
    out = []
    for name, value in given:
        option = declared.get(name.strip().lower())
        if option is None:
            known = ", ".join(o.name for o in declared.values()) or "none"
            raise ParameterError(f"{owner + ' ' if owner else ''}has no option {name!r}; its options: {known}")
        out.append((option.name, option.check(value.strip(), owner)))
    return out
