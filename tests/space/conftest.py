from pathlib import Path

import pytest

from iotune.space import Space

DEMO = Path(__file__).parent / "data" / "demo.yaml"


@pytest.fixture
def demo_path() -> Path:
    return DEMO


@pytest.fixture
def demo() -> Space:
    return Space.from_yaml(DEMO)
