"""The exceptions of the openge package (raised by the native module too)."""


class Error(Exception):
    """Base class of every exception the openge package raises."""


class OptionError(Error, ValueError):
    """An invalid option value or configuration.

    The message is the engine's, one ``E10001: Value [v] for parameter [p] is invalid.
    Reason: ...`` line per problem, as the ``openge`` CLI prints them. Raised when a field is
    assigned (its type, allowed values, range and syntax) and when a Session is created (the
    rules between options and the files they point to, every problem in one exception).
    """


class ModelError(Error):
    """The model cannot be loaded: missing, unreadable, corrupt or unsupported file."""


class RunError(Error, RuntimeError):
    """Running the model failed (or a profiling call did)."""


class InputError(RunError, ValueError):
    """The feed was refused: unknown or missing input name, unknown output name, a dtype
    NumPy or the model does not take, a shape the model does not accept, or input values
    an operator rejects. A RunError, so ``except openge.RunError`` sees every failed run."""


class DumpError(Error, ValueError):
    """A Data Dump folder or file that cannot be read, compared or converted (not a folder, no
    dump files, a file that does not parse, two dumps without a common op), or an output of
    ``dump_convert``/``compare`` that cannot be written; the message is the CLI's."""


class OptionWarning(UserWarning):
    """A configuration warning (deprecated option, overridden or ignored setting)."""
