"""The HTML report's template, style sheet and script (kept in Python so installs carry them).

The page is self-contained: no external URL anywhere; figures are ``data:`` URIs, graph drawings
inline SVG, the table-sorting script inline.
"""

__all__ = [
    "CSS",
    "JS",
    "TEMPLATE",
]


CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px;
       padding: 0 18px 60px; color: #1d1d1d; }
h1 { margin-top: 24px; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 36px; }
nav a { margin-right: 12px; }
.note { color: #555; font-size: 13px; }
.warn { background: #fff4e5; border-left: 4px solid #f0a020; padding: 6px 10px; }
table.sortable { border-collapse: collapse; margin: 10px 0 18px; font-size: 13px; }
table.sortable th, table.sortable td { border: 1px solid #ddd; padding: 3px 6px; }
table.sortable td { max-width: 22em; overflow-wrap: anywhere; }
table.sortable td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.sortable th { background: #f4f4f4; cursor: pointer; user-select: none; vertical-align: bottom;
                    min-width: 4em; }
table.sortable th[aria-sort=ascending]::after { content: " \\25B2"; font-size: 10px; }
table.sortable th[aria-sort=descending]::after { content: " \\25BC"; font-size: 10px; }
.scroll { overflow-x: auto; }
figure { margin: 16px 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 13px; }
details.problem { border: 1px solid #ddd; border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.problem > summary { cursor: pointer; font-weight: 600; }
.badge { display: inline-block; border-radius: 10px; padding: 0 7px; font-size: 12px; font-weight: 600; color: #fff; }
.b-correct { background: #2ca02c; } .b-wrong { background: #d62728; } .b-parse-failure { background: #ff7f0e; }
.b-truncated { background: #9467bd; } .b-error { background: #7f7f7f; } .b-missing { background: #bbb; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
.card { border: 1px solid #e2e2e2; border-radius: 6px; padding: 6px; width: 232px; font-size: 12px; }
.card h4 { margin: 0 0 4px; font-size: 12px; }
.card .reason { color: #333; }
.card pre { white-space: pre-wrap; word-break: break-word; max-height: 160px; overflow: auto; background: #f7f7f7;
            font-size: 11px; padding: 4px; }
svg.graph { display: block; margin: 2px auto; }
"""

JS = r"""
(function () {
  "use strict";
  function key(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) { raw = cell.textContent.trim(); }
    if (raw === "") { return null; }
    var num = Number(raw);
    return isFinite(num) ? num : raw.toLowerCase();
  }
  function compare(a, b) {
    if (a === b) { return 0; }
    if (a === null) { return 1; }
    if (b === null) { return -1; }
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    if (typeof a === "number") { return -1; }
    if (typeof b === "number") { return 1; }
    return a < b ? -1 : 1;
  }
  function sortBy(table, th, index) {
    var body = table.tBodies[0];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var a = key(r1.cells[index]), b = key(r2.cells[index]);
      if (a === null || b === null) { return compare(a, b); }
      return ascending ? compare(a, b) : compare(b, a);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.title = "click to sort";
      th.addEventListener("click", function () { sortBy(table, th, index); });
    });
  });
  document.body.setAttribute("data-report-ready", "1");
})();
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{ title }}</title>
<style>{{ css }}</style>
</head>
<body>
<h1>{{ title }}</h1>
<p class="note">Generated {{ generated }} by ramseygadgets {{ version }} from {{ sources|length }} source(s);
bootstrap: {{ resamples }} resamples over problems, seed {{ seed }}.</p>
<nav>{% for t in tables %}<a href="#{{ t.name }}">{{ t.title.split(':')[0] }}</a>{% endfor %}
<a href="#figures">Figures</a>{% if problems %}<a href="#problems">Problems</a>{% endif %}<a href="#sources">Sources</a></nav>
{% if warnings %}<div class="warn"><strong>{{ warnings|length }} warning(s) while reading the runs:</strong>
<ul>{% for w in warnings[:50] %}<li>{{ w }}</li>{% endfor %}</ul>{% if warnings|length > 50 %}<p>… and {{ warnings|length - 50 }} more</p>{% endif %}</div>{% endif %}
<h2>Definitions</h2>
<ul class="note">{% for d in definitions %}<li>{{ d }}</li>{% endfor %}</ul>
{% for t in tables %}
<h2 id="{{ t.name }}">{{ t.title }}</h2>
<p class="note">{{ t.caption }}</p>
{% if t.collapsed %}<details><summary>{{ t.rows|length }} rows (click to show)</summary>{% endif %}
<div class="scroll"><table class="sortable" id="table-{{ t.name }}">
<thead><tr>{% for c in t.columns %}<th>{{ c.title }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in t.rows %}<tr>{% for text, sort, numeric in row %}<td{% if numeric %} class="num"{% endif %}{% if sort is not none %} data-sort="{{ sort }}"{% else %} data-sort=""{% endif %}>{{ text }}</td>{% endfor %}</tr>
{% endfor %}</tbody></table></div>
{% if t.collapsed %}</details>{% endif %}
{% endfor %}
<h2 id="figures">Figures</h2>
{% for f in figures %}
<figure id="figure-{{ f.name }}"><img src="{{ f.uri }}" alt="{{ f.title }}"><figcaption><strong>{{ f.title }}.</strong> {{ f.caption }}</figcaption></figure>
{% endfor %}
{% if problems %}
<h2 id="problems">Problems</h2>
<p class="note">{{ gallery_note }}</p>
{% for p in problems %}
<details class="problem" id="problem-{{ p.problem_id }}"><summary>{{ p.title }} <span class="note">({{ p.problem_id }}; {{ p.tier }}; minimal size {{ p.min_vertices if p.min_vertices is not none else "?" }}) — solved in {{ p.solved }} of {{ p.total }} samples</span></summary>
{% if p.reference %}<div class="cards"><div class="card"><h4>Shipped minimal solution</h4>{{ p.reference }}<div class="reason">a good coloring; designated items marked</div></div></div>{% endif %}
<div class="cards">
{% for c in p.cards %}<div class="card"><h4>{{ c.model }} · {{ c.setting }}</h4>
<span class="badge b-{{ c.outcome }}">{{ c.outcome }}</span> solved {{ c.solved }}/{{ c.runs }} runs{% if c.run is not none %}; shown: run {{ c.run }}{% endif %}
{% if c.svg %}{{ c.svg }}{% endif %}
{% if c.caption %}<div class="note">{{ c.caption }}</div>{% endif %}
{% if c.reason %}<div class="reason">{{ c.reason }}</div>{% endif %}
{% if c.response %}<details><summary>response (last {{ c.response|length }} characters)</summary><pre>{{ c.response }}</pre></details>{% endif %}
</div>
{% endfor %}</div>
</details>
{% endfor %}
{% endif %}
<h2 id="sources">Sources</h2>
<ul class="note">{% for s in sources %}<li>{{ s }}</li>{% endfor %}</ul>
<script>{{ js }}</script>
</body>
</html>
"""
