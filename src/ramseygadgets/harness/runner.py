"""The evaluation runner: every (problem, setting, run) sample once, recorded as it finishes.

Flow: resolve the problems, settings, model profile and sampling; open the run directory (a
config mismatch refuses, recorded samples are skipped); then drive the pending conversations —
async backends with a pool of ``max_concurrency`` workers, batch backends (vLLM offline) in
waves — and append each finished, scored sample to ``samples.jsonl`` at once.

Stopping: Ctrl-C / SIGTERM cancel the calls in flight (their samples are simply not recorded),
finish the durable write of the samples already scored and return an outcome marked
``interrupted`` with the signal's number; when the first samples all fail with the same
backend error (wrong model name, server down, bad key) the run stops with that error instead
of failing every remaining sample.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.harness.backends import make_backend
from ramseygadgets.harness.backends.base import redact
from ramseygadgets.harness.backends.replay import ReplayData, load_replay
from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.harness.options import (
    DEFAULT_BATCH,
    DEFAULT_CONCURRENCY,
    SAMPLING_RANGES,
    TOOL_MODES,
    EvalOptions,
    check_options,
    check_sampling_options,
    default_out,
    model_label,
    resolve_profile,
    resolve_sampling,
)
from ramseygadgets.harness.progress import EvalProgress, EvalStats
from ramseygadgets.harness.scheduling import (
    add_signal_handlers,
    current_task,
    feed_wave,
    merge_first_round,
)
from ramseygadgets.harness.scoring import sample_record
from ramseygadgets.harness.types import Completion, SampleKey
from ramseygadgets.harness.writer import GroupCommitWriter
from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problemsets.fresh import FRESH_SET, fresh_problem_set
from ramseygadgets.prompts import ALL_SETTINGS, SETTINGS, build_prompt, settings_for
from ramseygadgets.runs.config import check_compatible, dataset_hash, make_config
from ramseygadgets.runs.folder import RunFolder, RunLogError
from ramseygadgets.runs.records import FieldError, check_runs
from ramseygadgets.runs.results import write_results
from ramseygadgets.sandbox import require_sandbox
from ramseygadgets.tools.python import PYTHON_SETTING, PythonLimits, sandbox_record
from ramseygadgets.verification.selection import Selection, select_problems

__all__ = [
    "DEFAULT_BATCH",
    "DEFAULT_CONCURRENCY",
    "LOCAL_ERROR_KINDS",
    "SAMPLING_RANGES",
    "TOOL_MODES",
    "EvalOptions",
    "EvalOutcome",
    "Evaluation",
    "check_sampling_options",
    "default_out",
    "merge_first_round",
    "model_label",
    "resolve_profile",
    "resolve_sampling",
    "run_eval",
    "sample_keys",
]

#: Error kinds that say nothing about the backend as a whole (never trigger the abort rule).
LOCAL_ERROR_KINDS = frozenset({"replay-missing", "no-solution"})


@dataclass
class EvalOutcome:
    directory: Path
    config: dict[str, Any]
    total: int
    skipped: int
    stats: EvalStats
    interrupted: bool = False
    aborted: str | None = None
    moved_errors: int = 0
    signum: int = signal.SIGINT
    #: Every sample of the run (the summary counts each setting's problems from them).
    keys: list[SampleKey] | None = None

    @property
    def exit_code(self) -> int:
        """Exit status of an interrupted run: 128 + the signal (130 Ctrl-C, 143 SIGTERM)."""
        return 128 + int(self.signum)

    @property
    def complete(self) -> bool:
        return self.stats.recorded >= self.total


def sample_keys(problem_set: Selection, settings: list[str], runs: int) -> list[SampleKey]:
    """Every sample in run-major order (run 0 of everything first), skipping settings a problem
    does not have (example-hint exists for 30 problems; every problem has ``python``)."""
    applicable = {
        p.id: set(settings_for(p, min_vertices=problem_set.min_vertices(p), extra=True))
        for p in problem_set.problems
    }
    return [
        SampleKey(p.id, s, r)
        for r in range(runs)
        for s in settings
        for p in problem_set.problems
        if s in applicable[p.id]
    ]


class Evaluation:
    """One ``eval`` invocation: :meth:`prepare`, then :meth:`run`."""

    def __init__(self, options: EvalOptions, console: Console | None = None):
        self.options = options
        self.console = console or Console(stderr=True)
        self.stats = EvalStats()
        self.log: RunFolder | None = None
        self.backend: Any = None
        self._prompts: dict[tuple[str, str], Any] = {}
        self._successes = 0
        self._first_errors: list[tuple[str, str]] = []
        self.aborted: str | None = None
        self._workers: list[asyncio.Task[Any]] = []
        self._live: set[Conversation] = set()  # conversations under way (their programs)
        self._writing = False
        self._interrupt_pending = False
        self.write_error: RunLogError | None = None
        self.signal = signal.SIGINT
        self.fresh_file: Path | None = None  # --fresh: the run folder's problems.jsonl

    # -- setup ------------------------------------------------------------------------------
    def prepare(self) -> None:
        """Check the options, then choose the samples, build their prompts (a bad prompt fails
        now, not per sample), the backend and the configuration recorded in ``config.json``."""
        o = self.options
        check_options(o)
        replay = load_replay(o.model.split(":", 1)[1]) if o.model.startswith("replay:") else None
        self.settings = self._choose_settings(replay)
        self.python = self._python_limits(replay)
        self.runs = self._choose_runs(replay)
        self.profile = resolve_profile(o.profile, o.profiles_file, o.model)
        self.sampling = resolve_sampling(o, self.profile)
        self.problem_set = self._choose_problems(replay).first(o.limit)
        self.keys = sample_keys(self.problem_set, self.settings, self.runs)
        if not self.keys:
            raise RamseyGadgetsError(
                "no samples to run: none of the selected problems has the selected settings"
            )
        for problem_id, setting in dict.fromkeys((k.problem_id, k.setting) for k in self.keys):
            self.prompt(self.problem_set.get(problem_id), setting)
        self.backend = self._make_backend(replay)
        if o.max_concurrency is None:
            batch = hasattr(self.backend, "complete_batch")
            o.max_concurrency = DEFAULT_BATCH if batch else DEFAULT_CONCURRENCY
        self.config = self._make_config()

    def _choose_problems(self, replay: ReplayData | None) -> Selection:
        """The fresh problems (``--fresh``: drawn and solved now, or read back from the run
        folder), else the named set or dataset with the ids and tier asked for (default: the
        replay file's problems)."""
        o = self.options
        if o.fresh is not None:
            problems, self.fresh_file = fresh_problem_set(o.out, o.fresh, self._print_line)
            return problems
        problem_ids = o.problems if o.problems or not replay else replay.problem_ids()
        return select_problems(problem_ids, o.tier, o.dataset, o.problem_set)

    def _print_line(self, text: str) -> None:
        """A progress line on the console (stderr), as plain text."""
        self.console.print(
            terminal_text(text, markup=False), markup=False, highlight=False, soft_wrap=True
        )

    def _choose_settings(self, replay: ReplayData | None) -> list[str]:
        """The settings asked for (default: the replay file's, else the paper's five; ``python``
        only when asked for), each once."""
        settings = self.options.settings or (replay.settings() if replay else list(SETTINGS))
        unknown = [s for s in settings if s not in ALL_SETTINGS]
        if unknown:
            raise RamseyGadgetsError(
                f"unknown setting {unknown[0]!r}; choose from {', '.join(ALL_SETTINGS)}"
            )
        return list(dict.fromkeys(settings))

    def _python_limits(self, replay: ReplayData | None) -> PythonLimits | None:
        """The python setting's limits (``None`` without it).  Model code runs only in the
        sandbox: unless the backend is replay (which runs nothing), a sandbox that cannot run
        refuses here, in one line, before the first request."""
        if PYTHON_SETTING not in self.settings:
            if self.options.python is not None:
                raise RamseyGadgetsError("the --python-* limits go with --setting python only")
            return None
        limits = self.options.python or PythonLimits()
        if replay is None:
            require_sandbox(require_cgroup=limits.require_cgroup)
        return limits

    def _choose_runs(self, replay: ReplayData | None) -> int:
        """The runs asked for (default: the replay file's, else 5), checked."""
        runs = self.options.runs
        if runs is None:
            runs = replay.runs() if replay else 5
        try:
            return check_runs(runs)
        except FieldError as exc:
            raise RamseyGadgetsError(f"--runs {exc.problem}") from None

    def _make_backend(self, replay: ReplayData | None) -> Any:
        o = self.options
        return make_backend(
            o.model,
            problem_set=self.problem_set,
            base_url=o.base_url,
            retry=o.retry,
            on_retry=self._on_retry,
            tool_mode=o.tool_mode,
            seed=self.sampling.seed,
            engine_args=o.engine_args,
            replay=replay,
            max_connections=max(o.max_concurrency or DEFAULT_CONCURRENCY, 8),
        )

    def _make_config(self) -> dict[str, Any]:
        o = self.options
        return make_config(
            model=o.model,
            model_label=model_label(o.model, self.profile),
            profile=getattr(self.profile, "name", None),
            settings=self.settings,
            runs=self.runs,
            problems=self.problem_set.ids,
            sampling=self.sampling.to_json(),
            tool_mode=o.tool_mode,
            python_limits=self.python.to_json() if self.python is not None else None,
            sandbox=sandbox_record(self.python) if self.python is not None else None,
            dataset_hash=dataset_hash(self.problem_set, self.settings),
            dataset=str(self.fresh_file) if self.fresh_file is not None else o.dataset,
            problem_set=FRESH_SET
            if o.fresh is not None
            else o.problem_set or (None if o.dataset else "paper"),
            backend=getattr(self.backend, "describe", lambda: {})(),
            command=o.command,
            fresh=o.fresh.to_json() if o.fresh is not None else None,
        )

    @property
    def concurrency(self) -> int:
        """Samples in flight (async) or conversations per wave (batch backends)."""
        return self.options.max_concurrency or DEFAULT_CONCURRENCY

    def prompt(self, problem: Problem, setting: str) -> Any:
        key = (problem.id, setting)
        if key not in self._prompts:
            try:
                self._prompts[key] = build_prompt(
                    problem,
                    setting,
                    self.profile,
                    tool_mode=self.options.tool_mode,
                    min_vertices=self.problem_set.min_vertices(problem),
                    python=self.python,
                )
            except RamseyGadgetsError:
                raise
            except (ValueError, KeyError, LookupError) as exc:
                raise RamseyGadgetsError(
                    f"cannot build the {setting} prompt for {problem.id}: {exc}"
                ) from None
        return self._prompts[key]

    def open_log(self) -> list[SampleKey]:
        """Open the run directory, check its config, and return the samples still to run."""
        self.log = RunFolder(self.options.out).open()
        recorded = self.log.read_config()
        if recorded is None or not self.log.records:  # no samples: nothing to stay compatible with
            self.log.set_config(self.config)  # written with the first sample
        else:
            check_compatible(recorded, self.config, str(self.options.out))
            self.config = recorded
        self.moved_errors = self.log.forget_errors() if self.options.retry_errors else 0
        wanted = set(self.keys)
        self.skipped = sum(1 for k in self.log.records if k in wanted)
        pending = [k for k in self.keys if k not in self.log]
        self.stats = EvalStats(total=len(self.keys), recorded=self.skipped)
        return pending

    # -- running ----------------------------------------------------------------------------
    def conversation(self, key: SampleKey) -> Conversation:
        problem = self.problem_set.get(key.problem_id)
        prompt = self.prompt(problem, key.setting)
        max_rounds = 1 if self.options.model.startswith("replay:") else None
        return Conversation(
            key,
            problem,
            prompt,
            self.sampling,
            tool_mode=self.options.tool_mode,
            max_rounds=max_rounds,
            python=self.python,
        )

    def _on_retry(self, key: SampleKey, attempt: int, reason: str, delay: float) -> None:
        self.stats.retries += 1

    def score(self, conversation: Conversation) -> dict[str, Any]:
        record = sample_record(
            conversation,
            model=self.config["model"],
            min_vertices=self.problem_set.min_vertices(conversation.problem),
            max_vertices=self.options.max_vertices,
            optimum=self.problem_set.optimum(conversation.problem),
            best_known=self.problem_set.solution(conversation.problem),
        )
        if hasattr(self.backend, "recorded_fields"):
            record.update(self.backend.recorded_fields(conversation.key))
        if conversation.error_kind:
            record["error_kind"] = conversation.error_kind
        return record

    def record(self, *records: dict[str, Any]) -> None:
        """Append finished samples (a Ctrl-C arriving meanwhile waits until they are written)."""
        assert self.log is not None
        if not records:
            return
        self._writing = True
        try:
            self.log.append_many(list(records))
            for record in records:
                self.stats.add(record)
                self._watch_errors(record)
        finally:
            self._writing = False
        if self._interrupt_pending:
            raise KeyboardInterrupt

    def _written(self, records: list[dict[str, Any]]) -> None:
        for record in records:
            self.stats.add(record)
        self._progress.update()

    def _write_failed(self, error: RunLogError) -> None:
        """The disk failed (async mode): stop every worker; their samples stay unrecorded."""
        self.write_error = error
        for worker in self._workers:
            worker.cancel()

    @property
    def _stopping(self) -> bool:
        return self.aborted is not None or self.write_error is not None

    def _watch_errors(self, record: dict[str, Any]) -> None:
        """Stop when the first ``abort_after`` samples all failed with the same backend error."""
        if record.get("error") is None:
            self._successes += 1
            return
        kind = record.get("error_kind") or "error"
        if self._successes or kind in LOCAL_ERROR_KINDS:
            return
        self._first_errors.append((kind, record["error"]))
        threshold = min(self.options.abort_after, self.stats.total - self.skipped)
        kinds = {k for k, _ in self._first_errors}
        if len(self._first_errors) >= threshold and len(kinds) == 1 and self.aborted is None:
            self.aborted = (
                f"every request failed the same way ({len(self._first_errors)} samples): "
                f"{self._first_errors[-1][1]}"
            )
            current = current_task()
            for worker in self._workers:
                if worker is not current:
                    worker.cancel()

    def run(self) -> EvalOutcome:
        """Run the pending samples; never raises for per-sample failures."""
        interrupted = False
        try:
            pending = self.open_log()
            if pending:
                with EvalProgress(
                    self.stats,
                    self.console,
                    self.options.progress,
                    title=self.config.get("model_label", "eval"),
                ) as progress:
                    self._progress = progress
                    if hasattr(self.backend, "complete_batch"):
                        interrupted = self._run_batch(pending)
                    else:
                        interrupted = asyncio.run(self._run_async(pending))
            if self.log is not None and self.log.records and self.write_error is None:
                write_results(self.log.directory)
        finally:
            if self.log is not None:
                self.log.close()
        if self.write_error is not None:
            raise self.write_error
        return EvalOutcome(
            Path(self.options.out),
            self.config,
            self.stats.total,
            self.skipped,
            self.stats,
            interrupted,
            self.aborted,
            self.moved_errors,
            self.signal,
            self.keys,
        )

    async def _run_async(self, pending: list[SampleKey]) -> bool:
        """Worker pool over the pending samples; True when interrupted by a signal."""
        loop = asyncio.get_running_loop()
        main = asyncio.current_task()
        assert main is not None and self.log is not None
        interrupted = False

        def on_signal(signum: int) -> None:
            nonlocal interrupted
            interrupted = True
            self.signal = signal.Signals(signum)
            main.cancel()
            self._stop_programs()  # else the loop's shutdown waits for them

        installed = add_signal_handlers(loop, on_signal)
        writer = GroupCommitWriter(self.log.append_many, self._written, self._write_failed)
        try:
            await self.backend.start()
            await self._run_workers(pending, writer, lambda: interrupted)
        except asyncio.CancelledError:
            if not interrupted:
                raise
        finally:
            await writer.drain()
            for sig in installed:
                loop.remove_signal_handler(sig)
            try:
                await asyncio.shield(self.backend.close())
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing must not mask the outcome
                pass
            self._progress.update(force=True)
        return interrupted

    async def _run_workers(
        self, pending: list[SampleKey], writer: GroupCommitWriter, interrupted: Any
    ) -> None:
        """``concurrency`` workers over one queue; a cancellation by the abort rule or a disk
        error ends the pool quietly, any other (a signal) is raised."""
        queue: Iterator[SampleKey] = iter(pending)
        workers = [
            asyncio.create_task(self._worker(queue, writer))
            for _ in range(min(self.concurrency, len(pending)))
        ]
        self._workers = workers
        try:
            await asyncio.gather(*workers)
        except asyncio.CancelledError:
            if not self._stopping or interrupted():
                raise
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def _worker(self, queue: Iterator[SampleKey], writer: GroupCommitWriter) -> None:
        for key in queue:
            if self._stopping:
                return
            conversation = self.conversation(key)
            self.stats.in_flight += 1
            self._live.add(conversation)
            try:
                await self._converse(conversation)
                record = await asyncio.to_thread(self.score, conversation)
            finally:
                self.stats.in_flight -= 1
                self._live.discard(conversation)
            if self._stopping:
                return
            writer.put(record)
            self._watch_errors(record)

    async def _converse(self, conversation: Conversation) -> None:
        """Every model call of one conversation (a backend bug ends it, recorded)."""
        started = time.perf_counter()
        while (request := conversation.request()) is not None:
            try:
                completion = await self.backend.complete(request)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a backend bug ends this sample, recorded
                completion = Completion(
                    error=redact(f"backend failed: {type(exc).__name__}: {exc}")[:300],
                    error_kind="backend-exception",
                )
            if conversation.multiround:  # may run a tool (a program: seconds): off the event loop
                await asyncio.to_thread(conversation.feed, completion)
            else:
                conversation.feed(completion)
        conversation.latency_s = time.perf_counter() - started

    def _stop_programs(self) -> None:
        """Kill the programs of the conversations under way (an interrupted run; python)."""
        for conversation in list(self._live):
            conversation.stop_tool()

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self.signal = signal.Signals(signum)
        self._stop_programs()
        if self._writing:
            self._interrupt_pending = True
        else:
            raise KeyboardInterrupt

    def _run_batch(self, pending: list[SampleKey]) -> bool:
        """Waves of at most ``max_concurrency`` conversations; True when interrupted."""
        previous = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                previous[sig] = signal.signal(sig, self._on_sigint)
            except ValueError:  # not the main thread
                pass
        try:
            return self._batch_waves(pending)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _batch_waves(self, pending: list[SampleKey]) -> bool:
        """Run the waves; True when interrupted (Ctrl-C, SIGTERM)."""
        try:
            self.backend.start_sync()
            size = self.concurrency
            for start in range(0, len(pending), size):
                self._batch_wave([self.conversation(k) for k in pending[start : start + size]])
                if self.aborted is not None:
                    break
        except KeyboardInterrupt:
            return True
        return False

    def _batch_wave(self, active: list[Conversation]) -> None:
        """One wave: every conversation's next call in one batch, until all have finished."""
        self._live = set(active)
        while active and self.aborted is None:
            batch, owners = merge_first_round([c.request() for c in active], active)
            started = time.perf_counter()
            results = self.backend.complete_batch(batch)
            elapsed = time.perf_counter() - started  # the wave's wall time
            fed = []
            for group, completions in zip(owners, results):
                for conversation, completion in zip(group, completions):
                    completion.latency_s = elapsed
                    fed.append((conversation, completion))
            feed_wave(fed)
            self.record(*(self.score(c) for c in active if c.finished))
            active = [c for c in active if not c.finished]
            self._progress.update(force=True)


def run_eval(options: EvalOptions, console: Console | None = None) -> EvalOutcome:
    """Prepare and run an evaluation (see :class:`Evaluation`)."""
    evaluation = Evaluation(options, console)
    evaluation.prepare()
    started = time.monotonic()
    outcome = evaluation.run()
    outcome.stats.started = started
    return outcome
