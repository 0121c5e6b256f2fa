"""The tool of the ``python`` setting: the model runs Python programs in the sandbox.

A model sends one program per round (native tool call ``run_python`` with ``{"code": ...}``,
or the plain-text protocol: a ```` ```python run ```` block, see :func:`extract_program`) and
sees :meth:`PythonTool.run`'s text: the exit status, what stopped the program (wall-clock,
CPU or memory limit: only where the sandbox enforced it), and its stdout and stderr cut to
:attr:`PythonLimits.stdout_chars` and :attr:`PythonLimits.stderr_chars`, every line of them
after :data:`OUTPUT_PREFIX` (the fence: no line a program prints can pass for the harness's own
lines, such as the round and the limits, which never start with it).  The program runs in :mod:`ramseygadgets.sandbox` with the
standard library, networkx and python-sat, and nothing of ramseygadgets (the coloring tool is
the other setting).  Per problem the rounds and the total program seconds are limited.

Bad input never raises: the model sees one line saying what is wrong.  A sandbox that cannot
run raises :class:`~ramseygadgets.sandbox.SandboxUnavailableError` when the tool is made,
before the first request.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.sandbox import (
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxResult,
    require_sandbox,
    sandbox_protections,
)

__all__ = [
    "PYTHON_SETTING",
    "TOOL_NAME",
    "LIBRARIES",
    "OUTPUT_PREFIX",
    "PythonLimits",
    "python_limits",
    "sandbox_record",
    "ProgramRequest",
    "extract_program",
    "program_from_arguments",
    "tool_spec",
    "describe_result",
    "PythonTool",
]

PYTHON_SETTING = "python"
TOOL_NAME = "run_python"
#: What a program may import besides the standard library, as the prompts name it.
LIBRARIES = ("networkx", "python-sat (import pysat)")
#: What every line of a program's output is shown after (the fence around it).
OUTPUT_PREFIX = "| "


@dataclass(frozen=True)
class PythonLimits:
    """The setting's limits: per problem ``rounds`` (the last one answers) and
    ``total_seconds`` of program wall time; per program the sandbox's :class:`SandboxLimits`;
    the characters of stdout and stderr the model sees; ``require_cgroup``: refuse where no
    cgroup can be made (``False``: ``--python-no-cgroup``, per-process limits only)."""

    rounds: int = 6
    total_seconds: float = 300.0
    stdout_chars: int = 4000
    stderr_chars: int = 2000
    program: SandboxLimits = field(default_factory=SandboxLimits)
    require_cgroup: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.rounds, int) or isinstance(self.rounds, bool) or self.rounds < 2:
            raise SandboxError(f"the python setting needs at least 2 rounds, got {self.rounds!r}")
        for name in ("total_seconds", "stdout_chars", "stderr_chars"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise SandboxError(f"python setting limit {name} must be positive, got {value!r}")
        if not isinstance(self.require_cgroup, bool):
            raise SandboxError(f"require_cgroup must be true or false, got {self.require_cgroup!r}")

    def to_json(self) -> dict[str, Any]:
        """The limits (a run's identity; ``require_cgroup`` is in :func:`sandbox_record`)."""
        data = asdict(self)
        del data["require_cgroup"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PythonLimits:
        """The limits :meth:`to_json` wrote (missing fields keep their defaults)."""
        fields = dict(data)
        program = fields.pop("program", None)
        return cls(**fields, program=SandboxLimits(**(program or {})))

    def context(self) -> dict[str, Any]:
        """What the prompt templates state about the tool."""
        p = self.program
        return {
            "rounds": self.rounds,
            "total_seconds": _number(self.total_seconds),
            "wall_s": _number(p.wall_s),
            "cpu_s": p.cpu_s,
            "memory_mb": p.memory_mb,
            "disk_mb": p.disk_mb,
            "processes": p.processes,
            "stdout_chars": self.stdout_chars,
            "stderr_chars": self.stderr_chars,
            "python_version": f"{sys.version_info.major}.{sys.version_info.minor}",
            "libraries": " and ".join(LIBRARIES),
            "output_prefix": OUTPUT_PREFIX.strip(),
        }


def python_limits(
    rounds: int | None = None,
    total_seconds: float | None = None,
    wall_s: float | None = None,
    cpu_s: int | None = None,
    memory_mb: int | None = None,
    require_cgroup: bool | None = None,
) -> PythonLimits:
    """The setting's limits: the defaults with the given ones replaced (``None`` keeps a
    default), as ``eval``'s ``--python-*`` options and the Inspect task's ``python_*`` options
    set them; a bad value raises :class:`~ramseygadgets.sandbox.SandboxError`, one line."""
    default = PythonLimits()
    return PythonLimits(
        rounds=default.rounds if rounds is None else rounds,
        total_seconds=default.total_seconds if total_seconds is None else total_seconds,
        program=SandboxLimits().updated(wall_s=wall_s, cpu_s=cpu_s, memory_mb=memory_mb),
        require_cgroup=default.require_cgroup if require_cgroup is None else require_cgroup,
    )


def sandbox_record(limits: PythonLimits) -> dict[str, Any]:
    """What a run's config records under ``sandbox``: which protections held here (seccomp,
    the cgroup's kind ``v2``/``v1``/``none``, …) and whether a cgroup was required
    (information, not the run's identity: a run may resume on another machine)."""
    return {**sandbox_protections(), "require_cgroup": limits.require_cgroup}


def _number(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class ProgramRequest:
    """A program a reply asks to run, or why it could not be read."""

    code: str | None
    error: str | None = None


# ---------------------------------------------------------------------------------------------
# Reading requests
# ---------------------------------------------------------------------------------------------
_FENCE = re.compile(
    r"^[ \t]{0,3}```[ \t]*(?:python[ \t]+run|run[_-]python)[ \t]*\n(.*?)(?:^[ \t]{0,3}```[ \t]*$|\Z)",
    re.M | re.S | re.I,
)


def extract_program(text: str | None) -> ProgramRequest | None:
    """The last program of a reply (plain-text protocol), or ``None`` if it has none.

    A program is a code block whose info string is ``python run`` (``run_python`` is read
    too).  Text up to the last ``</think>`` is reasoning and is not searched.
    """
    if not isinstance(text, str):
        return None
    close = text.rfind("</think>")
    if close >= 0:
        text = text[close + len("</think>") :]
    elif "<think>" in text:
        return None
    found = list(_FENCE.finditer(text))
    if not found:
        return None
    code = found[-1].group(1)
    return ProgramRequest(code) if code.strip() else ProgramRequest(None, "the program is empty")


def program_from_arguments(arguments: Any) -> ProgramRequest:
    """The program of a native ``run_python`` call (its arguments, a JSON object as text)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):
            return ProgramRequest(None, 'the arguments are not valid JSON; send {"code": "..."}')
    if not isinstance(arguments, dict) or not isinstance(arguments.get("code"), str):
        return ProgramRequest(None, 'expected the arguments {"code": "<a Python program>"}')
    unknown = sorted(str(k) for k in arguments if k != "code")
    if unknown:
        return ProgramRequest(None, f'unexpected field {unknown[0]!r}; only "code" is expected')
    code = arguments["code"]
    return ProgramRequest(code) if code.strip() else ProgramRequest(None, "the program is empty")


def tool_spec(limits: PythonLimits) -> dict[str, Any]:
    """The native tool definition: ``run_python`` with its limits in the description."""
    c = limits.context()
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": (
                f"Run a Python {c['python_version']} program in a sandbox and see its exit status, "
                f"stdout (first {c['stdout_chars']} characters) and stderr (first "
                f'{c["stderr_chars"]}), each line after "{c["output_prefix"]} ". Importable: the standard library, {c["libraries"]}; no '
                f"network, no files but its own working folder. Limits per program: {c['wall_s']} s "
                f"wall clock, {c['cpu_s']} s CPU, {c['memory_mb']} MB memory."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "The whole Python program."}
                },
                "required": ["code"],
                "additionalProperties": False,
            },
        },
    }


# ---------------------------------------------------------------------------------------------
# Answering requests
# ---------------------------------------------------------------------------------------------
def _fenced(text: str, limit: int) -> str:
    """The first ``limit`` characters of a program's output, every line after
    :data:`OUTPUT_PREFIX` (any line break a reader may honour starts a new quoted line), then
    the harness's own note where it was cut."""
    if not text:
        return "(empty)"
    lines = [OUTPUT_PREFIX + line for line in text[:limit].splitlines()]
    if len(text) > limit:
        lines.append(f"[... cut: only the first {limit} characters are shown]")
    return "\n".join(lines)


def _stopped(result: SandboxResult, limits: SandboxLimits) -> list[str]:
    """One line per limit the program ran into."""
    lines = []
    if result.timed_out:
        lines.append(
            f"The program was stopped at the wall-clock limit ({_number(limits.wall_s)} s)."
        )
    if result.cpu_exceeded:
        lines.append(f"The program was stopped at the CPU limit ({limits.cpu_s} s).")
    if result.memory_exceeded:
        lines.append(
            f"The program ran out of memory (limit {limits.memory_mb} MB, its files included)."
        )
    if result.output_truncated:
        lines.append(f"The output was cut at {limits.output_bytes} bytes per stream.")
    return lines


def describe_result(result: SandboxResult, limits: PythonLimits, program: SandboxLimits) -> str:
    """The text the model sees for a finished program."""
    status = f"Exit status: {result.exit_status}"
    if result.killed_by_signal:
        status += " (ended by a signal)"
    lines = [f"{status}; ran {result.seconds:.2f} s.", *_stopped(result, program)]
    lines += ["stdout:", _fenced(result.stdout, limits.stdout_chars)]
    lines += ["stderr:", _fenced(result.stderr, limits.stderr_chars)]
    return "\n".join(lines)


class PythonTool:
    """One sample's program runs: the sandbox, the seconds used, the record of every run."""

    def __init__(self, limits: PythonLimits | None = None, sandbox: Sandbox | None = None):
        self.limits = limits or PythonLimits()
        self.sandbox = sandbox or Sandbox(
            self.limits.program, require_cgroup=self.limits.require_cgroup
        )
        if not self.sandbox.isolated:
            raise RamseyGadgetsError("the python setting runs model code only in the sandbox")
        require_sandbox(require_cgroup=self.sandbox.require_cgroup)
        self.seconds = 0.0
        self.runs: list[dict[str, Any]] = []
        # stop(): reentrant, as a signal handler may call it in the thread running a program
        self._lock = threading.RLock()
        self._stopped = False
        self._kill: Callable[[], None] | None = None

    def stop(self) -> None:
        """Kill the program running now, if any, and run no other (an interrupted run: its
        sample is not recorded).  Safe from another thread and from a signal handler."""
        with self._lock:
            self._stopped = True
            if self._kill is not None:
                self._kill()

    def _started(self, kill: Callable[[], None]) -> None:
        with self._lock:
            self._kill = kill
            if self._stopped:  # stop() came between the check in run() and the start
                kill()

    def run(self, request: ProgramRequest) -> str:
        """Run a request's program (its wall-clock limit cut to the seconds left) and return
        the text the model sees; never raises on bad input."""
        if request.code is None:
            return f"Tool error: {request.error}."
        if self._stopped:
            return "Tool error: the run was stopped."
        left = self.limits.total_seconds - self.seconds
        if left <= 0.05:
            return (
                f"Tool error: the {_number(self.limits.total_seconds)} s of program time this "
                f"problem has are used up; give your final answer."
            )
        program = self.sandbox.limits.updated(wall_s=min(self.sandbox.limits.wall_s, left))
        try:
            sandbox = Sandbox(program, require_cgroup=self.sandbox.require_cgroup)
            result = sandbox.run(request.code, on_start=self._started)
        except SandboxError as exc:
            return f"Tool error: {exc}."
        finally:
            with self._lock:
                self._kill = None
        self.seconds += result.seconds
        self.runs.append(result.to_json())
        return describe_result(result, self.limits, program)
