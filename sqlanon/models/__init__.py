"""The publishing models, one module each (docs/architecture.md, "How to add a
model"): ``MODELS`` maps a model's name to its :class:`~sqlanon.models.base.Model`,
in the order of ``_MODULES`` (the first is the default). A model defined
outside the package (its own module and template folder, ``template_dir``)
joins them through :func:`register`.

>>> list(MODELS)[:3]
['m-invariance', 'anatomy', 'dynamic-anatomy']
>>> MODELS["anatomy"].parameter, MODELS["m-invariance"].outputs
('l', ('anatomy', 'generalized'))
"""

from __future__ import annotations

from importlib import import_module

from pathlib import Path

from ..errors import SqlanonError
from .base import OUTPUTS, Model, Parameter, StepContext

_MODULES = ("m_invariance", "anatomy", "dynamic_anatomy", "sliced_bucket", "unprotected")  # the registry line

MODELS: dict[str, Model] = {mod.MODEL.name: mod.MODEL for mod in (import_module(f"{__name__}.{n}") for n in _MODULES)}

def register(model: Model, *, replace: bool = False) -> Model:
    """Add ``model`` to ``MODELS`` (the Publisher, ``sqlanon release --model``
    and the audit then know it by its name); returns it. Checked: a name not
    taken (unless ``replace``), at least the privacy parameter, outputs among
    ``OUTPUTS``, state tables that are no other model's under another name and
    none of the Publisher's, and a ``template_dir`` (when not the package's
    ``sql/``) that holds the folder of its pipeline.

    >>> toy = Model("toy-doc", "toy_doc", "a toy", parameters=(MODELS["unprotected"].parameters[0],),
    ...             template_dir="/nonexistent")
    >>> register(toy)
    Traceback (most recent call last):
    ...
    sqlanon.errors.SqlanonError: model 'toy-doc': its template folder /nonexistent/toy_doc does not exist
    """
    if not isinstance(model, Model):
        raise SqlanonError(f"register takes a sqlanon.models.base.Model, got {type(model).__name__}")
    if model.name in MODELS and not replace and MODELS[model.name] is not model:
        raise SqlanonError(f"a model named {model.name!r} is registered already; choose another name "
                           "(or replace=True)")
    if not model.parameters:
        raise SqlanonError(f"model {model.name!r} declares no parameters; the first is its privacy parameter")
    bad = [o for o in model.outputs if o not in OUTPUTS]
    if bad or not model.outputs:
        raise SqlanonError(f"model {model.name!r}: outputs must be among {', '.join(OUTPUTS)}, got {model.outputs!r}")
    from ..project import PRIVATE, PUBLIC  # the tables of the Publisher and the release gate

    for key, suffix in model.tables.items():
        if key in PUBLIC or key in PRIVATE:
            raise SqlanonError(f"model {model.name!r}: state table key {key!r} is the Publisher's; choose another")
        others = {o.tables[key] for o in MODELS.values() if o.name != model.name and key in o.tables}
        if others - {suffix}:
            raise SqlanonError(f"model {model.name!r}: state table key {key!r} is another model's with suffix "
                               f"{others.pop()!r}; choose another key or the same suffix")
    if model.template_dir is not None and not (Path(model.template_dir) / model.pipeline).is_dir():
        raise SqlanonError(f"model {model.name!r}: its template folder {Path(model.template_dir) / model.pipeline} "
                           "does not exist")
    MODELS[model.name] = model
    return model


def unregister(name: str) -> None:
    """Remove a model that :func:`register` added (tests, notebooks)."""
    MODELS.pop(name, None)


__all__ = ["MODELS", "OUTPUTS", "Model", "Parameter", "StepContext", "register", "unregister"]
