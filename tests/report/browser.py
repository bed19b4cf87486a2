"""Open a report in headless Chromium (Debian's, driven by Playwright) and say what did not render.

Chromium runs as root here only with ``--no-sandbox``; the other switches keep
it from spending its time trying to reach Google.  Playwright never downloads
a browser: it is given Debian's binary.
"""

from __future__ import annotations

import contextlib
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
    (clipped), console errors, page errors, requests, broken images and duplicate ids."""
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
    if found["duplicate_ids"]:
        out.append(f"ids used twice: {found['duplicate_ids'][:5]}")
    return out
