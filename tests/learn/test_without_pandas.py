"""scikit-learn imported with pandas hidden (issue 32): pandas is not loaded, and both still work together after."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("pandas")

PROBE = """
import json, sys
from iotune.learn.without_pandas import import_sklearn
import_sklearn()
before = sorted({m.split(".")[0] for m in sys.modules} & {"sklearn", "pandas", "pyarrow"})
import pandas
from sklearn.linear_model import LinearRegression
frame = pandas.DataFrame({"a": [0.0, 1.0, 2.0], "b": [1.0, 0.0, 1.0]})
fitted = LinearRegression().fit(frame, [1.0, 3.0, 5.0])
print(json.dumps({"before": before, "names": list(fitted.feature_names_in_),
                  "predicted": fitted.predict(frame.iloc[:1]).tolist()}))
"""


def test_sklearn_loads_without_pandas_and_takes_dataframes_once_pandas_is_imported():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["before"] == ["sklearn"]
    assert found["names"] == ["a", "b"]  # recognised as a DataFrame: pandas is found when it is loaded
    assert found["predicted"] == pytest.approx([1.0])


def test_pandas_loaded_first_is_left_alone():
    code = ("import sys, pandas; from iotune.learn.without_pandas import import_sklearn; import_sklearn(); "
            "import sklearn.base; print(sys.modules['pandas'] is pandas)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr
