"""The treatment methods of `SdcSession`: one mixin per treatment family, matching the families
of ``sdcsession.methods``.

- `recoding`: ``global_recode``, ``group_categories``, ``top_bottom_code``, ``round_values``,
  ``mv_top_code``, ``local_recode``;
- `suppression`: ``local_suppression``, ``suppress_by_risk``;
- `pram`: ``pram``;
- `noise`: ``add_noise``;
- `microaggregation`: ``microaggregation``, ``microaggregation_gower``;
- `swapping`: ``rank_swap``, ``shuffle``, ``record_swap``;
- `privacy`: ``generalize`` and the ``generalization`` it chose;
- `tables`: ``add_record_keys`` (a step) and the ``tabulate`` view with its log ``tabulations``;
- `preparation`: ``new_ids``.

`TreatmentMethods` combines them; `SdcSession` inherits it. Each method only builds its frozen
treatment (`_build`) and applies it as a step.
"""

from .microaggregation import MicroaggregationMethods
from .noise import NoiseMethods
from .pram import PramMethods
from .preparation import PreparationMethods
from .privacy import PrivacyMethods
from .recoding import RecodingMethods
from .suppression import SuppressionMethods
from .swapping import SwappingMethods
from .tables import TablesMethods

__all__ = ["TreatmentMethods", "RecodingMethods", "SuppressionMethods", "PramMethods",
           "NoiseMethods", "MicroaggregationMethods", "SwappingMethods", "PrivacyMethods",
           "TablesMethods", "PreparationMethods"]


class TreatmentMethods(RecodingMethods, SuppressionMethods, PramMethods, NoiseMethods,
                       MicroaggregationMethods, SwappingMethods, PrivacyMethods,
                       TablesMethods, PreparationMethods):
    """Every treatment method of a session, one mixin per family (see the modules above)."""
