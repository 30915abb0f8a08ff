"""Small stored tournaments for the report tests, written straight into a results database."""

from dataclasses import replace

from arena import Budget, Termination, __version__, get_registry, play_game
from arena.front.tournament import Entrant, TournamentConfig, make_schedule
from results.rows import game_rows
from results.store import Store

LONG = "alphabeta:depth=2,ordering=false,table=false,window=bounds"


def config(name="ttt-small", games=4) -> TournamentConfig:
    """Tic-tac-toe, three bots (one with a budget of its own), ``games`` per pairing."""
    return TournamentConfig(
        game="tictactoe",
        bots=(Entrant("rnd", "random"), Entrant("ab", "alphabeta:depth=2", Budget(nodes=50)), Entrant("greedy", "greedy")),
        budget=Budget(nodes=100),
        games_per_pairing=games,
        opening_plies=1,
        seed=7,
        name=name,
    )


def store_tournament(path, cfg: TournamentConfig, played: int | None = None, faults: dict | None = None):
    """Play the first ``played`` games of ``cfg``'s schedule (all by default) and store them.

    ``faults`` maps a game index to (termination, loser): that game is stored as lost by
    ``loser``'s fault instead.
    """
    registry = get_registry(entry_points=False)
    schedule = make_schedule(cfg, registry)
    game = registry.game(cfg.game)
    tasks = schedule.games[:played] if played is not None else schedule.games
    with Store(path) as store:
        t = store.open_tournament(cfg.name, cfg.game, cfg.identity(), cfg.seed, len(schedule.games), __version__)
        for task in tasks:
            bots = [registry.bot(spec) for spec in task.specs]
            record = play_game(game, bots, names=task.names, budgets=task.budgets, seed=task.seed, opening=task.opening)
            if faults and task.index in faults:
                termination, loser = faults[task.index]
                utilities = (-1.0, 1.0) if loser == 0 else (1.0, -1.0)
                record = replace(record, termination=Termination(termination), loser=loser, utilities=utilities,
                                 message=f"{task.names[loser]} lost by {termination}")
            store.save_rows(t, [game_rows(task.index, task.pairing, record)])
    return schedule
