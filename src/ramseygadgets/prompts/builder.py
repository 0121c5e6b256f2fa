"""Prompt builders for the five evaluation settings and the ``python`` setting (templates in
``templates/``).

Every prompt is a system message (role, every definition the problem needs, the answer format;
in ``multiround`` also the coloring tool, in ``python`` the sandbox and its limits) and a user
message (the task, plus the setting's hint).  A model profile then applies its quirks: system text merged into the user turn as
``Instructions:`` / ``Task:`` when the model takes no system prompt, prefix/suffix lines, a
forced start of the reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2

from ramseygadgets.answers import answer_object
from ramseygadgets.core.errors import RamseyGadgetsError, UnknownProblemError
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetForm
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import Pattern
from ramseygadgets.problems.catalog import Problem, all_problems, get_problem, in_catalog
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.prompts.profiles import ModelProfile, get_profile
from ramseygadgets.tools.coloring import (
    TOOL_MAX_VERTICES,
    TOOL_NAME,
    tool_spec,
)
from ramseygadgets.tools.python import PYTHON_SETTING, PythonLimits
from ramseygadgets.tools.python import TOOL_NAME as PYTHON_TOOL_NAME
from ramseygadgets.tools.python import tool_spec as python_tool_spec

SETTINGS: tuple[str, ...] = (
    "zero-shot",
    "structural-hint",
    "size-hint",
    "example-hint",
    "multiround",
)
#: Settings beyond the paper's five, run only when asked for (``python`` needs the sandbox).
EXTRA_SETTINGS: tuple[str, ...] = (PYTHON_SETTING,)
ALL_SETTINGS: tuple[str, ...] = SETTINGS + EXTRA_SETTINGS
MULTIROUND_ROUNDS = 3
TOOL_MODES = ("text", "native")


class PromptError(RamseyGadgetsError, ValueError):
    """A prompt cannot be built as asked."""


class UnknownSettingError(PromptError):
    """The setting is not one of :data:`ALL_SETTINGS`."""


class SettingUnavailableError(PromptError):
    """The setting does not apply to the problem (example-hint) or lacks data (size-hint)."""


@dataclass(frozen=True)
class Prompt:
    """The messages (OpenAI chat format) a model sees first, after its profile's quirks.

    ``assistant_prefix`` is the forced start of the reply (send it as a final assistant message
    with ``continue_final_message``; see :meth:`messages_with_prefix`).  ``tools`` is the OpenAI
    ``tools`` list in native multiround and python mode, else ``None``.
    """

    problem_id: str
    setting: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    assistant_prefix: str | None = None
    profile: str = "default"
    tool_mode: str = "text"
    rounds: int = 1
    sampling: dict[str, Any] = field(default_factory=dict)

    def messages_with_prefix(self) -> list[dict[str, Any]]:
        """The messages plus the forced reply start as a final assistant message (if any)."""
        if not self.assistant_prefix:
            return [dict(m) for m in self.messages]
        return [
            *(dict(m) for m in self.messages),
            {"role": "assistant", "content": self.assistant_prefix},
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "problem_id": self.problem_id,
            "setting": self.setting,
            "profile": self.profile,
            "tool_mode": self.tool_mode,
            "rounds": self.rounds,
            "messages": self.messages,
            "tools": self.tools,
            "assistant_prefix": self.assistant_prefix,
            "sampling": self.sampling,
        }


# ---------------------------------------------------------------------------------------------
# Templates
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("ramseygadgets.prompts", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render(template: str, **context: Any) -> str:
    """Render a template file; runs of blank lines collapse to one, ends are stripped."""
    text = _environment().get_template(template).render(**context)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# ---------------------------------------------------------------------------------------------
# Context
# ---------------------------------------------------------------------------------------------
_KINDS = (
    (re.compile(r"K1,(\d+)"), "star"),
    (re.compile(r"P(\d+)"), "path"),
    (re.compile(r"C(\d+)"), "cycle"),
    (re.compile(r"K(\d+)-e"), "complete-minus-edge"),
    (re.compile(r"K(\d+)"), "complete"),
    (re.compile(r"TK3"), "paw"),
)


def pattern_info(pattern: Pattern) -> dict[str, Any]:
    """What the templates need to describe a forbidden graph."""
    kind = "other"
    for regex, name in _KINDS:
        if regex.fullmatch(pattern.name):
            kind = name
            break
    if kind == "other" and pattern.star_k is not None:
        kind = "star"
    if kind == "other" and pattern.about:
        kind = "named"  # a graph of the names table (bull, house, …): its name and description
    edges = ", ".join(f"[{u}, {v}]" for u, v in pattern.graph.edges)
    return {
        "name": pattern.name,
        "kind": kind,
        "about": pattern.about,
        "n": pattern.graph.n,
        "m": pattern.graph.m,
        "k": pattern.star_k,
        "edges": edges,
    }


#: A fixed small graph that shows the answer format (a triangle with a pendant edge).
_FORMAT_EXAMPLE = Graph(4, ((0, 1), (0, 2), (1, 2), (2, 3)))


def format_example(gadget: GadgetForm) -> str:
    """The format-only example answer of the system prompt (same rendering as ``format_answer``)."""
    designated = Designated(
        ((0, 1), (2, 3))[: len(gadget.edge_names)], (0, 1, 3)[: len(gadget.vertex_names)]
    )
    return json.dumps(answer_object(Candidate(_FORMAT_EXAMPLE, designated), gadget))


def _designated_words(gadget: GadgetForm) -> tuple[str, str]:
    names = (*gadget.edge_names, *gadget.vertex_names)
    if len(names) == 1:
        return "the edge e", "edge e"
    kind = "edges" if gadget.edge_names else "vertices"
    joined = ", ".join(names[:-1]) + " and " + names[-1]
    return f"the {kind} {joined}", f"{kind} {joined}"


def _resolve(problem: Problem | str) -> Problem:
    return problem if isinstance(problem, Problem) else get_problem(problem)


def example_problem(problem: Problem | str) -> Problem | None:
    """The P3 counterpart of a star problem (same H and gadget) if it is in the catalog.

    The paper's example hint: for each (K1,3, H) problem whose (P3, H) problem of the same
    gadget type is in the dataset (30 problems), show that problem with a solution.  Problems
    with three or more colours have none.
    """
    problem = _resolve(problem)
    k = problem.F.star_k
    if k is None or k < 3 or not problem.is_pair:
        return None
    try:
        counterpart = get_problem(Problem.make("P3", problem.H, problem.gadget).id)
    except (UnknownProblemError, ValueError):
        return None
    if counterpart.H.graph != problem.H.graph:
        return None
    return counterpart


def settings_for(
    problem: Problem | str, *, min_vertices: int | None = None, extra: bool = False
) -> list[str]:
    """The settings that apply to a problem.

    Catalog problems: all five, except ``example-hint`` without a P3 counterpart (30 have one).
    Problems outside the catalog have ``size-hint`` only when their minimal size is known
    (``min_vertices``, e.g. from a generated problem set).  ``extra`` adds
    :data:`EXTRA_SETTINGS` (every problem has them).
    """
    problem = _resolve(problem)
    out = [s for s in SETTINGS if s != "example-hint" or example_problem(problem) is not None]
    if not (in_catalog(problem) or min_vertices is not None):
        out = [s for s in out if s != "size-hint"]
    return out + list(EXTRA_SETTINGS) if extra else out


def _solution(problem: Problem, what: str) -> Candidate:

    try:
        return get_solution(problem.id).candidate
    except UnknownProblemError:
        raise SettingUnavailableError(
            f"{what} needs the shipped minimal solution of {problem.id}, which is not available"
        ) from None


def _context(
    problem: Problem,
    setting: str,
    tool_mode: str,
    min_vertices: int | None = None,
    python: PythonLimits | None = None,
) -> dict[str, Any]:
    gadget = problem.kind
    long_words, short_words = _designated_words(gadget)
    context: dict[str, Any] = {
        "F": pattern_info(problem.F),
        "H": pattern_info(problem.H),
        "pair": problem.colors_label,
        "multi": not problem.is_pair,
        "colors": [
            {"name": name, "pattern": pattern_info(p)}
            for name, p in zip(problem.color_names, problem.patterns)
        ],
        "color_list": ", ".join(problem.color_names[:-1]) + " and " + problem.color_names[-1],
        "gadget": problem.gadget_name,
        "k": problem.F.star_k or 0,
        "setting": setting,
        "multiround": setting == "multiround",
        "tool_mode": tool_mode,
        "tool_name": TOOL_NAME,
        "tool_max_vertices": TOOL_MAX_VERTICES,
        "rounds": MULTIROUND_ROUNDS,
        "python": setting == PYTHON_SETTING,
        "python_tool_name": PYTHON_TOOL_NAME,
        "format_example": format_example(gadget),
        "edge_names": gadget.edge_names,
        "vertex_names": gadget.vertex_names,
        "designated_words": long_words,
        "designated_words_short": short_words,
    }
    if setting == PYTHON_SETTING:
        context["py"] = (python or PythonLimits()).context()
        context["rounds"] = context["py"]["rounds"]
    if setting == "size-hint":
        context["size"] = (
            min_vertices
            if min_vertices is not None
            else _solution(problem, "the size hint").graph.n
        )
    if setting == "example-hint":
        context["example"] = _example_context(problem)
    return context


def _example_context(problem: Problem) -> dict[str, Any]:
    """The example hint: the solved P3 counterpart of a K1,3 problem (same H and gadget)."""
    counterpart = example_problem(problem)
    if counterpart is None:
        raise SettingUnavailableError(
            f"example-hint does not apply to {problem.id}: it exists only for K1,3 problems whose P3 "
            f"counterpart (same H and gadget) is in the catalog"
        )
    solution = _solution(counterpart, "the example hint")
    return {
        "F": pattern_info(counterpart.F),
        "k": counterpart.F.star_k,
        "pair": f"({counterpart.F.name}, {counterpart.H.name})",
        "n": solution.graph.n,
        "answer": json.dumps(answer_object(solution, problem.kind)),
    }


def _apply_profile(system: str, user: str, profile: ModelProfile) -> list[dict[str, Any]]:
    system = profile.apply_system(system)
    if profile.system_prompt:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return [{"role": "user", "content": render("merged.md.j2", system=system, user=user)}]


def build_prompt(
    problem: Problem | str,
    setting: str,
    profile: ModelProfile | str | None = None,
    *,
    tool_mode: str = "text",
    min_vertices: int | None = None,
    python: PythonLimits | None = None,
) -> Prompt:
    """The first-round prompt of ``problem`` in ``setting``, shaped by a model profile.

    ``min_vertices`` gives the size hint of a problem outside the catalog (default: the
    shipped minimal solution's vertex count); ``python`` the python setting's limits (default
    :class:`PythonLimits`), which the prompt states.
    """
    problem = _resolve(problem)
    if setting not in ALL_SETTINGS:
        raise UnknownSettingError(
            f"unknown setting {setting!r}; expected one of {', '.join(ALL_SETTINGS)}"
        )
    if tool_mode not in TOOL_MODES:
        raise PromptError(f"unknown tool mode {tool_mode!r}; expected text or native")
    profile = get_profile(profile)
    context = _context(problem, setting, tool_mode, min_vertices, python)
    system = render("system.md.j2", **context)
    user = render("task.md.j2", **context)
    tools = None
    if tool_mode == "native" and setting == "multiround":
        tools = [tool_spec(problem)]
    elif tool_mode == "native" and setting == PYTHON_SETTING:
        tools = [python_tool_spec(python or PythonLimits())]
    with_tool = setting in ("multiround", PYTHON_SETTING)
    return Prompt(
        problem_id=problem.id,
        setting=setting,
        messages=_apply_profile(system, user, profile),
        tools=tools,
        assistant_prefix=profile.assistant_prefix,
        profile=profile.name,
        tool_mode=tool_mode if with_tool else "none",
        rounds=context["rounds"] if with_tool else 1,
        sampling=profile.request_params(),
    )


def followup_message(
    problem: Problem | str, round_no: int, tool_result_text: str | None, *, tool_mode: str = "text"
) -> dict[str, Any]:
    """The user message that opens round 2 or 3 of a multiround conversation.

    In text mode it carries the tool output; in native mode the output travels in a ``tool``
    message (:func:`tool_result_message`) and this message only states the round (pass
    ``None``).  Round 3 demands the final answer.
    """
    _resolve(problem)
    if not 2 <= round_no <= MULTIROUND_ROUNDS:
        raise PromptError(
            f"follow-up messages open rounds 2..{MULTIROUND_ROUNDS}, not round {round_no}"
        )
    if tool_mode not in TOOL_MODES:
        raise PromptError(f"unknown tool mode {tool_mode!r}; expected text or native")
    result = tool_result_text if tool_mode == "text" else None
    content = render("followup.md.j2", round_no=round_no, rounds=MULTIROUND_ROUNDS, result=result)
    return {"role": "user", "content": content}


def python_followup_message(
    round_no: int, rounds: int, result_text: str | None, *, tool_mode: str = "text"
) -> dict[str, Any]:
    """The user message that opens round ``round_no`` (2..``rounds``) of the python setting:
    in text mode with the program's output, natively only the round (the output travels in a
    ``tool`` message); the last round demands the final answer."""
    if not 2 <= round_no <= rounds:
        raise PromptError(f"follow-up messages open rounds 2..{rounds}, not round {round_no}")
    if tool_mode not in TOOL_MODES:
        raise PromptError(f"unknown tool mode {tool_mode!r}; expected text or native")
    result = result_text if tool_mode == "text" else None
    content = render("python_followup.md.j2", round_no=round_no, rounds=rounds, result=result)
    return {"role": "user", "content": content}


def tool_result_message(tool_call_id: str, tool_result_text: str) -> dict[str, Any]:
    """The OpenAI ``tool`` message that answers a native tool call (``color_graph``,
    ``run_python``)."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": tool_result_text}


def example_hint_problems() -> list[Problem]:
    """The catalog problems that have the example-hint setting (30 in the paper's catalog)."""

    return [p for p in all_problems() if example_problem(p) is not None]


__all__ = [
    "SETTINGS",
    "EXTRA_SETTINGS",
    "ALL_SETTINGS",
    "MULTIROUND_ROUNDS",
    "TOOL_MODES",
    "Prompt",
    "PromptError",
    "UnknownSettingError",
    "SettingUnavailableError",
    "build_prompt",
    "settings_for",
    "followup_message",
    "python_followup_message",
    "tool_result_message",
    "example_problem",
    "example_hint_problems",
    "format_example",
    "pattern_info",
    "render",
]
