"""Parquet datasets cut into files for the Dask dtype tests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def write_cut(df: pd.DataFrame, cuts: list[int], out: Path) -> str:
    """Write ``df`` into ``out`` as one Parquet file per slice ``cuts[i]:cuts[i+1]`` (each
    file's index restarts at 0, as files written separately have); returns the folder."""
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
        df.iloc[a:b].to_parquet(out / f"part{i}.parquet", index=False)
    return str(out)
