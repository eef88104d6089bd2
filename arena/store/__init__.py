"""The results database: one SQLite file, one owner for each of its tables."""

from .results import (DEFAULT_DB, SCHEMA_VERSION, STATUSES, Owner, RunInfo, SQLiteFile, Store, log_path_for,
                      refuse_database_path)

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "STATUSES", "RunInfo", "SQLiteFile", "Store", "Owner",
           "log_path_for", "refuse_database_path"]
