"""Prompts for the five evaluation settings and ``python``, built from the text templates in
``templates/``.

Public API (used by the evaluation harness and the eval-framework integrations)::

    SETTINGS, ALL_SETTINGS, MULTIROUND_ROUNDS, settings_for(problem), build_prompt(problem,
    setting, profile, tool_mode=...) -> Prompt, followup_message(problem, round_no,
    tool_result_text), python_followup_message(round_no, rounds, text),
    tool_result_message(tool_call_id, text)
"""

from __future__ import annotations

from ramseygadgets.prompts.builder import (
    ALL_SETTINGS,
    EXTRA_SETTINGS,
    MULTIROUND_ROUNDS,
    SETTINGS,
    TOOL_MODES,
    Prompt,
    PromptError,
    SettingUnavailableError,
    UnknownSettingError,
    build_prompt,
    example_hint_problems,
    example_problem,
    followup_message,
    format_example,
    python_followup_message,
    settings_for,
    tool_result_message,
)

__all__ = [
    "ALL_SETTINGS",
    "EXTRA_SETTINGS",
    "MULTIROUND_ROUNDS",
    "SETTINGS",
    "TOOL_MODES",
    "Prompt",
    "PromptError",
    "SettingUnavailableError",
    "UnknownSettingError",
    "build_prompt",
    "example_hint_problems",
    "example_problem",
    "followup_message",
    "format_example",
    "python_followup_message",
    "settings_for",
    "tool_result_message",
]
