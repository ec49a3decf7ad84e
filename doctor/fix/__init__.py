"""`--fix`: turn findings into changes. `plan.py` says what would change (safe, unsafe, manual), `apply.py`
writes it through the journal (`writer.py`: backup, atomic replace, verify), `patches.py` edits engine source
by parsing it, `journal.py` records every write so `revert` can undo it."""
