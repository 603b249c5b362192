"""Information-set Monte Carlo tree search over one seat's knowledge.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012) with the game's heuristic as
both the tree's prior and its rollout. Each iteration

1. **determinises**: takes a world the seat could be in
   (:func:`~referee.search.worlds.sample_world` from its
   :class:`~referee.search.worlds.Knowledge`, never the true state) on a
   :class:`~referee.engine.search_table.SearchTable`; the first ``Settings.worlds`` iterations each
   sample a new one, later ones reuse them in turn (a sample costs about as much as a
   playout, and a world is only a starting point: the tree's statistics are over all of
   them). With ``Settings.infer`` above 0 each iteration instead draws among the worlds
   sampled so far in proportion to how well each explains the other seats' recent moves as
   the heuristic's (:mod:`referee.search.beliefs`): the sampler treats them as able to play
   anything legal, and they are not;
2. **selects** down one tree for every seat's decisions, keyed by the commands played. A
   node's children are those commands that were ever legal in a world that reached it; each
   counts how often it was *available* (legal in the iteration's world), and UCB1 is taken
   over the available ones with that count in place of the parent's visits (the subset-armed
   bandit that keeps a command legal in few worlds from being over-explored), plus a
   progressive bias towards the heuristic's command for the node's mover in this world
   (``Settings.bias``). The mover of a node maximises its own reward (every seat is modelled
   as playing for itself, near the heuristic; ``Settings.opponents="heuristic"`` keeps the
   other seats out of the tree, played by the heuristic);
3. **expands** one new child: the heuristic's command for the mover in this world first
   (the bot reads the mover's view of the world only, so for another seat it is what that
   seat would do in that world), after it another command only when
   ``Settings.widening`` says the node has been visited enough (progressive widening: with
   a tenth of a second a root of twenty commands is visited a few dozen times, and trying
   each once would be a coin-flip search);
4. **rolls out** with the heuristic for every seat (a random command with chance
   ``Settings.epsilon``) to the end, or for a game of rounds to the round's scoring
   (``Settings.horizon``: :func:`~referee.search.pimc.playout`), and
5. **backs up** each seat's reward in [0, 1] (its rank; for a round, the round's standing:
   :func:`~referee.search.pimc.standing_reward`) to the nodes that seat chose.

The command played is the root's most visited child; the heuristic's own is preferred among
equals, and a budget that ended before any iteration gets the heuristic's command. With
``Settings.guard`` above 0 the most visited child replaces the heuristic's only when its mean
reward beats the heuristic's child's by that many standard errors of the difference (the
decision rule PIMC uses, :func:`~referee.search.pimc.best`): with a few dozen iterations of
binary rewards a deviation is mostly noise, and every noisy deviation from a good heuristic
is more likely to lose than to win.

**The budget** is a callable ``stop(iterations)`` the caller supplies (the engine is
sans-I/O): :class:`referee.bots.SearchStrategy` gives it the bot thread's own CPU time
(``time.thread_time``), or a fixed iteration count, which makes the move a function of the
knowledge and the seed (what the tests use).

**Its own information only.** Everything read comes from the knowledge (its view, its
redacted events, the public setup) and the seeded :class:`Chance`: two positions that differ
only in what the seat cannot see get the same decision under the same seed and iteration
budget (``tests/search/test_ismcts.py``).

>>> from referee.engine.table import Table
>>> from referee.search.worlds import knowledge_of
>>> table = Table.create("vampire-queen", players=3, seed=b"doc")
>>> seat = table.pending()[0]
>>> command = search(knowledge_of(table, seat), Chance(b"s"), stop=lambda done: done >= 16)
>>> command in table.legal_commands(seat)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.engine.bot import Bot, game_bot
from referee.engine.game import Command, Rejection, Seat
from referee.engine.registry import BOT, game_module, get_game
from referee.engine.search_table import SearchTable
from referee.search.beliefs import surprises
from referee.search.pimc import lower_scores_win, reward, rollout, settings_for, view_for
from referee.search.worlds import Chance, Knowledge, World, sample_world


@dataclass(frozen=True, slots=True)
class Settings:
    """How the tree search spends its budget."""

    #: UCB1's exploration constant (rewards are in [0, 1]).
    exploration: float = 0.7
    #: A node may hold ``1 + widening * visits ** 0.5`` children (the heuristic's first).
    widening: float = 0.5
    #: Progressive bias towards the heuristic's command of a node's mover in the iteration's
    #: world: ``bias / (1 + visits)`` added to its UCB value. With a few dozen iterations a
    #: command must beat the heuristic's by more than chance to draw the visits from it (its
    #: mean over a handful of playouts is noise), and the other seats are modelled as the
    #: heuristic would play in that world.
    bias: float = 0.5
    #: ``"tree"``: every seat's decisions are nodes (SO-ISMCTS proper); ``"heuristic"``: the
    #: other seats' decisions stay out of the tree, played by the heuristic from their own
    #: view of the world (what they are at a table of heuristics). The second measured
    #: worse in Sleeping Queens and Mau Mau Vampires (docs/performance.md "ISMCTS").
    opponents: str = "tree"
    #: Chance of a random command at each rollout step (0: the heuristic throughout).
    epsilon: float = 0.0
    #: Worlds sampled before they are reused in turn.
    worlds: int = 24
    #: ``"game"`` or ``"round"`` (:class:`referee.search.pimc.Settings`).
    horizon: str = "game"
    #: Standard errors by which the played command's mean must beat the heuristic's own at
    #: the root (:func:`decision`); 0: the most visited child is played.
    guard: float = 0.0
    #: How many of the other seats' last decisions weigh a world (:mod:`referee.search.beliefs`):
    #: each iteration draws its world among those sampled with weight ``tremble ** n``, ``n``
    #: the decisions the heuristic would have made otherwise there. 0: the worlds in turn,
    #: unweighed (every seat treated as able to play anything legal).
    infer: int = 0
    #: The chance given to each such surprise, in (0, 1] (1: no weighing).
    tremble: float = 0.1
    #: Rollout decisions after which a rollout stops and the standing is scored there
    #: (:func:`~referee.search.pimc.leads`); 0: to the end (or the round's scoring). A cut
    #: rollout is cheaper, so more iterations fit, and says who leads rather than who won.
    cutoff: int = 0
    #: Points of the game's standing (``Game.limit_results``: Sleeping Queens' queen points,
    #: Mau Mau Vampires' hand totals) that count as a whole win in a margin: above 0, half
    #: of each reward is ``0.5 + gain margin / (2 * margin)`` (clipped to [0, 1]), the gain
    #: since the iteration's world over the best other seat's: a playout then says by how
    #: much, not only whether (:func:`evaluate`). 0: the outcome alone.
    margin: float = 0.0
    #: The share of iterations, in [0, 1), that check the tree's choice instead of growing
    #: the tree: a check takes a fresh world, plays there both the root's most visited
    #: command and the heuristic's, each followed by the same rollout, and keeps the
    #: difference of the seat's two rewards (:class:`Check`). Above 0, the decision leaves
    #: the heuristic's command only when these paired differences, which the tree's own
    #: statistics never saw, say the other is better by ``guard`` standard errors
    #: (:func:`decision`). The tree's statistics chose that command because they favoured it,
    #: so its lead there overstates its worth (the winner's curse); the checks do not.
    check: float = 0.0

    def __post_init__(self) -> None:
        if self.cutoff < 0:
            raise ValueError(f"cutoff must be at least 0, not {self.cutoff}")
        if not (self.margin >= 0.0 and math.isfinite(self.margin)):
            raise ValueError(f"margin must be a finite number at least 0, not {self.margin}")
        if self.infer < 0:
            raise ValueError(f"infer must be at least 0, not {self.infer}")
        if not 0.0 < self.tremble <= 1.0:
            raise ValueError(f"tremble must be in (0, 1], not {self.tremble}")
        if not 0.0 <= self.check < 1.0:
            raise ValueError(f"check must be in [0, 1), not {self.check}")


def ismcts_settings_for(type_id: str) -> Settings:
    """The game's settings: ``TREE_SEARCH`` of its bot module when it has one, else the
    defaults with the horizon of its PIMC settings (``SEARCH``)."""
    module = game_module(type_id, BOT)
    found = getattr(module, "TREE_SEARCH", None) if module is not None else None
    if isinstance(found, Settings):
        return found
    return Settings(horizon=settings_for(type_id).horizon)


@dataclass(slots=True, eq=False)
class Node:
    """A decision reached by the commands from the root: its children by command."""

    children: dict[Command, Child] = field(default_factory=dict)
    visits: int = 0
    #: At the root of a search with ``Settings.check``: the checks of each command against
    #: the heuristic's (None elsewhere).
    checks: dict[Command, Check] | None = None


@dataclass(slots=True, eq=False)
class Check:
    """Paired differences of one command's reward over the heuristic's command's, each from
    one fresh world with the same rollout after either (``Settings.check``).

    Read with one pseudo-difference of +1 and one of -1 beside them: a few equal differences
    are then weak evidence, not a certainty (their own sample variance would be 0), and the
    mean is pulled towards no difference.

    >>> check = Check()
    >>> for difference in (1.0, 1.0, 0.0):
    ...     check.add(difference)
    >>> round(check.mean, 3), round(check.error, 3)
    (0.4, 0.4)
    """

    count: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, difference: float) -> None:
        self.count += 1
        self.total += difference
        self.squares += difference * difference

    @property
    def mean(self) -> float:
        """The mean difference, the two pseudo-differences included."""
        return self.total / (self.count + 2)

    @property
    def error(self) -> float:
        """The standard error of :attr:`mean`."""
        count = self.count + 2
        squares = self.squares + 2.0
        variance = max(squares - self.total * self.total / count, 0.0) / (count - 1)
        return math.sqrt(variance / count)


@dataclass(slots=True, eq=False)
class Child:
    """An edge: the command, its mover's total reward, visits and availability."""

    node: Node
    mover: Seat
    visits: int = 0
    total: float = 0.0
    available: int = 0
    #: The sum of the squared rewards (for the decision's guard).
    squares: float = 0.0

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0

    @property
    def variance(self) -> float:
        """The rewards' sample variance (0 with fewer than two)."""
        if self.visits < 2:
            return 0.0
        spread = self.squares - self.total * self.total / self.visits
        return max(spread, 0.0) / (self.visits - 1)


def search(
    knowledge: Knowledge,
    rng: Chance,
    stop: Callable[[int], bool],
    settings: Settings | None = None,
) -> Command:
    """The command the seat of ``knowledge`` should play: one of ``knowledge.legal``.

    ``stop(n)`` is asked before each iteration with the number done."""
    legal = knowledge.legal
    if len(legal) == 1:
        return legal[0]
    bot = game_bot(knowledge.game_type)
    first = bot.choose(knowledge.view, knowledge.players) if bot is not None else legal[0]
    settings = settings or ismcts_settings_for(knowledge.game_type)
    root = grow(knowledge, rng, stop, settings, first)
    return decision(root, legal, first, settings.guard)


def decision(root: Node, legal: tuple[Command, ...], first: Command, guard: float = 0.0) -> Command:
    """The most visited of the root's legal children (then the higher mean); ``first`` (the
    heuristic's) among equals and when nothing was visited. With ``guard`` above 0, ``first``
    unless the most visited child's mean beats ``first``'s by ``guard`` standard errors of
    the difference (each over at least two visits). At a root with checks
    (``Settings.check``) the lead is read from the most visited child's checks instead:
    their mean difference must be ``guard`` of their standard errors above 0 (above 0 at
    all when ``guard`` is 0)."""
    best = leader(root, legal, first)
    if best == first:
        return best
    if root.checks is not None:
        check = root.checks.get(best)
        if check is None or check.count == 0:
            return first
        return best if check.mean > guard * check.error + 1e-9 else first
    if guard <= 0.0:
        return best
    chosen, heuristic = root.children[best], root.children.get(first)
    if heuristic is None or heuristic.visits < 2 or chosen.visits < 2:
        return first
    # Each child's variance is at least that of all the root's rewards together: two or
    # three equal rewards are no evidence of a steady command (their sample variance is 0,
    # and any lead would pass), and the root's children share one scale of reward.
    floor = pooled_variance(root)
    error = math.sqrt(
        max(chosen.variance, floor) / chosen.visits
        + max(heuristic.variance, floor) / heuristic.visits
    )
    return best if chosen.mean - heuristic.mean > guard * error + 1e-9 else first


def leader(root: Node, legal: tuple[Command, ...], first: Command) -> Command:
    """The most visited of the root's legal children, then the higher mean; ``first`` among
    equals and when nothing was visited."""
    best, key = first, (-1, -1.0)
    for command in (first, *legal):
        child = root.children.get(command)
        if child is None:
            continue
        mine = (child.visits, child.mean)
        if mine[0] > key[0] or (mine[0] == key[0] and mine[1] > key[1] + 1e-9):
            best, key = command, mine
    return best


def pooled_variance(node: Node) -> float:
    """The sample variance of every reward backed up through ``node``'s children together.

    >>> node = Node()
    >>> node.children = {"a": Child(Node(), 0, visits=2, total=2.0, squares=2.0),
    ...                  "b": Child(Node(), 0, visits=2, total=0.0, squares=0.0)}
    >>> round(pooled_variance(node), 3)
    0.333
    """
    visits = total = squares = 0.0
    for child in node.children.values():
        visits += child.visits
        total += child.total
        squares += child.squares
    if visits < 2:
        return 0.0
    return max(squares - total * total / visits, 0.0) / (visits - 1)


def grow(
    knowledge: Knowledge,
    rng: Chance,
    stop: Callable[[int], bool],
    settings: Settings,
    first: Command | None = None,
) -> Node:
    """The search tree after iterating until ``stop`` says so (module docstring); with
    ``Settings.check`` and the heuristic's command ``first``, its root holds the checks."""
    game = get_game(knowledge.game_type)
    bot = game_bot(knowledge.game_type)
    players = knowledge.players
    rounds = settings.horizon == "round"
    worlds: list[World] = []
    weights: list[float] = []
    infer = settings.infer if bot is not None else 0
    root = Node()
    checking = settings.check > 0.0 and first is not None
    if checking:
        root.checks = {}
    checked = done = 0
    while not stop(done):
        if checking and checked < settings.check * done:
            assert first is not None and root.checks is not None
            challenger = leader(root, knowledge.legal, first)
            if challenger != first:
                # A fresh world, never one the tree's statistics came from.
                world = sample_world(knowledge, rng.seed(), check=False)
                difference = paired(world, challenger, first, knowledge.seat, bot, rng, settings)
                root.checks.setdefault(challenger, Check()).add(difference)
                checked += 1
                done += 1
                continue
        if len(worlds) < settings.worlds:
            world = sample_world(knowledge, rng.seed(), check=False)
            worlds.append(world)
            if infer:
                assert bot is not None
                weights.append(settings.tremble ** surprises(world, knowledge.seat, bot, infer))
        else:
            world = worlds[done % settings.worlds]
        if infer:
            # Among the worlds sampled so far, the new one included: an unlikely world is
            # rarely searched even while the sample grows.
            world = worlds[weighed(weights, rng)]
        # The world's state is never changed in place by a search table: reusing it is safe.
        table: SearchTable[Any] = SearchTable(game, world.config, world.state)
        iterate(table, root, bot, rng, settings, players, rounds, knowledge.seat)
        done += 1
    return root


def paired(
    world: World,
    challenger: Command,
    first: Command,
    seat: Seat,
    bot: Bot | None,
    rng: Chance,
    settings: Settings,
) -> float:
    """The seat's reward after ``challenger`` minus its reward after ``first``, both played
    in ``world`` and followed by rollouts from one seed (common random numbers: what differs
    between the two is the command, not the luck after it)."""
    game = get_game(world.config.game_type)
    seed = rng.seed()
    values = []
    for command in (challenger, first):
        table: SearchTable[Any] = SearchTable(game, world.config, world.state)
        values.append(outcome(table, seat, command, bot, Chance(seed), settings))
    return values[0] - values[1]


def outcome(
    table: SearchTable[Any],
    seat: Seat,
    command: Command,
    bot: Bot | None,
    rng: Chance,
    settings: Settings,
) -> float:
    """The seat's reward for playing ``command`` at ``table`` and rolling out from there, as
    an iteration would score it (the round's standing, the margin, the cut-off alike)."""
    players = table.config.players
    start, origin = standings(table, settings, players)
    table.step(seat, command)
    # A command that ends the game is scored by the rollout's first look at the results.
    rounds = settings.horizon == "round"
    rewards = rollout(table, bot, rng, settings.epsilon, players, rounds, start, settings.cutoff)
    if settings.margin:
        rewards = evaluate(table, origin, rewards, settings.margin, players)
    return rewards[seat]


def standings(table: SearchTable[Any], settings: Settings, players: int) -> tuple[Any, Any]:
    """What an iteration from ``table`` scores against: the standing a round's reward counts
    from (``()`` unless the horizon is the round) and the one the margin counts from (``()``
    without a margin); both the world's, before any move of the iteration."""
    game = table.game
    start = game.limit_results(table.state, players) if settings.horizon == "round" else ()
    origin = start or (game.limit_results(table.state, players) if settings.margin else ())
    return start, origin


def weighed(weights: list[float], rng: Chance) -> int:
    """An index of ``weights`` drawn in proportion to them (uniformly when all are 0).

    >>> [weighed([0.0, 1.0, 0.0], Chance(b"w")) for _ in range(3)]
    [1, 1, 1]
    """
    total = sum(weights)
    if total <= 0.0:
        return rng.below(len(weights))
    point = rng.random() * total
    for index, weight in enumerate(weights):
        point -= weight
        if point < 0.0:
            return index
    return max(index for index, weight in enumerate(weights) if weight > 0.0)


def iterate(
    table: SearchTable[Any],
    root: Node,
    bot: Bot | None,
    rng: Chance,
    settings: Settings,
    players: int,
    rounds: bool,
    seat: Seat,
) -> None:
    """One iteration from ``table`` (a fresh determinisation) for ``seat``: select, expand,
    roll out and back up."""
    start, origin = standings(table, settings, players)
    outside = settings.opponents == "heuristic"
    path: list[Child] = []
    node = root
    expanded = False
    rewards: list[float] | None = None
    while not expanded:
        results = table.results()
        if results is not None:
            rewards = [reward(results, seat, players) for seat in range(players)]
            break
        pending = table.pending()
        if not pending:
            break
        mover = pending[0]
        legal = table.legal_commands(mover)
        if not legal:
            break
        if len(legal) == 1:
            # A forced command is no decision: it stays out of the tree.
            table.step(mover, legal[0])
            continue
        if mover != seat and outside and bot is not None:
            table.step(mover, bot.choose(view_for(table, mover, legal), players))
            continue
        node.visits += 1
        children = node.children
        available = 0
        for command in legal:
            known = children.get(command)
            if known is not None:
                known.available += 1
                available += 1
        favourite = None
        if bot is not None:
            favourite = bot.choose(view_for(table, mover, legal), players)
        room = 1 + settings.widening * math.sqrt(node.visits)
        if favourite is not None and favourite not in children:
            command = favourite
        else:
            new = [command for command in legal if command not in children]
            # Widen while there is room, and always when no child is legal in this world.
            command = None
            if new and (available == 0 or available < room):
                command = new[rng.below(len(new))] if len(new) > 1 else new[0]
        if command is not None:
            child = Child(Node(), mover, available=1)
            children[command] = child
            expanded = True
        else:
            command, child = select(children, legal, favourite, settings)
        try:
            table.step(mover, command)
        except Rejection:
            # A world refusing a command its mover holds legal is a sampler's bug (their
            # tests catch it); the iteration ends without a reward.
            return
        path.append(child)
        node = child.node
    if rewards is None:
        rewards = rollout(
            table, bot, rng, settings.epsilon, players, rounds, start, settings.cutoff
        )
    if settings.margin:
        # The table is where the playout stopped: the end, the round's scoring or the cut-off.
        rewards = evaluate(table, origin, rewards, settings.margin, players)
    for child in path:
        child.visits += 1
        value = rewards[child.mover]
        child.total += value
        child.squares += value * value


def evaluate(
    table: SearchTable[Any], origin: Any, outcome: list[float], margin: float, players: int
) -> list[float]:
    """``outcome`` (each seat's reward in [0, 1]), with ``margin`` above 0 half of it replaced
    by the seat's standing margin: its gain since ``origin`` (the standing the iteration
    started from) over the best other seat's, ``margin`` points counting as a whole win.
    Which way is better is read off the standing, as :func:`~referee.search.pimc.standing_reward`
    does (the first-ranked seat's score).

    >>> from referee.engine.game import rank_by_score
    >>> class Stub:  # only the standing is read
    ...     game, state = type("G", (), {"limit_results": lambda self, s, p: s})(), None
    >>> stub = Stub()
    >>> stub.state = rank_by_score([30, 10], lower_wins=False)
    >>> evaluate(stub, rank_by_score([10, 10], lower_wins=False), [1.0, 0.0], 40.0, 2)
    [0.875, 0.125]
    """
    if margin <= 0.0:
        return outcome
    now = table.game.limit_results(table.state, players)
    scores = {r.seat: r.score for r in now}
    lower_wins = lower_scores_win(now)
    before = {r.seat: r.score for r in origin} if origin else dict.fromkeys(scores, 0)
    gains = {
        seat: (scores[seat] - before.get(seat, 0)) * (-1 if lower_wins else 1) for seat in scores
    }
    rewards = []
    for seat in range(players):
        others = [gain for other, gain in gains.items() if other != seat]
        lead = gains.get(seat, 0) - max(others) if others else 0.0
        part = min(max(0.5 + lead / (2.0 * margin), 0.0), 1.0)
        rewards.append(0.5 * outcome[seat] + 0.5 * part)
    return rewards


def select(
    children: dict[Command, Child],
    legal: list[Command],
    favourite: Command | None,
    settings: Settings,
) -> tuple[Command, Child]:
    """UCB1 over the legal (available) children, availability in place of parent visits, plus
    the progressive bias towards ``favourite`` (the heuristic's command)."""
    best: tuple[Command, Child] | None = None
    top = -math.inf
    exploration = settings.exploration
    for command in legal:
        child = children.get(command)
        if child is None:
            continue
        if child.visits == 0:
            return command, child
        value = child.mean + exploration * math.sqrt(math.log(child.available) / child.visits)
        if command == favourite:
            value += settings.bias / (1 + child.visits)
        if value > top:
            best, top = (command, child), value
    assert best is not None  # iterate expands when no child is legal here
    return best


__all__ = [
    "Child",
    "Node",
    "Settings",
    "decision",
    "evaluate",
    "grow",
    "ismcts_settings_for",
    "iterate",
    "pooled_variance",
    "search",
    "standings",
    "weighed",
]
