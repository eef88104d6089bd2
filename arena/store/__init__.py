"""The results database: one SQLite file, one owner for each of its tables.

:class:`Store` writes every table of a results file (runs, jobs, results,
faults, leases, and the sequential tests' and tuning runs' own tables);
:class:`SQLiteFile` is how every pengyou database is opened and checked;
:class:`Owner` names a runner that leases jobs.
"""

from .leases import Owner
from .results import DEFAULT_DB, SCHEMA_VERSION, STATUSES, RunInfo, Store
from .sqlite import SQLiteFile, log_path_for, now_utc, one_line, refuse_database_path, write_new_file

__all__ = ["DEFAULT_DB", "SCHEMA_VERSION", "STATUSES", "RunInfo", "SQLiteFile", "Store", "Owner",
           "log_path_for", "refuse_database_path", "write_new_file", "now_utc", "one_line"]
