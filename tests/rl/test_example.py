"""The training example (examples/dracula_linear.py) runs, in a reduced form."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dracula_linear.py"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dracula_linear", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_trains_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    assert example().main(["--games", "40", "--deals", "6"]) == 0
    out = capsys.readouterr().out
    assert "trained on 40 games" in out
    assert "6 duplicate deals, 12 games per side" in out
    assert "difference" in out


def test_training_changes_the_weights_and_the_agent_plays_legally() -> None:
    module = example()
    agent = module.train(20, seed=1)
    assert np.abs(agent.weights).sum() > 0
    from referee.rl import gym_env

    env = gym_env(module.GAME, seed=2)
    obs, _ = env.reset()
    done = False
    while not done:
        action = agent(obs)
        assert obs["action_mask"][action] == 1
        obs, _, done, _, _ = env.step(action)
