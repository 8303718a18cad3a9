"""A patch to Triton's interpreter: bfloat16 arithmetic and rounding, and tl.dot's precision, as on a GPU.

It and the launch watch (``triton_watch``) replace private parts of Triton (``triton.runtime.jit``,
``triton.runtime.interpreter``, ``triton._C.libtriton.ir``), which change between releases: they run
only on the Triton versions they were tested on, ``TESTED_TRITON`` (the range ``requirements.txt``
pins), and refuse any other with a message saying so.
"""

from __future__ import annotations

import re

TESTED_TRITON = ((3, 8), (3, 10))  # from 3.8 up to, not including, 3.10: tested with 3.8.0 and 3.9.0


def check_triton_version(version: str) -> None:
    """Refuse a Triton outside ``TESTED_TRITON``, naming the range and the fix."""
    found = re.match(r"(\d+)\.(\d+)", version)
    low, high = TESTED_TRITON
    if found is None or not low <= (int(found[1]), int(found[2])) < high:
        raise RuntimeError(
            f"Triton {version} is not a version the grader was tested with (>={low[0]}.{low[1]},"
            f" <{high[0]}.{high[1]}): its kernel checks patch Triton's internals. Install the pinned range:"
            f" pip install 'triton>={low[0]}.{low[1]},<{high[0]}.{high[1]}' (as requirements.txt says)")


_BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "where"}


def _bf16_to_float32(bits):
    import numpy as np

    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def _float_to_bf16(x, truncate: bool = False):
    """bfloat16 bits of ``x`` rounded to nearest even (float64 goes through float32, as PyTorch's does)."""
    import numpy as np

    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    if truncate:
        rounded = bits >> np.uint32(16)
    else:
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    quiet = (bits >> np.uint32(16)) | np.uint32(0x40)  # a NaN stays a NaN with its sign
    return np.where(nan, quiet, rounded).astype(np.uint16)


TF32_MANTISSA = 10  # TF32: float32's sign and 8-bit exponent, 10 of its 23 bits of mantissa


def float32_as_tf32(x):
    """float32 values as a GPU's tensor cores read them for a "tf32" tl.dot: the low 13 bits of the
    mantissa dropped, without rounding (Triton 3.9's documentation of tl.dot: "the float32 inputs may be
    truncated to TF32 format (19-bit floating point) without rounding"). NaN stays NaN."""
    import numpy as np

    data = np.asarray(x, dtype=np.float32)
    cut = (data.view(np.uint32) & np.uint32(~((1 << (23 - TF32_MANTISSA)) - 1) & 0xFFFFFFFF)).view(np.float32)
    return np.where(np.isnan(data), data, cut)


def compute_as_on_gpu(interpreter) -> None:
    import numpy as np
    import triton.language as tl
    from triton._C.libtriton import ir

    builder = interpreter.InterpreterBuilder
    handle = interpreter.TensorHandle
    native_binary, native_unary = builder.binary_op, builder.unary_op
    native_cast, native_fp_to_fp, native_fma = builder.cast_impl, builder.create_fp_to_fp, builder.create_fma
    bf16 = tl.bfloat16

    def is_bf16(h) -> bool:
        return h.dtype.scalar == bf16 and np.asarray(h.data).dtype == np.uint16

    def as_float32(h):
        return _bf16_to_float32(h.data) if is_bf16(h) else h.data

    def binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) or is_bf16(rhs)) or getattr(op, "__name__", "") in _BITWISE:
            return native_binary(self, lhs, rhs, op)
        out = op(as_float32(lhs), as_float32(rhs))
        if out.dtype == np.bool_:  # a comparison
            return handle(out, lhs.dtype.scalar)
        return handle(_float_to_bf16(out), bf16)

    def unary_op(self, arg, op):
        if not is_bf16(arg):
            return native_unary(self, arg, op)
        return handle(_float_to_bf16(op(as_float32(arg))), bf16)

    def cast_impl(self, src, dst_type):
        if is_bf16(src):
            src = handle(as_float32(src), tl.float32)
            if dst_type.scalar == tl.float32:
                return src
        if dst_type.scalar == bf16:
            return handle(_float_to_bf16(np.asarray(src.data).astype(np.float32)), bf16)
        return native_cast(self, src, dst_type)

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        if dst_type.scalar == bf16 and not is_bf16(src):
            truncate = rounding_mode == ir.ROUNDING_MODE.RTZ
            return handle(_float_to_bf16(np.asarray(as_float32(src)).astype(np.float32), truncate), bf16)
        if is_bf16(src):
            return native_fp_to_fp(self, handle(as_float32(src), tl.float32), dst_type, rounding_mode)
        return native_fp_to_fp(self, src, dst_type, rounding_mode)

    def create_fma(self, x, y, z):
        if not is_bf16(z):
            return native_fma(self, x, y, z)
        exact = np.add(np.multiply(as_float32(x), as_float32(y), dtype=np.float64), as_float32(z))
        return handle(_float_to_bf16(exact), bf16)  # one rounding, as a fused multiply-add

    native_dot = builder.create_dot
    tf32 = ir.INPUT_PRECISION.TF32

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        """tl.dot of bfloat16 tiles as a GPU's tensor cores do it: each product of two bfloat16 values is
        exact in float32, and the sum is accumulated in float32 (the stock interpreter multiplies the
        uint16 bit patterns). A bfloat16 accumulator is rounded once at the end. float32 tiles under
        input_precision "tf32" (tl.dot's default where a GPU has tensor cores) are cut to TF32 first, as
        the tensor cores read them (``float32_as_tf32``); the stock interpreter multiplies them in full."""
        if not (is_bf16(a) or is_bf16(b) or is_bf16(d)):
            if input_precision == tf32 and a.dtype.scalar == tl.float32 and b.dtype.scalar == tl.float32:
                a, b = handle(float32_as_tf32(a.data), a.dtype.scalar), handle(float32_as_tf32(b.data), b.dtype.scalar)
            return native_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        total = np.matmul(np.asarray(as_float32(a), np.float32), np.asarray(as_float32(b), np.float32),
                          dtype=np.float32) + np.asarray(as_float32(d), np.float32)
        return handle(_float_to_bf16(total), bf16) if is_bf16(d) else handle(total.astype(np.float32), d.dtype.scalar)

    builder.binary_op, builder.unary_op, builder.cast_impl = binary_op, unary_op, cast_impl
    builder.create_fp_to_fp, builder.create_fma, builder.create_dot = create_fp_to_fp, create_fma, create_dot


