"""Tables from microdata: frequency and magnitude tables with the cell-key method (CKM), perturbation
tables, primary sensitivity rules and the hand-off to secondary suppression.

Modules:

- `keys`: record keys (integer 0..modulus−1 as the ONS and τ-ARGUS, or uniform [0, 1) as
  ``cellKey``), cell keys, and the `RecordKeys` treatment (``SdcSession.add_record_keys``);
- `ptable`: the `PTable` value and its lookup, the maximum-entropy construction
  (`build_ptable`: D, V, js, pstay) and symmetric noise for magnitudes (`noise_ptable`);
- `ptable_io`: ptables in the ONS and ``cellKey`` file layouts (`read_ptable`, `ptable_frame`)
  and their check (`check_ptable`);
- `cells`: the cells of a table (inner cells, margins, sums, top contributions);
- `tabulate`: the frequency/magnitude table kernel (`tabulate`, `published`);
- `magnitude`: CKM for sums (top-contributor noise);
- `rules`: minimum frequency, (n, k)-dominance, p % rule, and `handoff` to τ-ARGUS/sdcTable.

Example
-------
>>> import sdcsession as sdc
>>> sdc.tables.build_ptable(D=2, V=1).max_value
2
"""

from .keys import RecordKeys, cell_keys, draw_record_keys, key_numerators
from .ptable import PTable, build_ptable, noise_ptable
from .ptable_io import check_ptable, ptable_frame, read_ptable
from .rules import dominance, frequency_rule, handoff, p_percent
from .tabulate import published, tabulate

__all__ = ["RecordKeys", "draw_record_keys", "key_numerators", "cell_keys", "PTable",
           "build_ptable", "noise_ptable", "read_ptable", "ptable_frame", "check_ptable",
           "tabulate", "published", "frequency_rule", "dominance", "p_percent", "handoff"]
