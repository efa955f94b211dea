"""Everything that touches privacy: every noise draw (mechanism objects that own their
calibration, draw and ledger entry), the exact samplers, Durfee's and the grid quantile kernels,
budgets, splits and the accountant."""
