"""Drawing: each figure kind turns its table into a matplotlib figure; :func:`render` gives SVG and PNG bytes.

Only this module imports matplotlib, and only :func:`render` and the drawing
functions need it, so a report's data can be computed (and tested) without
it.  Figures are built with the object-oriented API (``matplotlib.figure``),
never pyplot: no global state, no GUI backend.  SVG text stays text
(``svg.fonttype: none``), so the report's words are searchable, and each
figure salts its SVG ids with its name so that figures inlined in one page
never share an id.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Set
from typing import TYPE_CHECKING, Any

import numpy as np

from iotune.report.tables import Figure

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

BLUE, ORANGE, GREY, RED, PALE = "#3b6ea5", "#e07b24", "#8c8c8c", "#c0392b", "#b9cde3"
RASTER_POINTS = 1000
"""Scatter plots with more points than this embed their markers as an image inside the SVG (size)."""
LABEL_CHARS = 80
DEFAULT_MARK = " (default)"
STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "text.parse_math": False,  # labels come from data: "$\\frac{a$" is a level, not a formula
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.labelsize": 8.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.6,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
}


def _new(width: float, height: float, constrained: bool = True):
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(width, min(height, 200.0)), layout="constrained" if constrained else None)


def _short(text: str, chars: int = LABEL_CHARS) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _widest(texts: list[str], bold: Set[int] = frozenset(), slack: float = 1.08) -> float:
    """Width (inches) of the widest of ``texts`` as tick labels (rows in ``bold`` bold), with ``slack`` for the
    browser: the SVG keeps text as text, which the browser sets in its own copy of the font."""
    from matplotlib import rcParams
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    measure = TextToPath()  # at 72 dpi: widths in points
    fonts = {weight: FontProperties(size=rcParams["ytick.labelsize"], weight=weight) for weight in ("normal", "bold")}
    widest = max((measure.get_text_width_height_descent(text, fonts["bold" if i in bold else "normal"], ismath=False)[0]
                  for i, text in enumerate(texts)), default=0.0)
    return slack * widest / 72.0


def _log(ax, which: str = "xy") -> None:
    """Log scale on the axes ``which`` names, ticks written as plain numbers (0.2, 1, 50) instead of 2x10^-1; an
    axis spanning less than two decades numbers its minor ticks too, else it would show one number or none."""
    from matplotlib.ticker import FuncFormatter

    for name in which:
        axis = ax.xaxis if name == "x" else ax.yaxis
        (ax.set_xscale if name == "x" else ax.set_yscale)("log")
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axis.set_minor_formatter(FuncFormatter(lambda value, _, axis=axis: _minor_label(axis, value)))


def _minor_label(axis, value: float) -> str:
    """A log axis's minor tick label: all of them within half a decade, 2 and 5 within two, none beyond."""
    low, high = sorted(axis.get_view_interval())
    decades = math.log10(high / low) if low > 0 else math.inf
    leading = round(value / 10 ** math.floor(math.log10(value) + 1e-9)) if value > 0 else 0
    if decades <= 0.5 or (decades <= 2 and leading in (2, 5)):
        return f"{value:g}"
    return ""


def _log_if_wide(ax, which: str, values) -> None:
    """Log scale when the positive ``values`` span more than a factor 20."""
    values = [v for v in values if v is not None and math.isfinite(v)]
    if values and min(values) > 0 and max(values) / min(values) > 20:
        _log(ax, which)


def draw_strip(figure: Figure):
    """Every repeat per configuration (dots) and its mean (bar); workloads as headed bands, one panel per value."""
    t, o = figure.data, figure.options
    groups: dict[str, dict[str, list]] = {}
    for row in t.records():
        groups.setdefault(row[o["group"]], {}).setdefault(row[o["label"]], []).append(row)
    labels: list[str] = []
    header_rows: list[int] = []
    rows_of: list = []  # a group header row has None
    for workload, configs in groups.items():
        if len(groups) > 1:
            header_rows.append(len(labels))
            labels.append(workload)
            rows_of.append(None)
        for label, rows in configs.items():
            labels.append(f"{_short(label, LABEL_CHARS - len(DEFAULT_MARK))}{DEFAULT_MARK}" if rows[0][o["default"]]
                          else label)
            rows_of.append(rows)
    # Hundreds of tick labels: a fixed layout instead of the constrained one, which measures every label again
    # and again; the left margin fits the widest label, measured once.
    height = 0.2 * len(labels) + 1.1
    fig = _new(11.0, height, constrained=False)
    left = min(6.0, 0.25 + _widest([_short(label) for label in labels], bold=set(header_rows))) / 11.0
    fig.subplots_adjust(left=left, right=0.985, top=1 - 0.4 / height, bottom=0.6 / height, wspace=0.04)
    many = len(t) > RASTER_POINTS
    for c, column in enumerate(o["values"]):
        ax = fig.add_subplot(1, len(o["values"]), c + 1)
        x, y, colours, means, mean_y, mean_colours = [], [], [], [], [], []
        for position, rows in enumerate(rows_of):
            if rows is None:
                continue
            values = [r[column] for r in rows]
            colour = ORANGE if rows[0][o["default"]] else BLUE
            x += values
            y += [position + (i % 5 - 2) * 0.07 for i in range(len(values))]
            colours += [colour] * len(values)
            means.append(float(np.mean(values)))
            mean_y.append(position)
            mean_colours.append(colour)
        ax.scatter(x, y, s=10, c=colours, alpha=0.75, linewidths=0, rasterized=many, zorder=3)
        ax.vlines(means, np.array(mean_y) - 0.34, np.array(mean_y) + 0.34, colors=mean_colours, linewidth=1.6,
                  zorder=4)
        for number, start in enumerate(header_rows):
            stop = header_rows[number + 1] if number + 1 < len(header_rows) else len(labels)
            if number % 2 == 0:
                ax.axhspan(start - 0.5, stop - 0.5, color="#f2f5f9", zorder=0, linewidth=0)
        ax.set_yticks(range(len(labels)) if c == 0 else [])
        if c == 0:
            ax.set_yticklabels([_short(label) for label in labels])
            for position, tick in enumerate(ax.get_yticklabels()):
                if rows_of[position] is None:
                    tick.set_fontweight("bold")
                elif rows_of[position][0][o["default"]]:
                    tick.set_color(ORANGE)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        _log_if_wide(ax, "x", x)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel(column)
        if len(labels) > 40:  # a tall figure: the scale at the top too
            ax.tick_params(axis="x", top=True, labeltop=True)
        else:
            ax.set_title(column, loc="left")
    return fig


def draw_timeline(figure: Figure):
    """I/O time of each trial against when it started; failed trials along the bottom."""
    t, o = figure.data, figure.options
    fig = _new(10.0, 3.2, constrained=False)
    ax = fig.add_subplot()
    done = [(r[o["x"]], r[o["y"]]) for r in t.records() if r[o["y"]] is not None]
    failed = [r[o["x"]] for r in t.records() if r[o["y"]] is None]
    if done:
        x, y = zip(*done, strict=True)
        ax.scatter(x, y, s=9, color=BLUE, alpha=0.7, linewidths=0, label="completed trial",
                   rasterized=len(done) > RASTER_POINTS)
        _log_if_wide(ax, "y", y)
    if failed:
        bottom = ax.get_ylim()[0] if done else 0.0
        ax.scatter(failed, [bottom] * len(failed), marker="x", s=18, color=RED, label="failed trial", clip_on=False)
    ax.set_xlabel(o["x"])
    ax.set_ylabel(o["y"])
    ax.legend(loc="upper right", frameon=False)
    _one_panel_margins(fig, ax, 10.0, 3.2)
    return fig


def draw_effects(figure: Figure):
    """Main effects as horizontal bars with 95 % whiskers; pale bars are within the noise."""
    t, o = figure.data, figure.options
    rows = t.records()
    fig = _new(10.0, 0.35 * len(rows) + 1.4)
    labels = [_short(f"{r[o['label']]}: {r['low']} → {r['high']}", 50) for r in rows]
    y = np.arange(len(rows))
    for c, (value, half) in enumerate(o["panels"]):
        ax = fig.add_subplot(1, len(o["panels"]), c + 1)
        values = [r[value] for r in rows]
        errors = [r[half] if r[half] is not None else 0.0 for r in rows]
        colours = [BLUE if r[o["matters"]] == "yes" else PALE for r in rows]
        ax.barh(y, values, color=colours, height=0.6, zorder=3)
        if any(r[half] is not None for r in rows):
            ax.errorbar(values, y, xerr=errors, fmt="none", ecolor="#333333", capsize=3, linewidth=1, zorder=4)
        ax.axvline(0, color="#333333", linewidth=0.8)
        ax.set_yticks(y)
        ax.set_yticklabels(labels if c == 0 else [])
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xlabel(value)
        ax.grid(axis="y", visible=False)
    return fig


def draw_predicted(figure: Figure):
    """Held-out predicted against measured values, one panel per model, log scales, the diagonal drawn."""
    t, o = figure.data, figure.options
    panels: dict[str, list] = {}
    for row in t.records():
        panels.setdefault(row[o["panel"]], []).append((row[o["x"]], row[o["y"]]))
    width, height = 3.6 * len(panels), 3.6
    fig = _new(width, height, constrained=False)
    everything = [v for pts in panels.values() for p in pts for v in p if v is not None and v > 0]
    low, high = (min(everything) / 1.3, max(everything) * 1.3) if everything else (0.1, 1.0)
    for i, (name, points) in enumerate(panels.items()):
        ax = fig.add_subplot(1, len(panels), i + 1)
        if i == 0:
            _fixed_margins(fig, ax, low, high, width, height, len(panels))
        x, y = np.array(points, dtype=float).T
        keep = (x > 0) & (y > 0)
        ax.scatter(x[keep], y[keep], s=8, color=BLUE, alpha=0.5, linewidths=0, rasterized=len(t) > RASTER_POINTS)
        ax.plot([low, high], [low, high], color=GREY, linewidth=1, linestyle="--")
        _log(ax)
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        ax.set_title(name, loc="left")
        ax.set_xlabel(o["x"])
        if i == 0:
            ax.set_ylabel(o["y"])
    return fig


def _fixed_margins(fig, ax, low: float, high: float, width: float, height: float, panels: int) -> None:
    """Margins (inches) of equal log-log panels on [low, high] that fit their widest tick label, measured once: the
    constrained layout measured every tick label of the panels again and again (issue 32: a third of a report's
    drawing)."""
    _log(ax)
    ax.set_ylim(low, high)
    axis = ax.yaxis
    labels = [f"{v:g}" for v in axis.get_majorticklocs() if low <= v <= high]
    labels += [_minor_label(axis, v) for v in axis.get_minorticklocs() if low <= v <= high]
    numbers = _widest([label for label in labels if label], slack=1.15)
    left, gap, right, bottom, top = numbers + 0.4, numbers + 0.25, 0.15, 0.46, 0.26
    panel = (width - left - right - gap * (panels - 1)) / panels
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                        wspace=gap / panel)


def _one_panel_margins(fig, ax, width: float, height: float) -> None:
    """Margins (inches) of a figure's only panel that fit its y tick labels, measured once, instead of the
    constrained layout, which measures every tick label several times (issue 32)."""
    ax.autoscale_view()
    low, high = sorted(ax.get_ylim())
    axis = ax.yaxis
    labels = axis.get_major_formatter().format_ticks([v for v in axis.get_majorticklocs() if low <= v <= high])
    minor = [v for v in axis.get_minorticklocs() if low <= v <= high]
    labels += axis.get_minor_formatter().format_ticks(minor) if minor else []
    left = _widest([label for label in labels if label], slack=1.15) + 0.4
    fig.subplots_adjust(left=left / width, right=1 - 0.2 / width, bottom=0.46 / height, top=1 - 0.12 / height)


def draw_progress(figure: Figure):
    """The search's best so far (solid), random sampling's expected best (dashed) and 10-90 % band, each value."""
    t, o = figure.data, figure.options
    x = np.array(t.column(o["x"]), dtype=float)
    fig = _new(8.0, 3.6)
    ax = fig.add_subplot()
    ax.scatter(x, t.column(o["value"]), s=12, color=GREY, alpha=0.6, linewidths=0, label="configuration measured")
    ax.fill_between(x, t.column(o["low"]), t.column(o["high"]), color=ORANGE, alpha=0.18, linewidth=0,
                    step="post", label="random sampling, 10% to 90%")
    ax.step(x, t.column(o["expected"]), where="post", color=ORANGE, linestyle="--", linewidth=1.6,
            label="random sampling, expected best")
    ax.step(x, t.column(o["best"]), where="post", color=BLUE, linewidth=2, label="search, best so far")
    _log_if_wide(ax, "y", t.column(o["value"]))
    ax.set_xlabel(f"{o['x']} (budget used)")
    ax.set_ylabel(o["best"].replace("search best so far ", ""))
    ax.legend(frameon=False, fontsize=7.5, loc="upper right" if o["better"] == "lower" else "lower right")
    return fig


def draw_spread(figure: Figure):
    """Standard deviation against mean per configuration, lines of constant cv, bimodal ones ringed."""
    t, o = figure.data, figure.options
    x = np.array(t.column(o["x"]), dtype=float)
    y = np.array(t.column(o["y"]), dtype=float)
    bimodal = np.array([v == "yes" for v in t.column(o["bimodal"])])
    fig = _new(6.0, 4.0, constrained=False)
    ax = fig.add_subplot()
    keep = (x > 0) & (y > 0)
    ax.scatter(x[keep], y[keep], s=14, color=BLUE, alpha=0.7, linewidths=0, label="configuration",
               rasterized=len(x) > RASTER_POINTS)
    if (keep & bimodal).any():
        ax.scatter(x[keep & bimodal], y[keep & bimodal], s=60, facecolors="none", edgecolors=RED, linewidths=1,
                   label="bimodal runs")
    if keep.any():
        _log(ax)
        span = np.array([x[keep].min() / 1.5, x[keep].max() * 1.5])
        for cv in (0.01, 0.1, 1.0):
            ax.plot(span, cv * span, color=GREY, linestyle=":", linewidth=0.9)
            ax.annotate(f"cv {cv:.0%}", (span[1], cv * span[1]), fontsize=7, color=GREY, ha="right", va="bottom")
        ax.set_xlim(*span)
    if (~keep).any():
        ax.text(0.01, 0.01, f"{int((~keep).sum())} configurations with zero spread not drawn", fontsize=7,
                transform=ax.transAxes, color=GREY)
    ax.set_xlabel(o["x"])
    ax.set_ylabel(o["y"])
    ax.legend(frameon=False, loc="upper left")
    _one_panel_margins(fig, ax, 6.0, 4.0)
    return fig


def draw_mapfit(figure: Figure):
    """Held-out predicted against measured spread, the diagonal drawn."""
    t, o = figure.data, figure.options
    x = np.array(t.column(o["x"]), dtype=float)
    y = np.array(t.column(o["y"]), dtype=float)
    fig = _new(4.5, 4.0, constrained=False)
    ax = fig.add_subplot()
    ax.scatter(x, y, s=14, color=BLUE, alpha=0.7, linewidths=0, rasterized=len(x) > RASTER_POINTS)
    values = np.concatenate([x, y])
    low, high = float(values.min()), float(values.max())
    if low > 0 and high / low > 20:
        _log(ax)
    pad = (high - low) * 0.05 or 0.01
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color=GREY, linestyle="--", linewidth=1)
    ax.set_xlabel(o["x"])
    ax.set_ylabel(o["y"])
    _one_panel_margins(fig, ax, 4.5, 4.0)
    return fig


def draw_needed(figure: Figure):
    """Configurations per bucket of runs needed; the darker part already has that many runs."""
    t, o = figure.data, figure.options
    labels = t.column(o["label"])
    fig = _new(6.5, 3.2)
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    ax.bar(x, t.column(o["count"]), color=PALE, label="configurations", zorder=3)
    ax.bar(x, t.column(o["done"]), color=BLUE, label="already measured that often", zorder=4)
    ax.set_xticks(x)
    ax.set_xticklabels(labels)
    ax.set_xlabel(o["label"] + " (runs)")
    ax.set_ylabel("configurations")
    ax.grid(axis="x", visible=False)
    ax.legend(frameon=False)
    return fig


def draw_gain(figure: Figure):
    """Gain over the default configuration per workload with its 95 % interval; 1 marked."""
    t, o = figure.data, figure.options
    rows = t.records()
    fig = _new(9.0, 0.32 * len(rows) + 1.3)
    ax = fig.add_subplot()
    kinds = set()
    for y, row in enumerate(rows):
        kind = _gain_kind(row[o["basis"]], row[o["low"]] is not None)
        kinds.add(kind)
        colour, marker = GAIN_KINDS[kind][:2]
        if row[o["low"]] is not None:
            ax.plot([row[o["low"]], row[o["high"]]], [y, y], color=colour, linewidth=2, alpha=0.6)
        ax.scatter([row[o["value"]]], [y], color=colour, s=28, zorder=3, marker=marker)
    ax.axvline(1.0, color="#333333", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([_short(r[o["label"]], 60) for r in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    values = [v for r in rows for v in (r[o["value"]], r[o["low"]], r[o["high"]]) if v is not None]
    _log_if_wide(ax, "x", values)
    ax.set_xlabel(f"{o['value']}: default configuration / recommended (time), above 1 is better")
    ax.grid(axis="y", visible=False)
    from matplotlib.lines import Line2D

    shown = [kind for kind in GAIN_KINDS if kind in kinds]
    fig.legend(handles=[Line2D([], [], marker=GAIN_KINDS[k][1], color=GAIN_KINDS[k][0],
                               linestyle="-" if k == "interval" else "none", label=GAIN_KINDS[k][2]) for k in shown],
               frameon=False, loc="outside lower center", ncols=len(shown), fontsize=7.5)
    return fig


GAIN_KINDS = {"interval": (BLUE, "o", "measured (95% interval)"),
              "measured": (BLUE, "o", "measured, too few runs for an interval"),
              "predicted": (ORANGE, "D", "predicted (no interval)")}
"""How a gain is drawn by where it comes from: colour, marker, legend entry."""


def _gain_kind(basis: str, interval: bool) -> str:
    if interval:
        return "interval"
    return "measured" if basis.startswith("measured") else "predicted"


def draw_bars(figure: Figure):
    """Grouped horizontal bars: one group per label, one bar per series."""
    t, o = figure.data, figure.options
    labels = t.column(o["label"])
    fig = _new(8.0, 0.3 * len(labels) * len(o["series"]) + 1.0)
    ax = fig.add_subplot()
    height = 0.8 / len(o["series"])
    # the palette bounds the series drawn: strict=False keeps the old behaviour of dropping any beyond it
    for i, (series, colour) in enumerate(zip(o["series"], (BLUE, ORANGE, GREY), strict=False)):
        y = np.arange(len(labels)) + (i - (len(o["series"]) - 1) / 2) * height
        ax.barh(y, t.column(series), height=height, color=colour, label=series, zorder=3)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlabel(o.get("xlabel", ""))
    ax.grid(axis="y", visible=False)
    ax.legend(frameon=False)
    return fig


def draw_histogram(figure: Figure):
    """Grouped vertical bars per bin, one panel per group (e.g. request sizes per layer)."""
    t, o = figure.data, figure.options
    panels: dict[str, list] = {}
    for row in t.records():
        panels.setdefault(row[o["panel"]], []).append(row)
    fig = _new(9.0, 2.6 * len(panels) + 0.4)
    for p, (name, rows) in enumerate(panels.items()):
        ax = fig.add_subplot(len(panels), 1, p + 1)
        x = np.arange(len(rows))
        width = 0.8 / len(o["series"])
        # the palette bounds the series drawn, as above
        for i, (series, colour) in enumerate(zip(o["series"], (BLUE, ORANGE), strict=False)):
            ax.bar(x + (i - (len(o["series"]) - 1) / 2) * width, [r[series] for r in rows], width=width,
                   color=colour, label=series, zorder=3)
        ax.set_xticks(x)
        ax.set_xticklabels([r[o["label"]] for r in rows], fontsize=7)
        ax.set_ylabel("calls")
        ax.set_title(name, loc="left")
        ax.grid(axis="x", visible=False)
        if p == 0:
            ax.legend(frameon=False)
        if p == len(panels) - 1:
            ax.set_xlabel(o["label"] + " (bytes per call)")
    return fig


DRAW = {"strip": draw_strip, "timeline": draw_timeline, "effects": draw_effects, "predicted": draw_predicted,
        "progress": draw_progress, "spread": draw_spread, "mapfit": draw_mapfit, "needed": draw_needed,
        "gain": draw_gain, "bars": draw_bars, "histogram": draw_histogram}


def render(figure: Figure, png: bool = False) -> tuple[str, bytes | None]:
    """The figure as SVG text (no XML prologue, ready to inline) and, if asked, PNG bytes (150 dpi)."""
    import matplotlib

    if figure.kind not in DRAW:
        raise ValueError(f"unknown figure kind {figure.kind!r}; known: {', '.join(DRAW)}")
    with matplotlib.rc_context({**STYLE, "svg.hashsalt": f"iotune-{figure.name}"}):
        drawn = DRAW[figure.kind](figure)
        buffer = io.StringIO()
        drawn.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
        svg = buffer.getvalue()
        image = None
        if png:
            raw = io.BytesIO()
            drawn.savefig(raw, format="png", dpi=150)
            image = raw.getvalue()
    return prefix_ids(svg[svg.index("<svg"):], f"fig-{figure.name}"), image


def prefix_ids(svg: str, prefix: str) -> str:
    """Every id of ``svg`` and every reference to one (``url(#id)``, ``href="#id"``) prefixed with ``prefix-``.

    matplotlib names groups ``figure_1``, ``axes_1``, ... in every SVG: inlined
    side by side in one page they would collide.
    """
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"', svg)
