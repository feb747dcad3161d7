"""Running many seeded games: in this process, in local worker processes, or on Ray.

Every game is determined by its seed and seats, so the backends give the same records
(timing aside) in the same order: results come back in seed order whatever finishes first.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...dsl.loading import load_pack
from ...interpreter.program import Program
from .records import Matchup, play_record


@dataclass(frozen=True)
class PackSpec:
    """Which content to load: a pack folder (None: the built-in one), options and mods."""

    pack: str | None = None
    options: dict[str, bool] = field(default_factory=dict)
    mods: tuple[str, ...] = ()
    players: int | None = None  # --players N (None: the pack's default count)

    def load(self) -> Program:
        return load_pack(self.pack, dict(self.options), list(self.mods), self.players)


@dataclass(frozen=True)
class Job:
    """What to play: the seeds are first_seed + index for index in `indices`."""

    matchup: Matchup
    first_seed: int
    indices: tuple[int, ...]

    def seats(self, index: int) -> dict[str, str]:
        return self.matchup.for_seed(index)


def play_batch(program: Program, matchup: Matchup, first_seed: int,
               indices: Sequence[int]) -> list[dict[str, Any]]:
    return [play_record(program, first_seed + i, matchup.for_seed(i)) for i in indices]


# ---- local processes -------------------------------------------------------------------
_WORKER_PROGRAM: Program | None = None


def _init_worker(spec: PackSpec | None, program: Program | None = None) -> None:
    global _WORKER_PROGRAM
    _WORKER_PROGRAM = program if program is not None else spec.load()


def _play_in_worker(task: tuple[Matchup, int, int]) -> dict[str, Any]:
    matchup, first_seed, index = task
    assert _WORKER_PROGRAM is not None
    return play_record(_WORKER_PROGRAM, first_seed + index, matchup.for_seed(index))


def run_local(spec: PackSpec, program: Program, job: Job,
              jobs: int = 1) -> Iterator[dict[str, Any]]:
    """Records in index order; `jobs` > 1 plays them in that many worker processes.

    Where the system can fork, workers inherit the compiled program; elsewhere each one
    compiles the pack again from `spec`.
    """
    if jobs <= 1:
        for i in job.indices:
            yield play_record(program, job.first_seed + i, job.seats(i))
        return
    tasks = [(job.matchup, job.first_seed, i) for i in job.indices]
    if "fork" in multiprocessing.get_all_start_methods():
        context, initargs = multiprocessing.get_context("fork"), (None, program)
    else:
        context, initargs = multiprocessing.get_context("spawn"), (spec, None)
    with context.Pool(jobs, initializer=_init_worker, initargs=initargs) as pool:
        yield from pool.imap(_play_in_worker, tasks, chunksize=1)


# ---- Ray ------------------------------------------------------------------------------
def run_ray(program: Program, job: Job, address: str | None = None,
            batch: int = 4) -> Iterator[dict[str, Any]]:
    """Records in index order from Ray tasks of `batch` games each.

    The compiled program travels through Ray's object store, so the workers need the
    hustings package but not the pack's files. Connects to `address` (a running cluster,
    e.g. `ray://head:10001` or `auto`), or starts a local Ray when it is None.
    """
    import ray

    started = False
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(play_batch)
        program_ref = ray.put(program)
        indices = list(job.indices)
        refs = [remote.remote(program_ref, job.matchup, job.first_seed, indices[k:k + batch])
                for k in range(0, len(indices), batch)]
        for ref in refs:
            yield from ray.get(ref)
    finally:
        if started:
            ray.shutdown()
