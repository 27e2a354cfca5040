"""The lifecycle every wrapper of a C object shares."""


class Owner:
    """Owns one C object: close() releases it once (through the subclass's _release), the
    object is a context manager, and garbage collection closes it too. A subclass sets
    self._live = True once it holds the object."""

    _live = False

    def close(self):
        """Release the C object (a second call does nothing)."""
        if self._live:
            self._live = False
            self._release()

    def _release(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
