"""One self-contained HTML page from computed sections and rendered figures.

Nothing is fetched when the page opens: figures are inline SVG, styles are in
the page, there is no script, and each figure's data is a ``data:`` link.  A
Content-Security-Policy that allows nothing from elsewhere makes any slip
(an external image, a font) fail loudly in the browser console instead of
silently needing the network.
"""

from __future__ import annotations

import base64
import html
from datetime import datetime, timezone

from iotune.report.tables import Section, Table, fmt_number

LONG_TABLE = 20
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d1d1f;
       margin: 0 auto; max-width: 1180px; padding: 1.2em 2em 4em; line-height: 1.45; font-size: 15px; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 2px solid #3b6ea5; padding-bottom: 0.2em; margin-top: 2.2em; }
h3 { font-size: 1em; margin: 1.2em 0 0.4em; }
.meta { color: #666; font-size: 0.9em; margin-top: 0; }
nav ol { columns: 2; font-size: 0.95em; }
.empty { color: #555; font-style: italic; background: #f5f5f5; padding: 0.6em 0.9em; border-radius: 4px; }
.warning { background: #fff4e5; border-left: 4px solid #e07b24; padding: 0.5em 0.9em; margin: 0.6em 0; }
figure.plot { margin: 1.2em 0; }
figure.plot svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.88em; color: #444; margin-top: 0.3em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0 1em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f3f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { font-size: 0.85em; color: #555; margin: -0.6em 0 1em; }
pre { background: #f5f5f5; padding: 0.6em 0.9em; overflow-x: auto; font-size: 0.85em; }
details summary { cursor: pointer; color: #3b6ea5; margin: 0.4em 0; }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def cell(value) -> str:
    """A table cell's text: floats to 4 significant digits, booleans yes/no, None as "-"."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt_number(value, 4)
    return str(value)


def table_html(table: Table) -> str:
    """A table with its title and note; long ones folded in a <details>."""
    head = "".join(f"<th>{_e(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{_e(cell(v))}</td>' if isinstance(v, (int, float)) and
                         not isinstance(v, bool) else f"<td>{_e(cell(v))}</td>" for v in row) + "</tr>"
        for row in table.rows)
    out = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if table.note:
        out += f'<p class="note">{_e(table.note)}</p>'
    title = f"<h3>{_e(table.title)}</h3>" if table.title else ""
    if len(table) > LONG_TABLE:
        return f"{title}<details><summary>{len(table)} rows: show</summary>{out}</details>"
    return title + out


def figure_html(number: int, figure, svg: str) -> str:
    """An inline SVG figure with its caption and a link to its data as CSV."""
    csv = base64.b64encode(figure.data.to_csv().encode()).decode()
    link = (f'<a download="{_e(figure.name)}.csv" href="data:text/csv;base64,{csv}">data (CSV)</a>')
    return (f'<figure class="plot" id="figure-{_e(figure.name)}" data-figure="{_e(figure.name)}">{svg}'
            f"<figcaption><b>Figure {number}.</b> {_e(figure.title)}. {_e(figure.caption)} {link}</figcaption>"
            "</figure>")


def section_html(section: Section, svgs: dict[str, str], first_number: int) -> str:
    parts = [f'<section id="{_e(section.key)}"><h2>{_e(section.title)}</h2>']
    if section.empty:
        parts.append(f'<p class="empty">{_e(section.empty)}</p>')
    parts += [f"<p>{_e(p)}</p>" for p in section.paragraphs]
    parts += [f'<p class="warning">{_e(w)}</p>' for w in section.warnings]
    for i, figure in enumerate(section.figures):
        parts.append(figure_html(first_number + i, figure, svgs[figure.name]))
    parts += [table_html(t) for t in section.tables]
    parts += [f"<p>{_e(p)}</p>" for p in section.closing]
    for title, text in section.blocks:
        parts.append(f"<h3>{_e(title)}</h3><pre>{_e(text)}</pre>")
    parts.append("</section>")
    return "".join(parts)


def page(title: str, subtitle: str, sections: list[Section], svgs: dict[str, str], version: str) -> str:
    """The whole page."""
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    nav = "".join(f'<li><a href="#{_e(s.key)}">{_e(s.title)}</a>{" (nothing to show)" if s.empty else ""}</li>'
                  for s in sections)
    body, number = [], 1
    for section in sections:
        body.append(section_html(section, svgs, number))
        number += len(section.figures)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
            "<link rel=\"icon\" href=\"data:,\">"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{_e(title)}</h1><p class=\"meta\">{_e(subtitle)} · made by iotune {_e(version)} on "
            f"{_e(when)}</p><nav><ol>{nav}</ol></nav></header><main>{''.join(body)}</main></body></html>\n")
