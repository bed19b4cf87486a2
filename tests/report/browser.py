"""Open a report in headless Chromium (Debian's, driven by Playwright) and say what did not render.

Chromium runs as root here only with ``--no-sandbox``; the other switches keep
it from spending its time trying to reach Google.  Playwright never downloads
a browser: it is given Debian's binary.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
SWITCHES = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]

FIGURES = """() => Array.from(document.querySelectorAll('figure.plot')).map(figure => {
    const svg = figure.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    return {name: figure.dataset.figure, svg: !!svg, width: box.width, height: box.height,
            shapes: svg ? svg.querySelectorAll('path, use, text, image').length : 0};
})"""
IMAGES = """async () => {
    const broken = [];
    for (const img of document.querySelectorAll('img')) {
        if (!img.complete || img.naturalWidth === 0) broken.push(img.getAttribute('src').slice(0, 60));
    }
    for (const image of document.querySelectorAll('svg image')) {
        const href = image.getAttribute('href') || image.getAttribute('xlink:href');
        const probe = new Image();
        probe.src = href;
        try { await probe.decode(); } catch (error) { broken.push(href.slice(0, 60)); }
    }
    return {broken: broken, count: document.querySelectorAll('img, svg image').length};
}"""
CLIPPED = """() => {
    const out = [];
    for (const figure of document.querySelectorAll('figure.plot')) {
        const svg = figure.querySelector('svg');
        if (!svg) continue;
        const box = svg.getBoundingClientRect();
        for (const text of svg.querySelectorAll('text')) {
            const r = text.getBoundingClientRect();
            if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
                                || r.bottom > box.bottom + 1)) {
                out.push(figure.dataset.figure + ': ' + text.textContent.slice(0, 60));
            }
        }
    }
    return out;
}"""
DUPLICATE_IDS = """() => {
    const seen = new Set(), twice = [];
    for (const element of document.querySelectorAll('[id]')) {
        if (seen.has(element.id)) twice.push(element.id); else seen.add(element.id);
    }
    return twice;
}"""

AXES = """() => {
    const out = [];
    for (const figure of document.querySelectorAll('figure.plot')) {
        const svg = figure.querySelector('svg');
        if (!svg) continue;
        for (const axis of svg.querySelectorAll('g[id*="matplotlib.axis_"]')) {
            const labels = Array.from(axis.querySelectorAll('g[id*="tick_"] text'))
                .filter(text => text.getBoundingClientRect().width > 0)
                .map(text => text.textContent.trim()).filter(text => text);
            out.push({figure: figure.dataset.figure, axis: axis.id.split('-').pop(), labels: labels});
        }
    }
    return out;
}"""
WORKLOAD_CELLS = """() => {
    const out = [];
    for (const table of document.querySelectorAll('table')) {
        const heads = Array.from(table.querySelectorAll('thead th')).map(th => th.textContent.trim());
        const column = heads.indexOf('workload');
        if (column < 0) continue;
        for (const row of table.querySelectorAll('tbody tr')) {
            const cell = row.children[column];
            if (cell) out.push(cell.textContent.trim());
        }
    }
    return out;
}"""
SVG_TEXTS = """() => Object.fromEntries(Array.from(document.querySelectorAll('figure.plot')).map(figure =>
    [figure.dataset.figure, Array.from(figure.querySelectorAll('svg text')).map(text => text.textContent.trim())]))"""
DEFAULT_LABELS = """() => Array.from(document.querySelectorAll('figure.plot svg text'))
    .map(text => text.textContent.trim()).filter(text => text.includes('(def'))"""
NUMBER = re.compile(r"^[-\u2212]?\d[\d.,]*(e[-+]?\d+)?$")


@contextlib.contextmanager
def chromium():
    """A Playwright browser context of Debian's Chromium with a fresh profile directory."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="iotune-chromium-") as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=SWITCHES)
        try:
            yield context
        finally:
            context.close()


def inspect(context, path: Path, width: int = 1280) -> dict:
    """Open ``path`` in a window ``width`` pixels wide and report its figures, text that falls outside its figure
    (clipped), console errors, page errors, requests, broken images, duplicate ids, each axis's tick labels, the
    cells of workload columns, figure labels marking the default and the page's text."""
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    console, requests = [], []
    page.on("console", lambda message: console.append((message.type, message.text)))
    page.on("pageerror", lambda error: console.append(("pageerror", str(error))))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(Path(path).resolve().as_uri(), wait_until="load")
        return {"figures": page.evaluate(FIGURES), "images": page.evaluate(IMAGES),
                "duplicate_ids": page.evaluate(DUPLICATE_IDS), "clipped": page.evaluate(CLIPPED),
                "axes": page.evaluate(AXES), "workloads": page.evaluate(WORKLOAD_CELLS),
                "default_labels": page.evaluate(DEFAULT_LABELS), "svg_texts": page.evaluate(SVG_TEXTS), "text": page.inner_text("body"),
                "title": page.title(),
                "errors": [text for kind, text in console if kind in ("error", "pageerror")],
                "warnings": [text for kind, text in console if kind == "warning"],
                "foreign_requests": [u for u in requests if not u.startswith(("file:", "data:"))]}
    finally:
        page.close()


def problems(found: dict, expected_figures: list[str]) -> list[str]:
    """What is wrong with a page :func:`inspect` looked at, given the figures it should show."""
    out = []
    names = [f["name"] for f in found["figures"]]
    if names != expected_figures:
        out.append(f"figures {names} instead of {expected_figures}")
    for figure in found["figures"]:
        if not figure["svg"] or figure["width"] <= 0 or figure["height"] <= 0 or figure["shapes"] == 0:
            out.append(f"figure {figure['name']} did not render: {figure}")
    out += [f"console error: {text}" for text in found["errors"]]
    out += [f"request outside the file: {url}" for url in found["foreign_requests"]]
    out += [f"image did not load: {src}" for src in found["images"]["broken"]]
    out += [f"text outside its figure (clipped): {text}" for text in found["clipped"][:5]]
    for axis in found["axes"]:
        if axis["labels"] and all(NUMBER.match(label) for label in axis["labels"]) and len(axis["labels"]) < 2:
            out.append(f"figure {axis['figure']}: {axis['axis']} shows {len(axis['labels'])} number(s): "
                       f"{axis['labels']}")
    out += [f"a label cuts the default's mark: {label}" for label in found["default_labels"]
            if not label.endswith("(default)")]
    if "-" in found["workloads"]:
        out.append("a workload column shows '-'")
    if found["duplicate_ids"]:
        out.append(f"ids used twice: {found['duplicate_ids'][:5]}")
    return out
