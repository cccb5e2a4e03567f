"""The marketplace site and ``prereq build``: the index turned into pages people use.

- ``publish``: ``prereq build`` and ``prereq serve`` (validate, index, site, swap into place);
- ``site``: MkDocs behind one small module; ``plugin``: the MkDocs plugin that generates pages;
- ``pages`` (with ``templates/``): item, tag and template pages; ``reference``: the format reference;
- ``diagram``: the dependency SVG; ``render``: the sanitiser for contributor text;
- ``execution_pages``: the execution catalog's pages (where jobs run, which queues each user gets).

May import: prereq.core, prereq.openpai, prereq.registry, prereq.index, prereq.execution, prereq.jobs, and mkdocs.
"""
