"""tools/plot's parts: samples (the drivers' --json lines), expressions (the
values a figure declares), layers (rows into series of points) and draw
(matplotlib). The declarations' schema is labs/lab_manifest/figures.py's."""
