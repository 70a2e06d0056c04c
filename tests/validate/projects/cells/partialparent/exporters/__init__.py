from . import base, mesh_exporter  # noqa: F401 -- mesh_exporter is not shipped
