"""The self-contained HTML report: sortable tables, figures as ``data:`` URIs and, per problem, one
drawing for each model and setting.

Size: per (problem, model, setting) the report draws one *representative* sample, the first
correct run if any (drawn with a good coloring, :func:`~ramseygadgets.report.drawing.good_coloring`), else the first
run with a parsed but wrong answer (drawn with the verifier's counterexample coloring, the
sample's ``witness``), else it shows the parse failure / error text.  Every card also says in
how many runs the problem was solved.  Problems are collapsed (``<details>``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, Template
from markupsafe import Markup

from ramseygadgets import __version__
from ramseygadgets.catalog import find_problem
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.gadgets import Candidate, GadgetType
from ramseygadgets.report.drawing import MAX_DRAWN_VERTICES, graph_picture, picture_svg
from ramseygadgets.report.figures import FigureFiles
from ramseygadgets.report.metrics import Cell, problem_info, problem_sort_key
from ramseygadgets.report.runs import Sample, problem_of_id, setting_sort_key
from ramseygadgets.report.tables import Table
from ramseygadgets.solutions import get_solution
from ramseygadgets.verify import good_coloring

#: The page's template (with its style sheet and script), shipped as package data.
TEMPLATE_NAME = "report.html.j2"

#: Characters of a failed response's tail shown in a card.
RESPONSE_TAIL = 600

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


def draw_sample(sample: Sample, problem_id: str) -> tuple[Markup | None, str]:
    """SVG of the sample's answer and a caption; ``(None, note)`` when it cannot be drawn."""
    if sample.candidate is None:
        return None, ""
    problem = problem_of_id(problem_id)
    try:
        gadget = problem.kind if problem else GadgetType(sample.gadget)
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
    title = f"{problem_id}: {graph.n} vertices, {graph.m} edges"
    return Markup(
        picture_svg(picture, title=title)
    ), f"{graph.n} vertices, {graph.m} edges; {caption}".rstrip("; ")


def reference_drawing(problem_id: str) -> Markup | None:
    """The shipped minimal solution with a good coloring, or ``None`` when none is shipped."""
    problem = find_problem(problem_id)
    if problem is None:
        return None
    try:
        solution = get_solution(problem_id)
    except (RamseyGadgetsError, KeyError, ValueError, OSError):
        return None
    coloring = good_coloring(problem, solution.candidate.graph)
    picture = graph_picture(
        solution.candidate.graph, solution.candidate.designated, problem.kind, coloring
    )
    return Markup(
        picture_svg(
            picture, title=f"{problem_id}: shipped minimal solution ({solution.n} vertices)"
        )
    )


def problem_sections(
    cells: Sequence[Cell], *, drawings: bool = True, advance: Callable[[], None] | None = None
) -> list[ProblemSection]:
    """One section per problem (catalog order), one card per model and setting."""
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
        problem = problem_of_id(problem_id)
        section = ProblemSection(
            problem_id,
            problem.title if problem else problem_id,
            info.tier,
            info.min_vertices,
            reference_drawing(problem_id) if drawings else None,
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
                    card.svg, card.caption = draw_sample(chosen, problem_id)
                if not chosen.correct and chosen.response:
                    card.response = chosen.response[-RESPONSE_TAIL:]
            section.cards.append(card)
            if advance is not None:
                advance()
        sections.append(section)
    return sections


def data_uri(path, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def report_template() -> Template:
    """The report's Jinja template (``ramseygadgets/templates/report.html.j2``), autoescaping on."""
    env = Environment(
        loader=PackageLoader("ramseygadgets", "templates"), autoescape=True, trim_blocks=False
    )
    return env.get_template(TEMPLATE_NAME)


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

    template = report_template()
    table_views = [
        {
            "name": t.name,
            "title": t.title,
            "caption": t.caption,
            "collapsed": t.name in collapsed,
            "columns": t.columns,
            "rows": [
                [(text, sort, col.numeric) for (text, sort), col in zip(row, t.columns)]
                for row in t.display_rows()
            ],
        }
        for t in tables
    ]
    figure_views = [
        {
            "name": f.name,
            "title": f.title,
            "caption": f.caption,
            "uri": data_uri(f.svg, "image/svg+xml"),
        }
        for f in figures
    ]
    return template.render(
        title=title,
        tables=table_views,
        figures=figure_views,
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
