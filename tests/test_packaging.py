"""What the package's distributions hold: the sources and their types, not the benchmarks'
results (built in-process by the build backend, as ``python -m build`` would)."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
builders = pytest.importorskip("hatchling.builders")


def test_the_sdist_holds_sources_tests_and_scripts_but_no_benchmark_results(tmp_path):
    from hatchling.builders.sdist import SdistBuilder

    (built,) = SdistBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    with tarfile.open(built) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert not [name for name in names if name.startswith("benchmarks/results")]
    assert {"src/dppca/py.typed", "tests/conftest.py", "benchmarks/directions.py"} <= names
    assert {"LICENSE", "README.md", "pyproject.toml"} <= names
    assert Path(built).stat().st_size < 3_000_000  # 12.8 MB with the results


def test_the_wheel_holds_the_package_its_types_and_data(tmp_path):
    from hatchling.builders.wheel import WheelBuilder

    (built,) = WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    names = set(zipfile.ZipFile(built).namelist())
    assert {"dppca/py.typed", "dppca/datasets/data/gau_g.csv.gz"} <= names
    assert not [name for name in names if name.startswith(("tests/", "benchmarks/"))]
