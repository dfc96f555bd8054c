"""Reading an FAQ import file (CSV, JSON, XLSX) into import rows, a row at a time."""
