"""HTML → Markdown for the docreader: parsing (``loading``), boilerplate removal (``cleanup``),
main-content choice (``main_content``), the Markdown walk (``converter``, with ``tables``,
``text_only`` and ``markup``), image sources (``images``) and the whole-page pipeline the HTML
and MHTML parsers share (``page``).

Built on lexbor (selectolax): one parse in C, then one Python walk over the kept elements that
dispatches on lexbor's integer tag ids (``tags``) and reads plain-text lists and tables with
one call each.
"""
