"""The exception a failing libtpu call raises."""


class TpuError(RuntimeError):
    """A libtpu function failed.

    code is what it returned: a negative errno or a positive device status (include/tpu/tpu.h);
    strerror is tpu_strerror(code), and the message is "WHAT: STRERROR" followed by the
    library's own explanation in parentheses when it gave one (tpu_gemm_last_error, the
    trainer's err, tpu_last_open_error, the model loader's message)."""

    def __init__(self, code, what, strerror, detail=""):
        self.code = code
        self.strerror = strerror
        self.detail = detail
        msg = f"{what}: {strerror}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)
