"""scikit-learn imported without pandas, when nothing has imported pandas yet.

scikit-learn's ``sklearn.utils.fixes`` runs ``try: import pandas`` at import
time and keeps the module in a name nothing else reads (scikit-learn 1.9:
``sklearn.utils.fixes.pd``); it recognises a DataFrame by looking for pandas in
``sys.modules`` when it is given one.  Importing pandas (and pyarrow) that way
was about 0.25 s of CPU in a report's first fit (issue 32: a report of new data
within 3 s), for a library the report never uses.  Hidden while scikit-learn
loads, pandas stays importable afterwards, and scikit-learn still takes
DataFrames once it is.
"""

from __future__ import annotations

import sys


def import_sklearn() -> None:
    """Import scikit-learn's base (and so its ``utils``) with pandas hidden, unless either is loaded already."""
    if "sklearn" in sys.modules or "pandas" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]  # `import pandas` raises ImportError
    try:
        import sklearn.base  # noqa: F401
    finally:
        del sys.modules["pandas"]
