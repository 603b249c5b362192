"""Train a linear agent on Dracula vs Van Helsing against the random bot, on the CPU in about a
minute, and show that it beats random over duplicate deals with a confidence interval.

    .venv/bin/python examples/dracula_linear.py                 # train 3000 games, 200 deals
    .venv/bin/python examples/dracula_linear.py --games 300 --deals 20

The agent: one weight vector per action over the observation (plus a bias), ``Q(s, a) = w_a ·
x(s)``, acting greedily among the legal actions (``action_mask``) with ε-greedy exploration.
Training is every-visit Monte Carlo: after each game every (observation, action) the learner
took is moved towards the game's final reward (+1 win, -1 loss; no discount, no other reward),
by an SGD step normalised by the features' squared length.
It plays both roles: the learner's seat alternates between games, and the role is drawn from
the deal (option ``dracula: random``). Nothing but numpy and ``referee.rl``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt

from referee.rl import Evaluation, evaluate, gym_env

GAME = "dracula-vs-van-helsing"
Vector = npt.NDArray[np.float32]


class LinearQ:
    """``Q(s, a) = weights[a] · [x(s), 1]``, greedy over the legal actions."""

    def __init__(self, actions: int, features: int, seed: int = 0) -> None:
        self.weights = np.zeros((actions, features + 1))
        self.epsilon = 0.0
        self.rng = np.random.default_rng(seed)

    def values(self, x: Vector) -> npt.NDArray[np.float64]:
        return self.weights[:, :-1] @ x + self.weights[:, -1]

    def __call__(self, obs: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        if self.epsilon and self.rng.random() < self.epsilon:
            return int(self.rng.choice(legal))
        values = self.values(obs["observation"])[legal]
        best = legal[values == values.max()]
        return int(self.rng.choice(best)) if len(best) > 1 else int(best[0])

    def learn(self, visits: list[tuple[Vector, int]], ret: float, rate: float) -> None:
        """Move every visited Q(s, a) a share ``rate`` of the way towards the return (an SGD
        step normalised by the squared length of the features)."""
        for x, action in visits:
            w = self.weights[action]
            error = ret - (w[:-1] @ x + w[-1])
            step = rate * error / (float(x @ x) + 1.0)
            w[:-1] += step * x
            w[-1] += step


def train(games: int, seed: int = 0, rate: float = 0.01) -> LinearQ:
    """Play ``games`` against the random bot, learning after each one."""
    env = gym_env(GAME, opponents="random", seed=seed)
    agent = LinearQ(env.game.actions.size, env.game.encoder.size, seed)
    for game in range(games):
        agent.epsilon = max(0.02, 0.3 * (1 - game / max(1, games)))
        obs, _ = env.reset(options={"seat": game % 2})
        visits: list[tuple[Vector, int]] = []
        done, reward = False, 0.0
        while not done:
            action = agent(obs)
            visits.append((obs["observation"], action))
            obs, reward, done, _, _ = env.step(action)
        agent.learn(visits, reward, rate)
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="training games")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals to evaluate on")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    _, result, seconds = run(args.games, args.deals, args.seed)
    print(f"trained on {args.games} games in {seconds:.1f} s of CPU")
    print(result.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
