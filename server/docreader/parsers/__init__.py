"""One parser per format family: a file → Markdown, images and metadata, written to a
DocumentSink (server.docreader.parser_contract) as the parser goes."""
