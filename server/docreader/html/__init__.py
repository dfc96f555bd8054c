"""HTML → Markdown for the docreader: parsing (``loading``), boilerplate removal (``cleanup``),
main-content choice (``main_content``), the Markdown walk (``converter``, with ``tables`` and
``markup``), image sources (``images``) and the whole-page pipeline the HTML and MHTML parsers
share (``page``).

Built on lxml alone: one parse in C, then a single Python walk over the kept elements.
"""
