"""The publishing models, one module each (docs/architecture.md, "How to add a
model"): ``MODELS`` maps a model's name to its :class:`~sqlanon.models.base.Model`,
in the order of ``_MODULES`` (the first is the default).

>>> list(MODELS)[:3]
['m-invariance', 'anatomy', 'dynamic-anatomy']
>>> MODELS["anatomy"].parameter, MODELS["m-invariance"].outputs
('l', ('anatomy', 'generalized'))
"""

from __future__ import annotations

from importlib import import_module

from .base import OUTPUTS, Model, Parameter

_MODULES = ("m_invariance", "anatomy", "dynamic_anatomy", "sliced_bucket", "unprotected")  # the registry line

MODELS: dict[str, Model] = {mod.MODEL.name: mod.MODEL for mod in (import_module(f"{__name__}.{n}") for n in _MODULES)}

__all__ = ["MODELS", "OUTPUTS", "Model", "Parameter"]
