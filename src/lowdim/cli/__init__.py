"""The ``lowdim`` command line: thin front end over the public API."""
