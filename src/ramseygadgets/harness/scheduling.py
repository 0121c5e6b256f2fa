"""How the runner schedules conversations: on the batch path (vLLM offline) the first round's
identical requests merged into one with ``n`` completions and a wave's completions fed to their
conversations (the python setting's programs side by side); on the async path the signals routed
to the event loop."""

from __future__ import annotations

import asyncio
import os
import signal
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.harness.types import Completion

__all__ = ["add_signal_handlers", "current_task", "merge_first_round", "feed_wave"]


def merge_first_round(
    requests: list[Any], conversations: list[Conversation]
) -> tuple[list[Any], list[list[Conversation]]]:
    """Group identical first-round requests (same problem and setting, different runs) into one
    request with ``n`` completions, as vLLM's ``SamplingParams(n=runs)`` does best."""
    batch: list[Any] = []
    owners: list[list[Conversation]] = []
    index: dict[tuple[str, str], int] = {}
    for request, conversation in zip(requests, conversations):
        if request.round_no == 1:
            group = (request.key.problem_id, request.key.setting)
            if group in index:
                i = index[group]
                batch[i].n += 1
                owners[i].append(conversation)
                continue
            index[group] = len(batch)
        request.n = 1
        batch.append(request)
        owners.append([conversation])
    return batch, owners


def feed_wave(fed: list[tuple[Conversation, Completion]]) -> None:
    """Give each conversation its completion.  Conversations that may run a program (python)
    are fed side by side, one thread each up to the CPU count, so a wave waits for its
    slowest program rather than for the sum of them; the rest in order."""
    programs = [(c, x) for c, x in fed if c.python is not None and x.error is None]
    running = {id(c) for c, _ in programs}
    for conversation, completion in fed:
        if id(conversation) not in running:
            conversation.feed(completion)
    if len(programs) == 1:
        programs[0][0].feed(programs[0][1])
    elif programs:
        with ThreadPoolExecutor(max_workers=min(len(programs), os.cpu_count() or 1)) as pool:
            list(pool.map(lambda pair: pair[0].feed(pair[1]), programs))


def add_signal_handlers(loop: asyncio.AbstractEventLoop, handler: Any) -> list[signal.Signals]:
    """Route SIGINT and SIGTERM to ``handler(signum)``; the signals installed (none off the
    main thread)."""
    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, handler, sig)
            installed.append(sig)
        except (RuntimeError, ValueError, NotImplementedError):  # not the main thread
            pass
    return installed


def current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop (batch mode)
        return None
