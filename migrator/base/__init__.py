"""What every layer stands on: records, the data model, lines, file reading and writing, NFKC spellings, the repository top."""
