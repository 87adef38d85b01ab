"""The evaluation harness's speed (issue 17): its own overhead per turn, and what concurrency buys.

1. Overhead: a scenario played by `evaluate` (scoring every turn, building the frames) against the
   same scenario played by a bare `Session`, both on the same model, in the same run: the scripted
   model (no network), and the loopback noisy server answering at once (every rate 0). The
   harness's overhead per turn is the difference per turn; the target is at most a tenth of a
   simulated turn's cost without a model (the bare scripted session's time per turn).
2. Concurrency: 100 turns over 8 independent runs (the long march's first 13 and 12 turns, 4 runs
   of each), the server (in a process of its own) answering each call after 50 ms;
   `concurrency=8` against `concurrency=1` (target: at least 5x faster).
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import statistics
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.queues import Queue
from pathlib import Path

from benchmarks._timing import interleaved_ms
from trackerkit.evaluation.client import EndpointModel
from trackerkit.evaluation.harness import count_turns, evaluate
from trackerkit.evaluation.noisy import Noise, serving_noisy
from trackerkit.evaluation.variants import Variant, load_design
from trackerkit.scene import load_scene
from trackerkit.simulate.model import Model, ScriptedModel
from trackerkit.simulate.session import Session

DATA = Path(__file__).resolve().parent.parent / "data"
LONG = DATA / "scenes" / "eval-long.json"
#: Targets from issue 17.
OVERHEAD_TARGET = 0.10
SPEEDUP_TARGET = 5.0


def _bare(model: Model) -> None:
    scene = load_scene(LONG)
    session = Session(scene, load_design(scene, DATA / "trackers"), model)
    for index, step in enumerate(session.steps):
        if isinstance(model, EndpointModel):
            model.tag = (scene.id, index, 0)
        session.play(step)


def _serve(scenes: list[Path], noise: Noise, urls: Queue[str]) -> None:
    with serving_noisy(scenes, noise) as server:
        urls.put(server.url)
        threading.Event().wait()  # until the parent ends the process


@contextmanager
def serving_apart(scenes: list[Path], noise: Noise) -> Iterator[str]:
    """A noisy server in a process of its own (as a real one is), so it takes no CPU from ours."""
    context = multiprocessing.get_context("spawn")
    urls: Queue[str] = context.Queue()
    process = context.Process(target=_serve, args=(scenes, noise, urls), daemon=True)
    process.start()
    try:
        yield urls.get(timeout=60)
    finally:
        process.terminate()
        process.join()


def overhead(repeat: int = 11) -> list[tuple[str, float, float, float]]:
    """(model, bare ms per turn, harness ms per turn, overhead as a share of a bare scripted turn)."""
    turns = count_turns(load_scene(LONG))
    with serving_apart([LONG], Noise()) as url:
        endpoint = Variant(name="loopback", model="openai", base_url=url, model_name="n")
        times = interleaved_ms(
            {
                "bare scripted": lambda: _bare(ScriptedModel()),
                "eval scripted": lambda: evaluate([LONG]),
                "bare loopback": lambda: _bare(endpoint.make_model()),
                "eval loopback": lambda: evaluate([LONG], [endpoint]),
            },
            repeat,
        )
    per_turn = {name: statistics.median(t) / turns for name, t in times.items()}
    floor = per_turn["bare scripted"]
    return [
        (
            model,
            per_turn[f"bare {model}"],
            per_turn[f"eval {model}"],
            (per_turn[f"eval {model}"] - per_turn[f"bare {model}"]) / floor,
        )
        for model in ("scripted", "loopback")
    ]


def _prefixes(folder: Path) -> list[Path]:
    """Two scenes made of the long march's first 13 and 12 turns (4 runs of each: 100 turns)."""
    doc = json.loads(LONG.read_text("utf-8"))
    paths = []
    for count in (13, 12):
        path = folder / "scenes" / f"march-{count}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**doc, "id": f"march-{count}", "turns": doc["turns"][:count]}))
        paths.append(path)
    return paths


def speedup(repeat: int = 3) -> tuple[int, int, float, float]:
    """(turns, runs, seconds at concurrency 1, at concurrency 8) with 50 ms answers."""
    with tempfile.TemporaryDirectory() as folder:
        scenes = _prefixes(Path(folder))
        turns = sum(count_turns(load_scene(p)) for p in scenes) * 4
        with serving_apart(scenes, Noise(delay=0.05)) as url:
            slow = Variant(name="slow", model="openai", base_url=url, model_name="n")
            times = interleaved_ms(
                {
                    str(n): functools.partial(
                        evaluate, scenes, [slow], runs=4, concurrency=n, trackers=DATA / "trackers"
                    )
                    for n in (1, 8)
                },
                repeat,
            )
    return turns, 8, statistics.median(times["1"]) / 1000, statistics.median(times["8"]) / 1000


def main() -> None:
    print("model      bare ms/turn  eval ms/turn  overhead (share of a bare scripted turn)")
    for model, bare, harness, share in overhead():
        verdict = "ok" if share <= OVERHEAD_TARGET else f"over the {OVERHEAD_TARGET:.0%} target"
        print(f"{model:<10} {bare:12.2f}  {harness:12.2f}  {share:8.1%}  {verdict}")
    turns, runs, one, eight = speedup()
    ratio = one / eight
    verdict = "ok" if ratio >= SPEEDUP_TARGET else f"under the {SPEEDUP_TARGET:g}x target"
    print(
        f"\n{turns} turns over {runs} runs, 50 ms answers: concurrency 1 {one:.2f} s, "
        f"8 {eight:.2f} s: {ratio:.1f}x  {verdict}"
    )


if __name__ == "__main__":
    main()
