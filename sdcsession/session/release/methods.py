"""The release methods of `SdcSession` (a mixin): ``data_for_release``, ``release_check``,
``export`` and ``last_export``, for pandas and Dask sessions (see
`sdcsession.session.release.check`, imported on the first call: ``import sdcsession`` does not load
the release check)."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["SessionRelease"]


class SessionRelease:
    """Session methods of the release: what would be released, the check and the export."""

    def data_for_release(self, shuffle: bool = True) -> Any:
        """The data exactly as `export` writes them: the current state without the direct
        identifiers, in a seeded random record order with a fresh index (``shuffle=False``:
        the session's order and index). The order's seed derives from the session seed and
        HEAD's step (`sdcsession.session.release.order.order_seed`), so it replays from the
        recipe. A Dask session returns a lazy Dask frame.

        Example
        -------
        >>> import pandas as pd, sdcsession as sdc
        >>> s = sdc.SdcSession(pd.DataFrame({"a": list("xyxyxy")}), keys=["a"], seed=1)
        >>> sorted(s.data_for_release()["a"]) == sorted(s.data["a"])
        True
        """
        from .check import check_export_flags, release_data

        check_export_flags(shuffle=shuffle)
        if self.state.distributed:  # type: ignore[attr-defined]
            from ..distributed.release import released_frame

            return released_frame(self, shuffle=shuffle)  # type: ignore[arg-type]
        return release_data(self, shuffle=shuffle)  # type: ignore[arg-type]

    def release_check(self, *, k: int | None = None, risk_threshold: float = 0.1,
                      shuffle: bool = True) -> pd.DataFrame:
        """Findings that stand between the current state and a safe release (see
        `sdcsession.session.release.check.release_check`): one row per finding with its severity
        (``block`` / ``warn``), the variables and the number of records concerned. ``shuffle``:
        whether the records are released in random order (else the ``order`` finding is
        checked)."""
        from .check import release_check

        return release_check(self, k=k, risk_threshold=risk_threshold,  # type: ignore[arg-type]
                             shuffle=shuffle)

    def export(self, path: Any, *, force: bool = False, overwrite: bool = False,
               shuffle: bool = True, protect: Any = None, k: int | None = None,
               risk_threshold: float = 0.1, **kw: Any) -> Any:
        """Write the released data (`data_for_release`) to ``path`` in the format of its
        extension, after the release check (see `sdcsession.session.release.check.export`).

        ``block`` findings stop the export with a `ReleaseError` listing them unless
        ``force=True``; ``warn`` findings are issued as one `SdcWarning`. The records are
        written in a seeded random order unless ``shuffle=False`` (recorded in `last_export`).
        An existing file is replaced only with ``overwrite=True``, and never the file the data
        were read from (nor the ``protect`` paths). Returns the path written.

        A Dask session writes a partitioned Parquet dataset into the directory ``path`` (each
        worker writes its partitions), in the same record order as pandas.
        """
        if self.state.distributed:  # type: ignore[attr-defined]
            from ..distributed.release import export as dask_export

            return dask_export(self, path, force=force,  # type: ignore[arg-type]
                               overwrite=overwrite, shuffle=shuffle, protect=protect, k=k,
                               risk_threshold=risk_threshold, **kw)
        from .check import export

        return export(self, path, force=force, overwrite=overwrite,  # type: ignore[arg-type]
                      shuffle=shuffle, protect=protect, k=k, risk_threshold=risk_threshold, **kw)

    @property
    def last_export(self) -> dict[str, Any] | None:
        """What the last `export` of this session wrote: ``path``, ``step`` (HEAD's step id),
        ``shuffled``, ``order_seed`` (None when not shuffled) and the ``findings`` it passed
        (``severity:check``); None before any export."""
        return getattr(self, "_last_export", None)
