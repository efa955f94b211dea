"""``import dppca`` stays light: scikit-learn, matplotlib and Dask load only when used."""

from __future__ import annotations

import subprocess
import sys

import pytest
from packaging.version import Version


def test_import_does_not_load_scikit_learn_matplotlib_dask_shiny_or_scipy_stats():
    """``import dppca`` loads numpy, pandas and scipy's special functions and linear algebra;
    scipy.stats (a third of a second) only when a pure-DP composition needs it."""
    code = (
        "import sys, dppca, numpy; "
        "print(','.join(m for m in ('sklearn', 'matplotlib', 'dask', 'shiny', 'scipy.stats') "
        "if m in sys.modules) or '-'); "
        "dppca.dp_loading(numpy.eye(30, 3), 1.0, 1e-6, random_state=0); "
        "print(','.join(m for m in ('sklearn', 'matplotlib', 'dask', 'shiny') "
        "if m in sys.modules) or '-'); "
        "dppca.DPPCA; print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["-", "-", "True"]  # scikit-learn only once DPPCA is used


def cites_the_last_release(version: str, cited: str) -> bool:
    """The rule of CITATION.cff: it names the last release, never a development version. At a
    release that is the package's version; between releases the package has a ``.dev``
    version, newer than the one cited (versions compare as versions, not as text)."""
    current, last = Version(version), Version(cited)
    if last.is_prerelease or last.is_devrelease:
        return False
    return last < current if current.is_devrelease else last == current


@pytest.mark.parametrize(
    ("version", "cited", "consistent"),
    [
        ("0.3.0", "0.3.0", True),
        ("0.3.0.dev0", "0.2.0", True),
        ("0.10.0.dev0", "0.9.0", True),  # as text, "0.10.0.dev0" < "0.9.0"
        ("1.0.0.dev0", "0.10.0", True),
        ("0.3.0", "0.2.0", False),  # a release cites itself
        ("0.3.0.dev0", "0.3.0", False),  # 0.3.0.dev0 comes before 0.3.0
        ("0.9.0.dev0", "0.10.0", False),
        ("0.3.0.dev1", "0.3.0.dev0", False),  # never a development version
    ],
)
def test_the_citation_rule(version, cited, consistent):
    assert cites_the_last_release(version, cited) is consistent


def test_one_version_everywhere():
    """The package, its installed metadata, the citation file and the changelog agree: the
    citation names the last release (with its date), by the rule above."""
    import importlib.metadata
    import re
    from pathlib import Path

    import dppca

    assert importlib.metadata.version("dppca") == dppca.__version__
    root = Path(__file__).parents[1]
    citation = (root / "CITATION.cff").read_text()
    cited = re.search(r"^version: (\S+)$", citation, re.MULTILINE).group(1)
    released = re.search(r"^date-released: (\S+)$", citation, re.MULTILINE).group(1)
    assert cites_the_last_release(dppca.__version__, cited)
    changelog = (root / "CHANGELOG.md").read_text()
    assert f"## {cited} ({released})" in changelog
    if Version(dppca.__version__).is_devrelease:
        assert "## Unreleased" in changelog


def test_type_checkers_see_the_lazy_names_real_signatures(tmp_path):
    """``DPPCA`` and the one-call plots are imported lazily, yet ``mypy --strict`` on a user's
    script sees their signatures: a call that fits passes, a misspelt keyword is caught."""
    script = tmp_path / "user.py"
    script.write_text(
        "import numpy as np\n"
        "import dppca\n"
        "X = np.random.default_rng(0).normal(size=(500, 3))\n"
        "model = dppca.DPPCA(n_components=2, epsilon=1.0, delta=1e-6)\n"
        "scores = model.fit_transform(X)\n"
        "display = dppca.dp_loading_plot(X, 1.0, 1e-6)\n"
        "dppca.dp_scree_plot(X, 2, 1.0, 1e-6)\n"
        "dppca.DPPCA(n_componentz=2)\n"
    )
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    out = subprocess.run([*command, str(script)], capture_output=True, text=True, cwd=tmp_path)
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, out.stdout
    assert 'user.py:8: error: Unexpected keyword argument "n_componentz" for "DPPCA"' in errors[0]
