"""Bit operations of the kernels: popcount, lowest set bit, and raw data pointers into arrays
(LLVM intrinsics) with a cache prefetch hint.
"""

from __future__ import annotations

from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros


@intrinsic
def _ctpop(typingctx, src):
    """LLVM ctpop (the popcnt instruction)."""
    if not isinstance(src, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return src(src), codegen


# The search works on raw data pointers (``data_pointer``) instead of its arrays: Numba passes
# an array to an inlined helper by reference counting it, an atomic NRT_incref/NRT_decref call
# pair at every call that its refcount pruning cannot remove inside the search's loop (5% of the
# kernel's time in a profile of 12,000 ``points`` solves); a pointer is not reference counted.
# Paired timing (40 deals x 4 trumps, both orders): points -7% and -8%, score -4% and -6%; same
# nodes and values.
@intrinsic
def data_pointer(typingctx, arr):
    """The data pointer of the C-contiguous array ``arr``, as a CPointer of its dtype (indexed
    like the array, no bounds or wraparound checks).  It does not keep the array alive: the
    caller must hold it (an argument, or a local array passed to ``keep_alive`` at the end)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


@intrinsic
def pointer_at(typingctx, ptr, offset):
    """``ptr + offset`` (``ptr`` a CPointer, ``data_pointer``; ``offset`` in elements): the
    pointer to ``ptr[offset]``, indexed like ``ptr`` from there."""
    if not isinstance(ptr, types.CPointer) or not isinstance(offset, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [args[1]])
    return ptr(ptr, offset), codegen


@intrinsic
def keep_alive(typingctx, arr):
    """Does nothing; a use of the array ``arr``, so that Numba does not free it before this
    point while a ``data_pointer`` into it is still in use."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return types.void(arr), codegen


@intrinsic
def prefetch(typingctx, ptr, idx):
    """Prefetch ``ptr[idx]`` into the cache (``ptr`` a CPointer, ``data_pointer``; LLVM's
    llvm.prefetch: read, high locality, data); a hint with no effect on any value."""
    if not isinstance(ptr, types.CPointer) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        p = builder.gep(args[0], [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        # the intrinsic is named after its pointer type: opaque "ptr" from LLVM 17 on (the
        # only kind there), typed "i8*" before
        name = "llvm.prefetch.p0" if llvm_version_info[0] >= 17 else "llvm.prefetch.p0i8"
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        builder.call(fn, [builder.bitcast(p, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(ptr, idx), codegen


@njit(cache=True, inline="always")
def popcount32(x):
    """Number of set bits of a card mask (LLVM ctpop: one popcnt instruction)."""
    return _ctpop(x)


@njit(cache=True, inline="always")
def lowest_bit_index(x):
    """Index of the lowest set bit of ``x`` (``x`` != 0)."""
    return trailing_zeros(x)
