"""The self-contained HTML report: sortable tables, figures as ``data:`` URIs and, per problem, one
drawing for each model and setting.

Size: per (problem, model, setting) the report draws one *representative* sample, the first
correct run if any (drawn with a good coloring, :func:`~ramseygadgets.report.drawing.good_coloring`), else the first
run with a parsed but wrong answer (drawn with the verifier's counterexample coloring, the
sample's ``witness``), else it shows the parse failure / error text.  Every card also says in
how many runs the problem was solved.  Problems are collapsed (``<details>``).

Layout: the page opens on a one-line summary, the leaderboard and the main figure; each table's
definitions are folded (``<details>``) under it; a long text cell (a command, a hash) is clipped
to one line with its whole text in the ``title`` attribute (hover) and shown whole on a click.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, Template
from markupsafe import Markup

from ramseygadgets import __version__
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate, GadgetKind
from ramseygadgets.problems.catalog import find_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.report.drawing import MAX_DRAWN_VERTICES, graph_picture, picture_svg
from ramseygadgets.report.figures import FigureFiles
from ramseygadgets.report.metrics import Cell, problem_info, problem_sort_key
from ramseygadgets.report.runs import Sample, problem_of_id, setting_sort_key
from ramseygadgets.report.tables import Table
from ramseygadgets.verification.selection import Selection
from ramseygadgets.verification.verifier import good_coloring

__all__ = [
    "TEMPLATE_NAME",
    "RESPONSE_TAIL",
    "GALLERY_NOTE",
    "Card",
    "ProblemSection",
    "representative",
    "known_problem",
    "draw_sample",
    "reference_drawing",
    "problem_sections",
    "data_uri",
    "CLIP_CHARS",
    "DEFINED_UNDER",
    "MAIN_FIGURES",
    "definitions_by_table",
    "clip_class",
    "main_figure",
    "summary_items",
    "split_caption",
    "report_template",
    "render_html",
]

#: The page's template (with its style sheet and script), shipped as package data.
TEMPLATE_NAME = "report.html.j2"

#: Characters of a failed response's tail shown in a card.
RESPONSE_TAIL = 600

#: A text cell longer than this is clipped to one line (its whole text on hover and on a click).
CLIP_CHARS = 24

#: Where each definition is folded: the table it defines, by the definition's first words; one
#: that matches none, or whose table is not in the report, goes under the first table.
DEFINED_UNDER: tuple[tuple[str, str], ...] = (
    ("Accuracy of a run", "leaderboard"),
    ("Missing samples", "leaderboard"),
    ("±", "table1"),
    ("Pass@k", "table1"),
    ("Average total tokens", "table1"),
    ("Outcomes", "outcomes"),
    ("Several run directories", "leaderboard"),
    ("Minimal rate", "optimum"),
    ("Discoveries", "discoveries"),
    ("Every grade is re-derived", "disputed"),
    ("Benchmark vs fresh", "fresh_vs_benchmark"),
)

#: The figure shown under the leaderboard, the first of these the report has (else its first).
MAIN_FIGURES = ("accuracy_by_tier", "accuracy_vs_tokens")

_HEX = re.compile(r"[0-9a-f]{16,}")
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z0-9])")

GALLERY_NOTE = (
    "Per problem, one card per model and setting showing a representative run: the first correct run "
    "(drawn with a good coloring: red and blue edges, designated edges thick and labelled, designated "
    "vertices ringed in yellow), else the first wrong answer (drawn with the verifier's counterexample "
    "coloring; grey edges are not coloured by it), else the parse failure or error."
)


@dataclass
class Card:
    model: str
    setting: str
    outcome: str
    solved: int
    runs: int
    run: int | None = None
    svg: Markup | None = None
    caption: str = ""
    reason: str = ""
    response: str = ""


@dataclass
class ProblemSection:
    problem_id: str
    title: str
    tier: str
    min_vertices: int | None
    reference: Markup | None = None
    cards: list[Card] = field(default_factory=list)
    #: what the optimum graded against rests on, where not proven in full (:mod:`..basis`)
    rests_on: str | None = None

    @property
    def solved(self) -> int:
        return sum(c.solved for c in self.cards)

    @property
    def total(self) -> int:
        return sum(c.runs for c in self.cards)


def representative(samples: Sequence[Sample]) -> Sample | None:
    """First correct sample, else first with a parsed answer, else first recorded (by run)."""
    ordered = sorted(samples, key=lambda s: s.run)
    for test in (lambda s: s.correct, lambda s: s.candidate is not None, lambda s: True):
        for s in ordered:
            if test(s):
                return s
    return None


def known_problem(problem_id: str, problems: Selection | None = None) -> Problem | None:
    """The problem an id names: from ``problems`` (the report's problem set: a ``--dataset``
    file, the extended set), else the catalog or a three-colour id, else ``None``."""
    if problems is not None:
        found = problems.by_id.get(problem_id)
        if found is not None:
            return found
    return problem_of_id(problem_id)


def _kind_of_name(gadget: str) -> GadgetKind:
    """The gadget kind a recorded gadget name (``green-determiner``, ``positive-sender``) names."""
    if gadget.endswith("-determiner"):
        return GadgetKind.DETERMINER
    return GadgetKind(gadget)


def draw_sample(
    sample: Sample, problem_id: str, problems: Selection | None = None
) -> tuple[Markup | None, str]:
    """SVG of the sample's answer and a caption; ``(None, note)`` when it cannot be drawn."""
    if sample.candidate is None:
        return None, ""
    problem = known_problem(problem_id, problems)
    try:
        gadget = problem.kind if problem else _kind_of_name(sample.gadget)
        candidate = Candidate.from_json(sample.candidate, gadget, max_vertices=MAX_DRAWN_VERTICES)
    except (RamseyGadgetsError, ValueError) as exc:
        return None, f"answer not drawn: {exc}"
    coloring: Any = None
    caption = ""
    if sample.correct and problem is not None:
        coloring = good_coloring(problem, candidate.graph)
        caption = "a good coloring" if coloring is not None else ""
    elif sample.witness:
        coloring = sample.witness
        caption = "counterexample coloring"
    picture = graph_picture(candidate.graph, candidate.designated, gadget, coloring)
    graph = candidate.graph
    title = f"{problem.title if problem else problem_id}: {graph.n} vertices, {graph.m} edges"
    return Markup(
        picture_svg(picture, title=title)
    ), f"{graph.n} vertices, {graph.m} edges; {caption}".rstrip("; ")


def reference_drawing(problem_id: str, problems: Selection | None = None) -> Markup | None:
    """The problem's shipped minimal solution (the paper's 70, the report's problem set: the
    extended set, a ``--dataset`` file) with a good coloring, or ``None`` when none is known."""
    problem = known_problem(problem_id, problems)
    if problem is None:
        return None
    candidate = problems.solution(problem) if problems is not None else None
    if candidate is None and find_problem(problem_id) is not None:
        try:
            candidate = get_solution(problem_id).candidate
        except (RamseyGadgetsError, KeyError, ValueError, OSError):
            candidate = None
    if candidate is None:
        return None
    coloring = good_coloring(problem, candidate.graph)
    picture = graph_picture(candidate.graph, candidate.designated, problem.kind, coloring)
    title = f"{problem.title}: shipped minimal solution ({candidate.graph.n} vertices)"
    return Markup(picture_svg(picture, title=title))


def optimum_rests_on(samples: Sequence[Sample]) -> str | None:
    """What the optimum these samples were graded against rests on, as the report re-derived it
    (``None``: proven in full, or no optimum)."""
    for sample in samples:
        optimum = sample.sizes.optimum
        if optimum is not None:
            return None if optimum.basis.proven else optimum.basis.phrase()
    return None


def problem_sections(
    cells: Sequence[Cell],
    *,
    drawings: bool = True,
    advance: Callable[[], None] | None = None,
    problems: Selection | None = None,
) -> list[ProblemSection]:
    """One section per problem (catalog order), one card per model and setting, titled by the
    problem's readable title; ``problems`` names the problems outside the catalog and gives
    their shipped solutions."""
    by_problem: dict[str, list[tuple[Cell, list[tuple[str, int]]]]] = {}
    for cell in sorted(cells, key=lambda c: (c.model, setting_sort_key(c.setting))):
        for p, keys in cell.keys_by_problem().items():
            by_problem.setdefault(p, []).append((cell, keys))
    sections: list[ProblemSection] = []
    for problem_id in sorted(by_problem, key=problem_sort_key):
        samples_all = [
            c.samples[k] for c, keys in by_problem[problem_id] for k in keys if k in c.samples
        ]
        info = problem_info(problem_id, samples_all)
        problem = known_problem(problem_id, problems)
        section = ProblemSection(
            problem_id,
            problem.title if problem else problem_id,
            info.tier,
            info.min_vertices,
            reference_drawing(problem_id, problems) if drawings else None,
            rests_on=optimum_rests_on(samples_all),
        )
        for cell, keys in by_problem[problem_id]:
            samples = [cell.samples[k] for k in keys if k in cell.samples]
            card = Card(
                cell.model, cell.setting, "missing", sum(s.correct for s in samples), len(keys)
            )
            chosen = representative(samples)
            if chosen is None:
                card.reason = "no sample recorded (run did not finish)"
            else:
                card.outcome, card.run = chosen.outcome, chosen.run
                card.reason = chosen.error or chosen.parse_error or chosen.reason
                if drawings:
                    card.svg, card.caption = draw_sample(chosen, problem_id, problems)
                if not chosen.correct and chosen.response:
                    card.response = chosen.response[-RESPONSE_TAIL:]
            section.cards.append(card)
            if advance is not None:
                advance()
        sections.append(section)
    return sections


def definitions_by_table(
    definitions: Sequence[str], table_names: Sequence[str]
) -> dict[str, list[str]]:
    """Each definition under the table it defines (:data:`DEFINED_UNDER`), in the given order;
    every definition lands under exactly one table (the first one when none matches; the key
    ``""``, a block of its own, when there is no table)."""
    folded: dict[str, list[str]] = {name: [] for name in table_names}
    fallback = table_names[0] if table_names else ""
    for text in definitions:
        target = next((t for prefix, t in DEFINED_UNDER if text.startswith(prefix)), None)
        folded.setdefault(target if target in folded else fallback, []).append(text)
    return folded


def clip_class(text: str, numeric: bool) -> str:
    """The CSS class of a cell: ``clip`` (one line, ellipsis) for a long text; ``clip cmd`` for a
    command line and ``clip hash`` for a hexadecimal digest, which give up their width first
    (a digest's first characters tell two apart); none for a short text or a number."""
    if numeric or len(text) <= CLIP_CHARS:
        return ""
    if _HEX.fullmatch(text):
        return "clip hash"
    return "clip cmd" if " --" in text or text.startswith("ramseygadgets ") else "clip"


def split_caption(caption: str) -> tuple[str, str]:
    """A caption's first sentence (shown) and the rest (folded with the table's definitions); a
    sentence ends at a full stop before a capital or a digit, so "e.g. x" does not end one."""
    parts = _SENTENCE_END.split(caption.strip(), maxsplit=1)
    return parts[0], (parts[1] if len(parts) > 1 else "")


def main_figure(names: Sequence[str]) -> str | None:
    """The figure shown near the top: the first of :data:`MAIN_FIGURES` present, else the first."""
    return next((n for n in MAIN_FIGURES if n in names), names[0] if names else None)


def summary_items(
    tables: Sequence[Table],
    problems: Sequence[ProblemSection],
    sources: Sequence[str],
    warnings: Sequence[str],
) -> list[tuple[str, str]]:
    """The page's one-line summary: (label, value) for the leaderboard's rows and its best row,
    the problems and samples drawn, the sources read and the warnings."""
    items: list[tuple[str, str]] = []
    board = next((t for t in tables if t.name == "leaderboard"), None)
    if board is not None:
        rows = board.display_rows()
        titles = [c.title for c in board.columns]
        items.append(("rows", str(len(rows))))

        def cell(row: Sequence[tuple[str, Any]], prefix: str) -> str | None:
            index = next((i for i, t in enumerate(titles) if t.startswith(prefix)), None)
            return None if index is None else row[index][0]

        if rows:
            best = [cell(rows[0], p) for p in ("Model", "Setting", "Accuracy")]
            items.append(("best", " · ".join(x for x in best if x)))
    if problems:
        items.append(("problems", str(len(problems))))
        items.append(("samples", str(sum(p.total for p in problems))))
    items.append(("sources", str(len(sources))))
    items.append(("warnings", str(len(warnings))))
    return items


def data_uri(path, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def report_template() -> Template:
    """The report's Jinja template (``ramseygadgets/templates/report.html.j2``), autoescaping on."""
    env = Environment(
        loader=PackageLoader("ramseygadgets", "templates"), autoescape=True, trim_blocks=False
    )
    return env.get_template(TEMPLATE_NAME)


def _table_view(table: Table, definitions: list[str], collapsed: bool) -> dict[str, Any]:
    """What the template shows of one table: the caption's first sentence and the rest, the
    definitions folded under it, and each cell as (text, sort key, numeric, clip class)."""
    head, rest = split_caption(table.caption)
    rows = [
        [
            (text, sort, col.numeric, clip_class(text, col.numeric))
            for (text, sort), col in zip(row, table.columns)
        ]
        for row in table.display_rows()
    ]
    return {
        "name": table.name,
        "title": table.title,
        "caption": head,
        "more": rest,
        "definitions": definitions,
        "collapsed": collapsed,
        "columns": table.columns,
        "rows": rows,
        "fit": any(clip for row in rows for *_, clip in row),
    }


def render_html(
    *,
    title: str,
    tables: Sequence[Table],
    figures: Sequence[FigureFiles],
    problems: Sequence[ProblemSection],
    definitions: Sequence[str],
    warnings: Sequence[str],
    sources: Sequence[str],
    resamples: int,
    seed: int,
    collapsed: Sequence[str] = (),
) -> str:
    """The page: summary, leaderboard and main figure first, then the other tables (each with its
    definitions folded under it), the other figures, the problems and the sources."""
    template = report_template()
    folded = definitions_by_table(definitions, [t.name for t in tables])
    table_views = [_table_view(t, folded[t.name], t.name in collapsed) for t in tables]
    figure_views = [
        {
            "name": f.name,
            "title": f.title,
            "caption": f.caption,
            "uri": data_uri(f.svg, "image/svg+xml"),
        }
        for f in figures
    ]
    main = main_figure([f.name for f in figures])
    return template.render(
        title=title,
        tables=table_views,
        figures=[f for f in figure_views if f["name"] != main],
        main_figure=next((f for f in figure_views if f["name"] == main), None),
        summary=summary_items(tables, problems, sources, warnings),
        loose_definitions=folded.get("", []),
        problems=problems,
        definitions=definitions,
        warnings=warnings,
        sources=sources,
        resamples=resamples,
        seed=seed,
        gallery_note=GALLERY_NOTE,
        version=__version__,
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )
