"""``arena report`` and ``arena show``: a stored tournament's tables, and one game replayed."""

from __future__ import annotations

from arena.front.play import move_line
from arena.front.settings import UsageError
from arena.plugins import Registry
from arena.records import MoveRecord


def report_text(db: str, tournament: str | None) -> str:
    import results
    from results.report import render, report

    tables = results.load(db, tournament)
    return render(report(tables.games, tables.moves), "text")


def cmd_report(registry: Registry, args) -> int:
    import results
    from results.report import render, report, write

    tables = results.load(args.db, args.tournament)
    if tables.games.empty:
        raise UsageError(f"tournament in {args.db!r} has no finished game yet")
    out = report(tables.games, tables.moves)
    if args.out:
        for path in write(out, args.format, args.out):
            print(path)
    else:
        print(render(out, args.format))
    if args.plots:
        from results.plots import plot_all

        for path in plot_all(tables.games, tables.moves, args.plots):
            print(path)
    return 0


def cmd_show(registry: Registry, args) -> int:
    from results.store import Store

    with Store(args.db, create=False) as store:
        tournament = store.tournament(args.tournament)
        row, moves = store.game(tournament, args.game_id)
    game = registry.game(tournament.game)
    print(f"{tournament.name} game {row['game_id']}: {row['first']} (first) vs {row['second']}, seed {row['seed']}")
    opening = row["opening"].split()
    state = game.play(opening)
    if opening:
        print(f"opening: {' '.join(opening)}")
    print(game.render(state))
    names = (row["first"], row["second"])
    for m in moves:
        record = MoveRecord(
            m["ply"], m["player"], m["move"], m["nodes"], m["seconds"], m["depth"], m["score"], tuple(m["pv"].split())
        )
        state = game.apply(state, game.parse_move(m["move"]))
        print(f"\n{move_line(record, names[m['player']])}")
        print(game.render(state))
    print(f"\nresult {row['result']} ({row['termination']}): {row['message']}")
    return 0
