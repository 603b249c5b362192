"""Train a linear agent on Dracula vs Van Helsing against the random bot, on the CPU in about a
minute, and show that it beats random over duplicate deals with a confidence interval.

    .venv/bin/python examples/dracula_linear.py            # 1500 games, 200 deals
    .venv/bin/python examples/dracula_linear.py --games 200 --deals 20

The agent values each action linearly in the observation, ``Q(s, a) = (v + w_a) · [x(s), 1]``
(a shared state value and what each action adds; ``x`` is the observation and 11 numbers
derived from it, :class:`Features`), and
plays greedily among the legal actions (``action_mask``), exploring with a decaying ε. It
learns by Monte Carlo regression (an SGD step per visit, normalised by the features' squared
length) towards a target read from the observations the game gives it: the districts the
learner's seat won minus those it lost when the round of that decision was resolved (DV-20,
DV-21: the HP and vampire counts in the view, /5), plus half the final reward (+1 win, -1
loss). Every district goes to one side, so the round's result is the game's own intermediate
score, and it rewards a decision far less noisily than the end of the game alone. The learner
plays both roles (its seat alternates; the role comes from the deal, option ``dracula:
random``). Nothing but numpy and ``referee.rl``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt

from referee.rl import Evaluation, Layout, evaluate, gym_env

GAME = "dracula-vs-van-helsing"
Vector = npt.NDArray[np.float32]


class LinearQ:
    """``Q(s, a) = V(s) + A(s, a)``, both linear in ``[x(s), 1]``, greedy over the legal actions
    (ties at random). The shared ``V`` takes up what the state is worth whatever the action, so
    each action's weights learn only what that action adds (the argmax needs only ``A``)."""

    def __init__(
        self, actions: int, features: int, seed: int = 0, derive: Features | None = None
    ) -> None:
        self.features = derive
        self.value = np.zeros(features + 1)
        self.weights = np.zeros((actions, features + 1))
        self.epsilon = 0.0
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if self.epsilon and self.rng.random() < self.epsilon:
            return int(self.rng.choice(legal))
        x = self.features(obs["observation"]) if self.features else obs["observation"]
        values = self.weights[legal, :-1] @ x + self.weights[legal, -1]
        best = legal[values == values.max()]
        return int(self.rng.choice(best)) if len(best) > 1 else int(best[0])

    def learn(self, x: Vector, action: int, target: float, rate: float) -> None:
        v, w = self.value, self.weights[action]
        error = target - (v[:-1] @ x + v[-1] + w[:-1] @ x + w[-1])
        step = rate * error / (float(x @ x) + 1.0)
        v[:-1] += step * x
        v[-1] += step
        w[:-1] += step * x
        w[-1] += step


class Features:
    """The observation plus 11 numbers derived from it: how strong each of the seat's five cards
    is, how strong the drawn card is, and the drawn card's strength minus each slot's (a card's
    strength: its value / 8, plus 1 when it is trump; DV-20). A linear model cannot compare two
    entries of its input by itself; these differences let it learn "put the drawn card over a
    weaker one"."""

    def __init__(self, layout: Layout) -> None:
        self.slots = [layout.offset("my_rack") + 15 * d for d in range(5)]
        self.drawn = layout.offset("drawn")
        self.size = layout.size + 11

    @staticmethod
    def strength(x: Vector, at: int) -> float:
        values = x[at + 1 : at + 9]
        return float(values @ _VALUES) / 8 + float(x[at + 9])  # place 0 on the track: trump

    def __call__(self, x: Vector) -> Vector:
        slots = [self.strength(x, at) for at in self.slots]
        drawn = self.strength(x, self.drawn)
        extra = [*slots, drawn, *(drawn - s for s in slots)]
        return np.concatenate([x, np.asarray(extra, dtype=np.float32)])


_VALUES = np.arange(1, 9, dtype=np.float32)


class Score:
    """Reads the round and the district tallies from an observation (its layout names the
    blocks): Dracula's HP (/12) and the vampires of each district (/4)."""

    def __init__(self, layout: Layout) -> None:
        self.role = layout.offset("role")
        self.round = layout.offset("round")
        self.hp = layout.offset("hp")
        self.vampires = [layout.offset("districts") + 3 * d + 1 for d in range(5)]

    def round_of(self, x: Vector) -> int:
        return int(np.argmax(x[self.round : self.round + 5]))

    def tally(self, x: Vector) -> tuple[float, float]:
        """(vampires, HP): each district Dracula wins adds a vampire, each he loses costs 1 HP."""
        return sum(float(x[v]) * 4 for v in self.vampires), float(x[self.hp]) * 12

    def margin(self, before: Vector, after: Vector) -> float:
        """Districts won minus lost by the learner's seat between two observations, / 5."""
        (v0, hp0), (v1, hp1) = self.tally(before), self.tally(after)
        dracula = (v1 - v0) - (hp0 - hp1)
        return (dracula if before[self.role] else -dracula) / 5


def train(games: int, seed: int = 0, rate: float = 0.02) -> LinearQ:
    """Play ``games`` against the random bot, learning after each one."""
    env = gym_env(GAME, opponents="random", seed=seed)
    score = Score(env.game.encoder.layout)
    derive = Features(env.game.encoder.layout)
    agent = LinearQ(env.game.actions.size, derive.size, seed, derive)
    for game in range(games):
        agent.epsilon = max(0.05, 0.5 * (1 - 2 * game / max(1, games)))
        obs, _ = env.reset(options={"seat": game % 2})
        visits: list[tuple[Vector, int, int]] = []
        starts: dict[int, Vector] = {}  # the first observation of each round
        done, reward = False, 0.0
        while not done:
            x = obs["observation"]
            round_ = score.round_of(x)
            starts.setdefault(round_, x)
            action = agent(obs)
            visits.append((derive(x), action, round_))
            obs, reward, done, _, _ = env.step(action)
        last: Vector = obs["observation"]
        ends: dict[int, Vector] = {r: starts.get(r + 1, last) for r in starts}
        margins = {r: score.margin(start, ends[r]) for r, start in starts.items()}
        for x, action, round_ in visits:
            agent.learn(x, action, margins[round_] + 0.5 * reward, rate)
    agent.epsilon = 0.0
    return agent


def run(games: int, deals: int, seed: int = 0) -> tuple[LinearQ, Evaluation, float]:
    started = time.process_time()
    agent = train(games, seed)
    seconds = time.process_time() - started
    # Evaluation deals are seeded apart from the training games (seed "eval-...").
    result = evaluate(agent, GAME, opponents="random", deals=deals, seed=f"eval-{seed}")
    return agent, result, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=1500, help="training games")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals to evaluate on")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    _, result, seconds = run(args.games, args.deals, args.seed)
    print(f"trained on {args.games} games in {seconds:.1f} s of CPU")
    print(result.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
