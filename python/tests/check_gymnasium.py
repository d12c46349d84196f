"""gymnasium's MuJoCo environments with specula enabled, against the same runs with MuJoCo's own
collision (run by tests/python_pkg.rs when gymnasium[mujoco] is installed, or by hand:
python python/tests/check_gymnasium.py [--steps N] [--env Ant-v5 ...]).

Each environment runs `steps` steps of random actions (action space and reset seeded), three
times in one process: plain MuJoCo, specula in rust mode, specula in diff mode. Observations,
rewards and terminations must be bit for bit those of plain MuJoCo, every collision call of the
rust run must be served by the Rust stage, and the diff run must find no mismatch. The last line
printed is a JSON summary.
"""

import argparse
import hashlib
import json
import sys
import warnings

ENVS = [
    "Ant-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
    "InvertedPendulum-v5",
    "InvertedDoublePendulum-v5",
    "Pusher-v5",
    "Reacher-v5",
    "Swimmer-v5",
    "Walker2d-v5",
]


def run(gym, name, steps, seed):
    """Digest of every step's observation, reward, termination and truncation."""
    import numpy as np

    env = gym.make(name)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    h = hashlib.sha256(np.asarray(obs).tobytes())
    resets = 0
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        h.update(np.asarray(obs).tobytes())
        h.update(np.float64(reward).tobytes())
        h.update(bytes([terminated, truncated]))
        if terminated or truncated:
            obs, _ = env.reset()
            h.update(np.asarray(obs).tobytes())
            resets += 1
    env.close()
    return h.hexdigest(), resets


def counters(specula):
    s = specula.stats()
    return {k: s[k] for k in ("calls", "rust_calls", "fallback_calls", "diff_calls", "mismatches")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--env", action="append", default=None)
    a = p.parse_args()
    warnings.filterwarnings("ignore")
    import gymnasium as gym
    import mujoco  # noqa: F401
    import specula

    summary = {"envs": 0, "rust_calls": 0, "diff_calls": 0, "mismatches": 0, "bitwise": 0}
    failed = []
    for i, name in enumerate(a.env or ENVS):
        seed = a.seed + i
        plain, resets = run(gym, name, a.steps, seed)
        got = {}
        for mode in ("rust", "diff"):
            before = counters(specula)
            with specula.enabled(mode):
                digest, _ = run(gym, name, a.steps, seed)
            after = counters(specula)
            got[mode] = ({k: after[k] - before[k] for k in before}, digest)
        (rust, rust_digest), (diff, diff_digest) = got["rust"], got["diff"]
        problems = []
        if rust_digest != plain:
            problems.append("rust mode differs from MuJoCo")
        if diff_digest != plain:
            problems.append("diff mode changed the run")
        if rust["calls"] == 0 or rust["rust_calls"] != rust["calls"]:
            problems.append(f"not every call served by Rust: {rust}")
        if diff["mismatches"] != 0 or diff["diff_calls"] == 0:
            problems.append(f"diff mode: {diff}")
        status = "ok" if not problems else "FAIL: " + "; ".join(problems)
        print(f"{name}: {a.steps} steps (seed {seed}, {resets} resets), {rust['rust_calls']} Rust calls, "
              f"{diff['diff_calls']} compared, {diff['mismatches']} mismatches: {status}")
        summary["envs"] += 1
        summary["rust_calls"] += rust["rust_calls"]
        summary["diff_calls"] += diff["diff_calls"]
        summary["mismatches"] += diff["mismatches"]
        summary["bitwise"] += rust_digest == plain and diff_digest == plain
        if problems:
            failed.append(name)
    summary["failed"] = failed
    print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
