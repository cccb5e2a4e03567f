"""The marketplace site and ``prereq build``: the index turned into pages people use.

- ``build``: ``prereq build`` and ``prereq serve`` (validate, index, site, swap into place);
- ``site``: MkDocs behind one small module; ``plugin``: the MkDocs plugin that generates pages;
- ``pages`` (with ``templates/``): tag, template and home page parts; ``itempage``: an item's page
  and its form files; ``reference``: the format reference; ``frame``: the theme's whitespace out;
- ``diagram``: the dependency SVG; ``render``: the sanitiser for contributor text;
- ``execution_pages``: the execution catalog's pages (where jobs run, which queues each user gets).

May import: prereq.core, prereq.openpai, prereq.registry, prereq.index, prereq.execution, prereq.review.rules
(every layer's rules), prereq.jobs, and mkdocs.
"""
