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
