"""Word-processing and slide documents: docx, pptx, and the legacy doc/ppt via LibreOffice."""
