"""The HTML report: built from hand-made run directories with every outcome, checked statically and
in headless Chromium driven over the DevTools protocol (CDP): no console errors, no network
requests, every image loads, every graph drawing renders, the tables sort."""

from __future__ import annotations

import contextlib
import csv
import json
import re
import shutil
import subprocess
import time
import urllib.request

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app

CHROMIUM = (
    shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
)
PROBLEMS = [
    "p3_k3_red_determiner",
    "p3_k3_positive_sender",
    "k13_k3_red_determiner",
    "k13_k3_clause_gadget",
    "k13_k4_variable_gadget",
]
PLAN = {  # model -> problem -> outcomes of runs 0, 1 (None: missing)
    "alpha": {
        "p3_k3_red_determiner": ["correct", "correct"],
        "p3_k3_positive_sender": ["wrong", "correct"],
        "k13_k3_red_determiner": ["truncated", "wrong"],
        "k13_k3_clause_gadget": ["parse-failure", None],
        "k13_k4_variable_gadget": ["error", "wrong"],
    },
    "beta": {
        "p3_k3_red_determiner": ["wrong", "wrong"],
        "p3_k3_positive_sender": ["correct", "parse-failure"],
        "k13_k3_red_determiner": ["correct", None],
        "k13_k3_clause_gadget": ["correct", "wrong"],
        "k13_k4_variable_gadget": ["correct", "truncated"],
    },
}
SETTINGS = ["zero-shot", "example-hint"]
# drawings: the 5 shipped solutions, plus per model and setting each problem with a correct or wrong answer
# (alpha: zero-shot 4 of 5 (the clause gadget only has a parse failure), example hint 2; beta: 5 and 2)
DRAWN = 5 + (4 + 2) + (5 + 2)


@pytest.fixture(scope="module")
def built(tmp_path_factory, report_helpers):
    make_sample, write_run_dir = report_helpers.make_sample, report_helpers.write_run_dir
    base = tmp_path_factory.mktemp("html")
    from ramseygadgets.report import example_hint_applies

    dirs = []
    for model, plan in PLAN.items():
        samples = []
        for setting in SETTINGS:
            for problem, outcomes in plan.items():
                if setting == "example-hint" and not example_hint_applies(problem):
                    continue
                for run, outcome in enumerate(outcomes):
                    if outcome is not None:
                        samples.append(
                            make_sample(problem, setting, run, outcome, tokens=1000 + 100 * run)
                        )
        dirs.append(
            write_run_dir(
                base / model,
                problems=PROBLEMS,
                settings=SETTINGS,
                runs=2,
                samples=samples,
                model_label=model,
            )
        )
    out = base / "report"
    result = CliRunner().invoke(
        app, ["report", *map(str, dirs), "--out", str(out), "--bootstrap", "200"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_report_files_and_size(built):
    for name in (
        "table1",
        "table1_wide",
        "table2",
        "outcomes",
        "by_tier",
        "by_size",
        "by_gadget",
        "by_pair",
        "per_problem",
        "optimum",
        "discoveries",
        "leaderboard",
    ):
        assert (built / f"{name}.md").is_file() and (built / f"{name}.csv").is_file()
    assert (built / "discoveries.jsonl").read_text() == ""  # no discoveries: an empty file
    figures = ("accuracy_vs_tokens", "accuracy_vs_size", "accuracy_by_tier", "outcomes")
    for name in (*figures, "excess_vertices"):
        assert (built / "figures" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert (built / "figures" / f"{name}.svg").read_text().lstrip().startswith("<?xml")
    html = (built / "report.html").read_text()
    assert len(html) < 2_000_000
    summary = json.loads((built / "summary.json").read_text())
    assert {(r["model"], r["setting"]) for r in summary["table1"]} == {
        (m, s) for m in PLAN for s in SETTINGS
    }


def test_html_is_self_contained(built):
    html = (built / "report.html").read_text()
    # every src/href is a data: URI or an in-page anchor; no external script or style sheet
    for attr, value in re.findall(r'\b(src|href)="([^"]*)"', html):
        assert value.startswith(("data:", "#")), (attr, value[:80])
    assert "<script src" not in html and "@import" not in html
    # one card per model x setting x problem (example hint only where it applies), wrong answers with reasons
    # 2 models x (5 zero-shot + 2 example-hint problems) + the shipped solution of each of the 5 problems
    assert html.count('class="card"') == 2 * (5 + 2) + 5
    assert "counterexample coloring" in html and "a good coloring" in html
    assert "parse-failure missing" in html and "error wrong" in html  # per-problem outcomes by run


def test_table1_numbers(built):
    import csv

    rows = {(r["model"], r["setting"]): r for r in csv.DictReader((built / "table1.csv").open())}
    alpha = rows[("alpha", "zero-shot")]
    # alpha zero-shot: run 0 solves 1 of 5, run 1 solves 2 of 5 -> 30 % ± sd(0.2, 0.4) = 14.14
    assert float(alpha["mean_accuracy_pct"]) == pytest.approx(30.0)
    assert float(alpha["std_pct"]) == pytest.approx(14.1421, abs=1e-3)
    assert float(alpha["pass_at_k_pct"]) == pytest.approx(40.0) and alpha["samples_missing"] == "1"
    # the example hint applies to k13_k3_red_determiner and k13_k4_variable_gadget: beta solves 2/2 in
    # run 0 and 0/2 in run 1 (one missing, one truncated)
    beta_hint = rows[("beta", "example-hint")]
    assert beta_hint["problems"] == "2" and float(beta_hint["mean_accuracy_pct"]) == pytest.approx(
        50.0
    )
    assert beta_hint["n_truncated"] == "1" and beta_hint["samples_missing"] == "1"


# ---------------------------------------------------------------------------------------------
# Headless Chromium over CDP
# ---------------------------------------------------------------------------------------------
class DevTools:
    """A minimal CDP session over the page's websocket (``websockets`` sync client)."""

    def __init__(self, url: str):
        from websockets.sync.client import connect

        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(url, max_size=None, open_timeout=15))
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, timeout: float = 15, **params):
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == ident:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = 20) -> dict:
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            self.events.append(message)
            if message.get("method") == method:
                return message
        raise AssertionError(f"timed out waiting for {method}")

    def js(self, expression: str):
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise AssertionError(f"JS error in {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self) -> None:
        self.stack.close()


@pytest.fixture
def browser(tmp_path):
    if CHROMIUM is None:
        pytest.skip(
            "Chromium is not installed (Debian package 'chromium'; scripts/setup.sh --test installs it)"
        )
    pytest.importorskip(
        "websockets", reason="the websockets package (test extra) drives Chromium over CDP"
    )
    profile = tmp_path / "chromium-profile"
    process = subprocess.Popen(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "--window-size=1280,1800",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.is_file() and port_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Chromium did not start (exit code {process.poll()})")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            targets = json.load(response)
        page = next(t for t in targets if t.get("type") == "page")
        tools = DevTools(page["webSocketDebuggerUrl"])
        try:
            yield tools
        finally:
            tools.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_report_in_headless_chromium(built, browser):
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.call(f"{domain}.enable")
    url = (built / "report.html").resolve().as_uri()
    browser.call("Page.navigate", url=url)
    browser.wait_for("Page.loadEventFired")
    assert browser.js("document.body.getAttribute('data-report-ready')") == "1"

    # every <img> (the figures) decoded; every graph drawing has a size once its problem is opened
    images = browser.js(
        "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert len(images) == 5 and all(ok and w > 0 and h > 0 for ok, w, h in images), images
    browser.js("document.querySelectorAll('details').forEach(d => d.open = true)")
    boxes = browser.js(
        "Array.from(document.querySelectorAll('svg.graph')).map(s => s.getBoundingClientRect().width)"
    )
    assert len(boxes) == DRAWN and all(w > 100 for w in boxes)

    # sorting: numeric column ascending, then descending; text column alphabetical
    column = """(t, i) => Array.from(document.querySelectorAll('#table-' + t + ' tbody tr'))
                          .map(r => r.cells[i].getAttribute('data-sort'))"""
    headers = browser.js(
        "Array.from(document.querySelectorAll('#table-table1 th')).map(h => h.textContent)"
    )
    acc = headers.index("Accuracy % (mean ± sd)")
    click = f"document.querySelectorAll('#table-table1 th')[{acc}].click()"
    browser.js(click)
    up = [float(x) for x in browser.js(f"({column})('table1', {acc})")]
    assert up == sorted(up) and len(up) == 4 and up[0] < up[-1]
    assert (
        browser.js(
            f"document.querySelectorAll('#table-table1 th')[{acc}].getAttribute('aria-sort')"
        )
        == "ascending"
    )
    browser.js(click)
    down = [float(x) for x in browser.js(f"({column})('table1', {acc})")]
    assert down == sorted(up, reverse=True)
    browser.js("document.querySelectorAll('#table-per_problem th')[0].click()")
    problems = browser.js(f"({column})('per_problem', 0)")
    assert problems == sorted(problems) and len(problems) == 14

    # nothing went wrong: no exceptions, no console errors, no request other than file:/data:
    browser.call("Runtime.evaluate", expression="1")  # flush pending events
    exceptions = [e for e in browser.events if e.get("method") == "Runtime.exceptionThrown"]
    console_errors = [
        e
        for e in browser.events
        if e.get("method") == "Runtime.consoleAPICalled"
        and e["params"].get("type") in ("error", "assert")
    ]
    log_errors = [
        e
        for e in browser.events
        if e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("level") == "error"
    ]
    assert not exceptions and not console_errors and not log_errors, (
        exceptions,
        console_errors,
        log_errors,
    )
    requests = [
        e["params"]["request"]["url"]
        for e in browser.events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    assert requests and all(u.startswith(("file:", "data:")) for u in requests), requests
    shot = browser.call("Page.captureScreenshot", format="png")
    assert len(shot["data"]) > 1000


LAYOUT_JS = """(() => {
  const board = document.querySelector('#table-leaderboard');
  const rows = Array.from(board.tBodies[0].rows).map(r => r.getBoundingClientRect().height);
  const scroller = document.scrollingElement;
  const first = document.querySelector('h2').id;
  const clipped = Array.from(board.querySelectorAll('td.clip')).map(
      td => [td.title, td.textContent, td.scrollWidth > td.clientWidth]);
  return {rows, first, clipped, page: [scroller.scrollWidth, window.innerWidth],
          table: [board.parentElement.scrollWidth, board.parentElement.clientWidth],
          figure: document.querySelector('figure.main img') ?
              document.querySelector('figure.main').getBoundingClientRect().top : null,
          defs: document.querySelectorAll('details.defs').length,
          wide: Array.from(document.body.querySelectorAll('*')).filter(
              e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map(
              e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)),
          open_defs: document.querySelectorAll('details.defs[open]').length};
})()"""


@pytest.fixture
def long_leaderboard(tmp_path, report_helpers):
    """A report whose leaderboard has long cells: five settings, a long model label, a recorded
    command of 180 characters and a problem-set hash."""
    from ramseygadgets.report import example_hint_applies

    settings = ["zero-shot", "structural-hint", "size-hint", "example-hint", "multiround"]
    problems = ["k13_k3_red_determiner", "k13_k4_variable_gadget"]
    samples = [
        report_helpers.make_sample(p, s, r, "correct" if r % 2 else "wrong", tokens=123_456)
        for s in settings
        for p in problems
        if s != "example-hint" or example_hint_applies(p)
        for r in range(5)
    ]
    label = "openai/Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
    run = report_helpers.write_run_dir(
        tmp_path / "run",
        problems=problems,
        settings=settings,
        runs=5,
        samples=samples,
        model_label=label,
    )
    config = json.loads((run / "config.json").read_text())
    config["command"] = (
        f"ramseygadgets eval --model openai/{label} --base-url http://gpu-node-17.example:8000/v1 "
        "--setting zero-shot,structural-hint,size-hint,example-hint,multiround --runs 5 --out runs/q"
    )
    config["dataset_hash"] = "8e4c3e0223aa1856a5f05cf8ba63a2546158c602f4203f5ff2aedfac1494dd5c"
    (run / "config.json").write_text(json.dumps(config))
    out = tmp_path / "report"
    args = ["report", str(run), "--out", str(out), "--bootstrap", "50", "--no-drawings"]
    assert CliRunner().invoke(app, args).exit_code == 0
    # the leaderboard shows the hash of the problems graded against (re-derived), not config's
    shown = next(csv.DictReader((out / "leaderboard.csv").open()))["dataset_hash"]
    return out / "report.html", {**config, "dataset_hash": shown}


def _open_at(browser, page, width: int, height: int) -> dict:
    for domain in ("Runtime", "Log", "Page"):
        browser.call(f"{domain}.enable")
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=height,
        deviceScaleFactor=1,
        mobile=width < 600,
    )
    browser.call("Page.navigate", url=page.resolve().as_uri())
    browser.wait_for("Page.loadEventFired")
    return browser.js(LAYOUT_JS)


def _console_errors(browser) -> list:
    browser.call("Runtime.evaluate", expression="1")  # flush pending events
    return [
        e
        for e in browser.events
        if e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("level") == "error")
    ]


def test_the_leaderboard_reads_at_a_glance_at_1400px(long_leaderboard, browser):
    """The page opens on the leaderboard: one line per row (at most 48 px), no horizontal scroll
    of the page or the table, the command and the hash clipped with their whole text on hover,
    the main figure right under it, the definitions folded; no console error."""
    page, config = long_leaderboard
    layout = _open_at(browser, page, 1400, 900)
    assert layout["first"] == "leaderboard"
    assert len(layout["rows"]) == 5 and max(layout["rows"]) <= 48, layout["rows"]
    assert layout["page"][0] <= layout["page"][1], layout
    assert layout["table"][0] <= layout["table"][1], layout["table"]
    whole = {title: cut for title, _, cut in layout["clipped"]}
    assert whole.get(config["command"]) is True and whole.get(config["dataset_hash"]) is True
    assert layout["figure"] is not None and layout["defs"] >= 1 and layout["open_defs"] == 0
    # a click on a clipped cell shows it whole
    browser.js("document.querySelector('#table-leaderboard td.clip').click()")
    assert browser.js(
        "document.querySelector('#table-leaderboard td.clip').classList.contains('open')"
    )
    assert _console_errors(browser) == []


def test_the_report_fits_a_phone(long_leaderboard, browser):
    """At 390 px the page itself never scrolls sideways: wide tables scroll in their own box."""
    page, _ = long_leaderboard
    layout = _open_at(browser, page, 390, 844)
    assert layout["page"][0] <= layout["page"][1], layout["page"]
    assert _console_errors(browser) == []


def test_every_definition_is_folded_under_exactly_one_table():
    from ramseygadgets.report.build import DEFINITIONS
    from ramseygadgets.report.html import definitions_by_table

    names = ["leaderboard", "table1", "outcomes", "optimum", "discoveries", "disputed"]
    folded = definitions_by_table(DEFINITIONS, names)
    assert sorted(d for ds in folded.values() for d in ds) == sorted(DEFINITIONS)
    assert any(d.startswith("Pass@k") for d in folded["table1"])
    assert any(d.startswith("Minimal rate") for d in folded["optimum"])
    # a definition of a table the report lacks goes under the first table; no table: a block of its own
    assert definitions_by_table(["Benchmark vs fresh: x", "Other"], ["leaderboard"]) == {
        "leaderboard": ["Benchmark vs fresh: x", "Other"]
    }
    assert definitions_by_table(["Other"], []) == {"": ["Other"]}


def test_long_cells_are_clipped_and_numbers_never():
    from ramseygadgets.report.html import clip_class, split_caption

    assert clip_class("x" * 64, numeric=False) == "clip"
    assert clip_class(
        "8e4c3e0223aa1856a5f05cf8ba63a2546158c602f4203f5ff2aedfac1494dd5c", False
    ) == ("clip hash")
    assert clip_class("ramseygadgets eval --model random --runs 2 --out x", False) == "clip cmd"
    assert clip_class("structural-hint", False) == "" and clip_class("1" * 40, True) == ""
    assert split_caption("One row per model. Accuracy: mean.") == (
        "One row per model.",
        "Accuracy: mean.",
    )


def test_table1_fits_a_1400px_page(long_leaderboard, browser):
    """Five runs (pass@1..4 columns), every setting and a long model label: Table 1 is read
    without a horizontal scrollbar on a 1400 px wide page."""
    page, _ = long_leaderboard
    _open_at(browser, page, 1400, 1000)
    box = browser.js(
        "(() => { const t = document.querySelector('#table-table1'), s = t.parentElement;"
        " return [s.scrollWidth, s.clientWidth, t.getBoundingClientRect().right]; })()"
    )
    scroll_width, client_width, right = box
    assert scroll_width <= client_width and right <= 1400, box
