"""Labels from data are drawn as text, never parsed as matplotlib mathtext (issue 22, item 9).

Before: a categorical level ``$\\frac{a$`` made `iotune report` fail with
``internal error: ValueError: ParseSyntaxException``.
"""

import pytest

from iotune.report.figures import render
from iotune.report.tables import Figure, Table


@pytest.mark.parametrize("label", [r"$\frac{a$", r"$x^2$", "a $ b $ c", r"$\undefinedcommand$"])
def test_a_label_with_dollars_is_drawn_as_itself(label):
    table = Table(("label", "time"), [(label, 1.0), ("plain", 2.0)])
    figure = Figure("f", "bars", "t", table, options={"label": "label", "series": ["time"], "xlabel": label})
    svg, _ = render(figure)
    shown = label.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert shown in svg
