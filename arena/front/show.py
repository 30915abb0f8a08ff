"""``arena show``: one stored game replayed move by move, whole (chance outcomes included) or
as one seat saw it (``--seat``): its observation at each of its turns and every other ply as
all seats saw it (``Game.public_text``), so what was hidden from it stays hidden."""

from __future__ import annotations

import textwrap

from arena.front.play import move_line
from arena.front.settings import UsageError
from arena.game import Game
from arena.opening import split_text
from arena.plugins import Registry
from arena.records import MoveRecord


def cmd_show(registry: Registry, args) -> int:
    from results.store import Store

    with Store(args.db, create=False) as store:
        tournament = store.tournament(args.tournament)
        row, moves = store.game(tournament, args.game_id)
    opening = split_text(row["opening"])  # "[fen=...] e7e5": a position of an openings file, then moves
    game = registry.game(opening.game_spec(tournament.game))
    names = row["seats"]
    seat = None if getattr(args, "seat", None) is None else seat_of(args.seat, game, names, row["game_id"])
    seated = " vs ".join(f"{game.player_name(p)}: {name}" for p, name in enumerate(names))
    print(f"{tournament.name} game {row['game_id']}: {seated}, seed {row['seed']}")
    budgets = {b["name"]: b.get("budget") for b in tournament.config.get("bots", ())}
    print("budgets: " + ", ".join(f"{name} {budgets.get(name) or 'not recorded'}" for name in dict.fromkeys(names)))
    records = [
        MoveRecord(m["ply"], m["player"], m["move"], m["nodes"], m["seconds"], m["depth"], m["score"], tuple(m["pv"].split()))
        for m in moves
    ]
    line = list(opening.moves) + [m["move"] for m in moves]
    if seat is None:
        whole(game, line, len(opening.moves), records, names, row["opening"])
    else:
        as_seen(game, seat, line, len(opening.moves), records, names)
    print(f"\nresult {row['result']} ({row['termination']}): {row['message']}")
    return 0


def seat_of(given: str, game: Game, names, game_id: int) -> int:
    """The seat ``--seat`` names: its number (from 0), its bot's name, or the game's name for it."""
    count = len(names)
    listed = ", ".join(f"{s} ({game.player_name(s)}: {name})" for s, name in enumerate(names))
    if given.isdigit():
        if int(given) < count:
            return int(given)
        raise UsageError(f"--seat {given}: game {game_id} has seats 0 to {count - 1}: {listed}")
    found = [s for s, name in enumerate(names) if name == given] or [
        s for s in range(count) if game.player_name(s) == given]
    if len(found) == 1:
        return found[0]
    if found:
        raise UsageError(f"--seat {given!r}: it plays seats {' and '.join(map(str, found))} of game {game_id}; "
                         f"give the seat's number: {listed}")
    raise UsageError(f"--seat {given!r}: no seat or bot of that name in game {game_id}; its seats: {listed}")


def whole(game: Game, line, opened: int, records, names, opening_text: str) -> None:
    """Every ply as it was played, chance outcomes included, and the position after each turn
    (after the whole of a joint move)."""
    state = game.play(line[:opened])
    if opening_text:
        print(f"opening: {opening_text}")
    print(game.render(state))
    ply = 0
    for _, played, after in game.turns(line):
        ply += len(played)
        if ply <= opened:
            continue
        for record in records[ply - len(played) - opened:ply - opened]:
            who = names[record.player] if record.player >= 0 else "chance"
            print(f"\n{move_line(record, who, game)}")
        print(game.render(after))


def as_seen(game: Game, seat: int, line, opened: int, records, names) -> None:
    """What ``seat`` saw: its observation before each of its turns and at the end, its own moves,
    and every other ply's public text (a hidden one as the game shows it, "?" by default)."""
    me = f"{game.player_name(seat)} ({names[seat]})"
    print(f"as {me} saw it: its observation at each of its turns, the other plies as every seat saw them\n")
    ply, state, shown = 0, game.initial_state(), []
    for before, played, after in game.turns(line):
        if ply < opened:
            shown += [game.public_text(before, move) for _, move in played]
        else:
            if shown:
                print(f"opening, as every seat saw it: {' '.join(shown)}")
                shown = []
            if any(s == seat for s, _ in played):
                print(f"\n{me} sees:\n{_indented(game.observation(before, seat))}")
            for k, (s, move) in enumerate(played):
                record = records[ply + k - opened]
                if s == seat:
                    print(move_line(record, names[seat], game))
                elif s < 0:
                    print(f"move {record.ply + 1}: chance gives {game.public_text(before, move)}")
                else:
                    print(f"move {record.ply + 1}: {game.player_name(s)} ({names[s]}) plays {game.public_text(before, move)}")
        ply += len(played)
        state = after
    if shown:
        print(f"opening, as every seat saw it: {' '.join(shown)}")
    print(f"\n{me} sees at the end:\n{_indented(game.observation(state, seat))}")


def _indented(text: str) -> str:
    return textwrap.indent(text, "  ", lambda _: True) if text else "  (nothing)"
