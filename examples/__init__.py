"""Example apps and datasets for assay's docs; from the repository root,
``assay robustness ... --target python:examples.apps:echo_first_passage`` uses them."""
