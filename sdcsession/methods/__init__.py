from .base import TREATMENTS, Result, Treatment
from .basic import Recode, RemoveColumns

__all__ = ["TREATMENTS", "Result", "Treatment", "Recode", "RemoveColumns"]
