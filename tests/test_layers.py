"""The layers stay apart: games + bots -> arena core -> execution -> front, results beside the front.

Read from the source with ``ast``, every import counts, nested and type-only ones too
(see docs/architecture.md for the rules).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "bots", "games", "results")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports (a package's submodule where one is named)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES and target.split(".")[0] in PACKAGES:
                target = target.rpartition(".")[0]
            if target in MODULES and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> str:
    if module.startswith("arena.execution"):
        return "execution"
    if module.startswith("arena.front") or module == "arena.__main__":
        return "front"
    if module.startswith("bots.engine"):
        return "engines"
    if module.startswith("arena.formats."):  # the package itself is the registry, read by name (core)
        return "formats"
    return {"arena": "core"}.get(module.split(".")[0], module.split(".")[0])


# What each layer may import from the project (itself included).
ALLOWED = {
    "core": {"core"},
    "games": {"core", "games"},
    "bots": {"core", "bots"},
    # engines are bots whose programs run under the execution layer's supervision
    "engines": {"core", "execution", "engines"},
    "execution": {"core", "execution"},
    "results": {"core", "results"},
    # a format lays out or pairs games (GameTask) and holds the report tables only it has
    "formats": {"core", "execution", "results", "formats"},
    "front": {"core", "execution", "results", "formats", "front"},
}
# Third-party modules a layer must not import: the core and execution start fast and run
# anywhere; pandas belongs to results.
FORBIDDEN_THIRD_PARTY = {
    "core": {"pandas", "numpy", "tqdm"}, "execution": {"pandas", "numpy", "tqdm"}, "engines": {"pandas", "numpy", "tqdm"},
}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_from_the_layers_below_it(module):
    layer = _layer(module)
    wrong = sorted(m for m in GRAPH[module] if _layer(m) not in ALLOWED[layer])
    assert not wrong, f"{module} ({layer}) imports {', '.join(wrong)}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m) in FORBIDDEN_THIRD_PARTY))
def test_the_core_and_execution_import_no_heavy_library(module):
    tree = ast.parse(MODULES[module].read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    assert not names & FORBIDDEN_THIRD_PARTY[_layer(module)], f"{module} imports {names & FORBIDDEN_THIRD_PARTY[_layer(module)]}"


def test_no_two_modules_import_each_other_directly_or_in_a_cycle():
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert not cycles, f"modules that import each other: {cycles}"


def test_the_checks_see_the_layers_they_guard():
    # the rules above would pass vacuously if the import graph came out empty
    assert "arena.front.run" in GRAPH and "results.store" in GRAPH["arena.front.run"]
    assert "arena.execution.isolation" in GRAPH["arena.execution.worker"]
    assert _layer("arena.referee") == "core" and _layer("arena.execution.host") == "execution"
    assert _layer("arena.formats") == "core" and _layer("arena.formats.swiss") == "formats"
    assert "arena.formats.base" in GRAPH["arena.formats.swiss"]
    assert {"arena.front.run", "results.store"} <= set(GRAPH)


def test_the_public_names_import_from_where_they_always_did():
    import arena
    import arena.testing
    import results

    for name in ("Game", "Bot", "Budget", "get_registry", "play_game"):
        assert getattr(arena, name).__name__ == name, name
    assert type(arena.hookimpl).__name__ == "HookimplMarker" and arena.hookimpl.project_name == "arena"
    assert callable(arena.testing.check_game) and callable(arena.testing.check_plugin)
    assert callable(results.load)


@pytest.mark.processes
def test_a_host_process_starts_from_the_module_it_lives_in():
    from arena import Budget, Counter
    from arena.execution import host
    from arena.execution.isolation import HostPool, RemoteBot

    pool = HostPool()
    bot = RemoteBot("greedy", pool=pool)
    try:
        game = _registry().game("tictactoe")
        bot.new_game(game, 0, 1)
        decision = bot.choose(game, game.initial_state(), Counter(Budget(nodes=50)))  # a remote bot counts in its host
        assert decision.move in game.legal_moves(game.initial_state())
        assert bot.host.proc.args[1:3] == ["-m", host.__name__] == ["-m", "arena.execution.host"]
    finally:
        bot.release()
        pool.close()


def _registry():
    from arena import get_registry

    return get_registry(entry_points=False)


FORMAT_NAMES = {"round-robin", "gauntlet", "swiss", "race", "sprt", "ladder"}


def _compared_strings(tree: ast.AST) -> set[str]:
    """String constants a module compares something with (``==``, ``!=``, ``in``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                found |= {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
    return found


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("arena.formats")))
def test_no_module_but_the_formats_own_tells_formats_apart_by_name(module):
    # a format's behaviour is asked of its module (arena.formats), never branched on by its name
    named = _compared_strings(ast.parse(MODULES[module].read_text())) & FORMAT_NAMES
    assert not named, f"{module} compares with the format names {sorted(named)}"


def test_every_format_is_one_registered_module_holding_one_format():
    from arena.formats import BUILTIN, formats
    from arena.formats.base import Format

    modules = {m for m in MODULES if m.startswith("arena.formats.") and m != "arena.formats.base"}
    assert {target.partition(":")[0] for target in BUILTIN.values()} == modules
    for name, cls in formats().items():
        assert issubclass(cls, Format) and cls.name == name, name
        defined = [n for n in ast.walk(ast.parse(MODULES[cls.__module__].read_text()))
                   if isinstance(n, ast.ClassDef) and any(getattr(b, "id", "") == "Format" for b in n.bases)]
        assert [n.name for n in defined] == [cls.__name__], cls.__module__


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_stays_under_about_400_lines(module):
    lines = len(MODULES[module].read_text().splitlines())
    assert lines <= 410, f"{module} has {lines} lines: split it"
