"""``import dppca`` stays light: scikit-learn and matplotlib load only when used."""

from __future__ import annotations

import subprocess
import sys


def test_import_does_not_load_scikit_learn_or_matplotlib():
    code = (
        "import sys, dppca; "
        "print(','.join(m for m in ('sklearn', 'matplotlib') if m in sys.modules)); "
        "dppca.DPPCA; print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]  # nothing before DPPCA is used, scikit-learn after


def test_one_version_everywhere():
    """The package, its installed metadata and the citation file state the same version."""
    import importlib.metadata
    import re
    from pathlib import Path

    import dppca

    assert importlib.metadata.version("dppca") == dppca.__version__
    citation = (Path(__file__).parents[1] / "CITATION.cff").read_text()
    cited = re.search(r"^version: (\S+)$", citation, re.MULTILINE).group(1)
    changelog = (Path(__file__).parents[1] / "CHANGELOG.md").read_text()
    if ".dev" in dppca.__version__:  # between releases: the citation names the last release
        assert "## Unreleased" in changelog and f"## {cited} (" in changelog
        assert dppca.__version__ > cited
    else:
        assert cited == dppca.__version__ and f"## {dppca.__version__} (" in changelog
