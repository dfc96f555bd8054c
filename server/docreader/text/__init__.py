"""Text rules every part of the docreader shares: decoding the bytes of a text file, and how
Chinese and Japanese text joins across line breaks and spaces."""
