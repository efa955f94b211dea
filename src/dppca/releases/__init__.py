"""One module per private release. Each follows one protocol: a frozen plan built and validated at
the public boundary with the caller's parameter names, then one charge, then a release kernel
that never validates again."""
