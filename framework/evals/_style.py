"""The HTML report's style sheet: system fonts, a restrained palette, room to read."""

from __future__ import annotations

__all__ = ["STYLE"]

STYLE = """
:root { color-scheme: light; --ink: #0f172a; --text: #334155; --muted: #64748b;
  --line: #e2e8f0; --panel: #f8fafc; --accent: #2563eb;
  --ok: #166534; --ok-bg: #dcfce7; --bad: #991b1b; --bad-bg: #fee2e2;
  --warn: #92400e; --warn-bg: #fef3c7; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: var(--text); font: 14px/1.5 system-ui,
  -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 32px 32px 64px; }
h1, h2, h3, h4 { color: var(--ink); line-height: 1.25; }
h1 { font-size: 26px; margin: 2px 0 16px; word-break: break-word; }
h2 { font-size: 19px; margin: 40px 0 14px; padding-bottom: 8px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 10px; }
h4 { font-size: 14px; margin: 0 0 8px; font-weight: 600; }
code, pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.kicker { margin: 0; color: var(--muted); font-size: 12px; letter-spacing: .08em;
  text-transform: uppercase; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 32px; margin: 0 0 20px; }
.facts dt { color: var(--muted); font-size: 12px; }
.facts dd { margin: 0; color: var(--ink); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px;
  background: var(--panel); }
.card-name { color: var(--muted); font-size: 12px; }
.card-value { color: var(--ink); font-size: 24px; font-weight: 600; margin: 2px 0; }
.card-note { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr));
  gap: 16px; align-items: start; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--ink); font-weight: 600; margin-bottom: 10px; }
.note, .empty { color: var(--muted); }
.status { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px;
  font-weight: 600; white-space: nowrap; }
.status-passed { color: var(--ok); background: var(--ok-bg); }
.status-failed { color: var(--bad); background: var(--bad-bg); }
.status-error { color: var(--warn); background: var(--warn-bg); }
.was { color: var(--muted); font-size: 12px; margin-top: 4px; }
.change { border: 1px solid var(--line); border-left: 4px solid var(--accent);
  border-radius: 6px; padding: 12px 16px; margin: 10px 0; }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; padding: 10px 8px;
  border-bottom: 1px solid var(--line); }
thead th { color: var(--muted); font-size: 12px; font-weight: 600; background: var(--panel);
  white-space: nowrap; }
tbody th { font-weight: 400; white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.tag { display: inline-block; margin: 0 4px 4px 0; padding: 0 7px; border-radius: 4px;
  background: #eef2ff; color: #3730a3; font-size: 12px; }
.verdicts { list-style: none; margin: 0; padding: 0; min-width: 260px; }
.verdicts li { margin: 0 0 4px; }
.mark { font-size: 12px; font-weight: 600; }
.bad .mark { color: var(--bad); }
.ok .mark { color: var(--ok); }
.branch { color: var(--muted); font-size: 12px; }
.error { color: var(--warn); margin: 0; }
.thread { min-width: 150px; }
tr.case > * { border-bottom: 0; padding-bottom: 4px; }
.answer-row > td { padding-top: 0; }
.cmd { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
details summary { cursor: pointer; color: var(--accent); }
details[open] summary { margin-bottom: 6px; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--panel);
  border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 0;
  max-width: 100ch; }
.question { margin: 0 0 6px; }
pre.diff { max-width: none; }
.diff span { display: block; }
.diff .add { background: var(--ok-bg); color: var(--ok); }
.diff .del { background: var(--bad-bg); color: var(--bad); }
.diff .hunk { color: var(--muted); }
"""
